// The persistent proof cache: results of the prover kept across runs, in a
// SQLite file (the default) or a Redis server shared by CI runners.
// Knows nothing of graphs, terms or Z3: it stores opaque payloads under text
// keys; src/verify/persistent_proofs.cpp decides what goes in and what a hit
// may answer (Note [Proof cache]).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace torchtv::cache {

// A backend failed (cannot open, I/O error, not a torchtv cache).
class CacheError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One store of entries. Every method may throw CacheError.
class Backend {
public:
  virtual ~Backend() = default;
  virtual std::optional<std::string> get(const std::string &key) = 0;
  virtual void put(const std::string &key, const std::string &value) = 0;
  virtual size_t count() = 0;
  // The entries whose key starts with `prefix`, and their values' bytes.
  virtual std::pair<size_t, size_t> countPrefixed(const std::string &prefix) = 0;
  virtual void clear() = 0;
};

// What an entry holds. The backends keep each kind under a key prefix of its own, so that
// `torchtv cache stats` can say how much of the store each takes (Note [Cut record pruning]
// in src/verify/cut_record.h).
enum class EntryKind { Proof, CutRecord };

std::unique_ptr<Backend> openSqlite(const std::string &path);
// url: redis://HOST:PORT/DB (PORT 6379 and DB 0 when left out).
std::unique_ptr<Backend> openRedis(const std::string &url);

struct CacheStats {
  size_t hits = 0, misses = 0, stores = 0;
};

// Where the cache is: `spec` is a SQLite path, a redis:// URL, or "off"/""
// for none. Thread-safe (`ci -j` runs checks in threads of one process, and
// child processes share the file: SQLite's WAL and a busy timeout).
class ProofCache {
public:
  // Never throws: a cache that cannot be opened is off, with one warning
  // (none when `quietIfUnusable`, for the default location, which CI runners
  // may not be able to write).
  static std::unique_ptr<ProofCache> open(const std::string &spec, bool quietIfUnusable = false);

  // The payload stored under `key`, if an intact entry for exactly this key
  // exists. A damaged or foreign entry is a miss (with one warning).
  std::optional<std::string> lookup(const std::string &key, EntryKind kind = EntryKind::Proof);
  void store(const std::string &key, const std::string &payload, EntryKind kind = EntryKind::Proof);

  bool usable() const { return backend_ != nullptr; }
  const std::string &location() const { return spec_; }
  CacheStats stats() const;
  // Entries in the store; throws CacheError (for `torchtv cache`).
  size_t entries();
  // Entries of one kind and their bytes; throws CacheError.
  std::pair<size_t, size_t> entriesOf(EntryKind kind);
  void clear();

private:
  ProofCache(std::string spec, std::unique_ptr<Backend> backend) : spec_(std::move(spec)), backend_(std::move(backend)) {}
  void fail(const std::string &what);  // first failure: warn once, turn the cache off

  std::string spec_;
  std::unique_ptr<Backend> backend_;
  mutable std::mutex mutex_;
  CacheStats stats_;
  bool warned_ = false;
};

// The cache a command uses: `--no-cache` > `--cache SPEC` > $TORCHTV_CACHE >
// $XDG_CACHE_HOME/torchtv/proofs.sqlite > ~/.cache/torchtv/proofs.sqlite.
// "" when off. `isDefault` says the location was not asked for explicitly.
std::string resolveCacheSpec(const std::string &option, bool noCache, bool *isDefault = nullptr);

}  // namespace torchtv::cache
