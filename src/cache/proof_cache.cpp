#include "src/cache/proof_cache.h"

#include <cstdlib>

#include <spdlog/spdlog.h>

#include "src/cache/sha256.h"

namespace torchtv::cache {
namespace {

// Entry layout: "tvpc1 <sha256 of key> <sha256 of payload>\n<payload>". The
// stored key digest guards against a backend that returns another key's value
// (a foreign or hand-edited store); the checksum against a torn or damaged one.
constexpr const char *kMagic = "tvpc1 ";

std::string envelope(const std::string &keyDigest, const std::string &payload) {
  return kMagic + keyDigest + " " + sha256Hex(payload) + "\n" + payload;
}

// The payload, or nullopt when the entry is not intact for this key.
std::optional<std::string> unwrap(const std::string &entry, const std::string &keyDigest) {
  const size_t magic = 6, header = magic + 64 + 1 + 64 + 1;
  if (entry.size() < header || entry.compare(0, magic, kMagic) != 0) return std::nullopt;
  if (entry.compare(magic, 64, keyDigest) != 0 || entry[header - 1] != '\n') return std::nullopt;
  std::string payload = entry.substr(header);
  if (entry.compare(magic + 65, 64, sha256Hex(payload)) != 0) return std::nullopt;
  return payload;
}

// The backend's key: the digest of the entry's key, after its kind's prefix.
std::string backendKey(const std::string &keyDigest, EntryKind kind) {
  return kind == EntryKind::CutRecord ? "cut-record:" + keyDigest : keyDigest;
}

}  // namespace

std::unique_ptr<ProofCache> ProofCache::open(const std::string &spec, bool quietIfUnusable) {
  std::unique_ptr<Backend> backend;
  if (!spec.empty() && spec != "off") {
    try {
      backend = spec.rfind("redis://", 0) == 0 ? openRedis(spec) : openSqlite(spec);
    } catch (const CacheError &e) {
      if (quietIfUnusable)
        spdlog::debug("proof cache off: {}", e.what());
      else
        spdlog::warn("proof cache {} ignored: {}", spec, e.what());
    }
  }
  return std::unique_ptr<ProofCache>(new ProofCache(spec, std::move(backend)));
}

void ProofCache::fail(const std::string &what) {
  if (!warned_) spdlog::warn("proof cache {} ignored from here on: {}", spec_, what);
  warned_ = true;
  backend_.reset();
}

std::optional<std::string> ProofCache::lookup(const std::string &key, EntryKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!backend_) return std::nullopt;
  std::string digest = sha256Hex(key);
  try {
    std::optional<std::string> entry = backend_->get(backendKey(digest, kind));
    if (entry) {
      if (auto payload = unwrap(*entry, digest)) {
        ++stats_.hits;
        return payload;
      }
      if (!warned_) spdlog::warn("proof cache {}: a damaged entry is ignored", spec_);
      warned_ = true;
    }
  } catch (const CacheError &e) {
    fail(e.what());
  }
  ++stats_.misses;
  return std::nullopt;
}

void ProofCache::store(const std::string &key, const std::string &payload, EntryKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!backend_) return;
  std::string digest = sha256Hex(key);
  try {
    backend_->put(backendKey(digest, kind), envelope(digest, payload));
    ++stats_.stores;
  } catch (const CacheError &e) {
    fail(e.what());
  }
}

CacheStats ProofCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

size_t ProofCache::entries() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!backend_) throw CacheError("the cache " + spec_ + " cannot be opened");
  return backend_->count();
}

std::pair<size_t, size_t> ProofCache::entriesOf(EntryKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!backend_) throw CacheError("the cache " + spec_ + " cannot be opened");
  return backend_->countPrefixed(backendKey("", kind));
}

void ProofCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!backend_) throw CacheError("the cache " + spec_ + " cannot be opened");
  backend_->clear();
}

std::string resolveCacheSpec(const std::string &option, bool noCache, bool *isDefault) {
  if (isDefault) *isDefault = false;
  if (noCache) return "";
  if (!option.empty()) return option == "off" ? "" : option;
  if (const char *env = std::getenv("TORCHTV_CACHE"); env && *env) return std::string(env) == "off" ? "" : env;
  if (isDefault) *isDefault = true;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/torchtv/proofs.sqlite";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/torchtv/proofs.sqlite";
  return "";
}

}  // namespace torchtv::cache
