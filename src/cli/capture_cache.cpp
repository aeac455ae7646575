#include "src/cli/capture_cache.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"

namespace torchtv::cli {
namespace {

// The file's SHA-256, or nullopt when it cannot be read (gone, not a regular file).
std::optional<std::string> digestOf(const std::string &path) {
  try {
    return cache::sha256Hex(readFile(path));
  } catch (const InputError &) {
    return std::nullopt;
  }
}

// Every file the capture ran still hashes as it did; names the first one that does not.
bool codeUnchanged(const nlohmann::json &files, std::string &changed) {
  for (const auto &f : files) {
    std::string path = f.at("path").get<std::string>();
    std::optional<std::string> digest = digestOf(path);
    if (!digest || *digest != f.at("sha256").get<std::string>()) {
      changed = path;
      return false;
    }
  }
  return true;
}

}  // namespace

CaptureCache::CaptureCache(cache::ProofCache *store, const std::string &pairPath, const CaptureOptions &options) {
  if (!store || !store->usable()) return;
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(pairPath, ec).lexically_normal().string();
  std::optional<std::string> digest = digestOf(pairPath);
  if (ec || !digest) return;  // the capture reports the missing file
  store_ = store;
  key_ = "torchtv-capture 1\npython=" + (options.python.empty() ? defaultPython() : options.python) +
         "\npair=" + absolute + "\n" + *digest;
}

// An entry is the capture's code_files (one JSON line) and then the capture's
// JSON text: a lookup reads the short list, not the graphs.
std::optional<std::string> CaptureCache::lookup() {
  if (!store_) return std::nullopt;
  std::optional<std::string> entry = store_->lookup(key_);
  if (!entry) return std::nullopt;
  size_t newline = entry->find('\n');
  if (newline == std::string::npos) return std::nullopt;
  try {
    nlohmann::json files = nlohmann::json::parse(entry->substr(0, newline));
    std::string changed;
    if (!codeUnchanged(files, changed)) {
      spdlog::info("capture cache: {} changed since the last capture; tracing again", changed);
      return std::nullopt;
    }
    spdlog::info("capture cache: the pair file and the code its capture ran ({} files) are unchanged; not "
                 "traced again (--recapture traces anyway)",
                 files.size());
    return entry->substr(newline + 1);
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;  // another version's layout
  }
}

void CaptureCache::store(const std::string &jsonText) {
  if (!store_) return;
  nlohmann::json j = nlohmann::json::parse(jsonText, nullptr, false);
  if (!j.is_object() || !j.contains("capture") || !j["capture"].is_object() || !j["capture"].contains("code_files"))
    return;
  const nlohmann::json &files = j["capture"]["code_files"];
  if (!files.is_array() || files.empty()) return;
  store_->store(key_, files.dump() + "\n" + jsonText);
}

}  // namespace torchtv::cli
