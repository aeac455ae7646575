// SHA-256, for the proof cache's keys and checksums (no crypto library needed).
#pragma once

#include <string>

namespace torchtv::cache {

// Lower-case hex digest of `data`.
std::string sha256Hex(const std::string &data);

}  // namespace torchtv::cache
