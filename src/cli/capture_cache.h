// `verify` of an unchanged pair file without tracing it again (Note [Capture cache]).
#pragma once

#include <optional>
#include <string>

#include "src/import/pair_file.h"

namespace torchtv {
namespace cache {
class ProofCache;
}

namespace cli {

// Note [Capture cache]
// `verify` keeps each successful capture in the proof cache's store (SQLite or
// Redis, Note [Proof cache]) under the SHA-256 of the entry format, the Python
// interpreter named, and the pair file's absolute path and content. The entry
// holds the capture's JSON, whose `code_files` list every file whose code the
// capture ran (src/capture/torchtv_capture/sources.py: the pair file, modules
// loaded from the user's tree, this capture package, torch's version file). A
// lookup answers only while each of those files still has the SHA-256 it had;
// the eager cross-check's record is part of the entry, since the same code ran
// on the same seeded inputs. What a cached capture does not rest on: data files
// or environment variables the user's code reads, and installed packages other
// than torch; `verify --recapture` traces again (and replaces the entry).
// `--no-cache` neither reads nor writes it.
class CaptureCache {
public:
  // `store` null or unusable: every call is a no-op.
  CaptureCache(cache::ProofCache *store, const std::string &pairPath, const CaptureOptions &options);
  // The capture's JSON text, when an entry exists and every code file is unchanged.
  std::optional<std::string> lookup();
  // Keeps `jsonText` (a successful capture); ignored when it lists no code files.
  void store(const std::string &jsonText);

private:
  cache::ProofCache *store_ = nullptr;
  std::string key_;
};

}  // namespace cli
}  // namespace torchtv
