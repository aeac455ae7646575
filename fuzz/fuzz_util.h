// Shared by the libFuzzer targets (docs/trust.md).
//
// Note [What a fuzzer finding is]
// Every reader must turn bad bytes into InputError. The CLI maps any other
// std::exception to `error` (exit 3) as well, so those are not findings
// either; a finding is a crash, a sanitizer report, a hang or running out of
// memory (libFuzzer's -timeout and -rss_limit_mb).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace torchtv::fuzz {

// TORCHTV_FUZZ_VERBOSE=1 prints each input's error, to see how far inputs get.
template <class F> int guarded(F &&f) {
  try {
    f();
    if (std::getenv("TORCHTV_FUZZ_VERBOSE")) std::fprintf(stderr, "accepted\n");
  } catch (const std::exception &e) {
    if (std::getenv("TORCHTV_FUZZ_VERBOSE")) std::fprintf(stderr, "error: %s\n", e.what());
  }
  return 0;
}

inline std::string text(const uint8_t *data, size_t size) { return std::string(reinterpret_cast<const char *>(data), size); }

}  // namespace torchtv::fuzz
