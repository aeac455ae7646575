// The default backend: one SQLite file, shared by concurrent processes.
#include <filesystem>

#include <sqlite3.h>

#include "src/cache/proof_cache.h"

namespace torchtv::cache {
namespace {

constexpr const char *kFormat = "torchtv-proof-cache 1";

class SqliteBackend : public Backend {
public:
  explicit SqliteBackend(const std::string &path) : path_(path) {
    try {
      init();
    } catch (...) {
      sqlite3_close(db_);
      throw;
    }
  }
  ~SqliteBackend() override { sqlite3_close(db_); }

  void init() {
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK)
      throw CacheError(error("cannot open"));
    // Several `torchtv` processes (ci -j, a CI fleet on one disk) write at
    // once: WAL lets readers run beside the writer, and a writer waits for
    // the lock instead of failing.
    sqlite3_busy_timeout(db_, 30000);
    // (Switching to WAL can be refused while another process holds the file;
    // the rollback journal is as correct, only slower.)
    sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    sqlite3_exec(db_, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    // A file that is a database but not ours (foreign) is left alone. Whether a file not yet ours
    // is foreign or empty is decided under the write lock: processes that open a new file at once
    // (ci -j) would otherwise see another's half-made tables and call the file foreign.
    // A file already ours is read without the lock (a cache on a read-only disk stays usable).
    std::optional<std::string> format;
    if (count("SELECT count(*) FROM sqlite_master WHERE name='torchtv_meta'") == 1)
      format = scalar("SELECT v FROM torchtv_meta WHERE k='format'");
    else {
      exec("BEGIN IMMEDIATE");
      if (count("SELECT count(*) FROM sqlite_master WHERE name='torchtv_meta'") == 1) {
        format = scalar("SELECT v FROM torchtv_meta WHERE k='format'");
      } else if (count("SELECT count(*) FROM sqlite_master") != 0) {
        throw CacheError(path_ + " is a SQLite database of something else");
      } else {
        exec("CREATE TABLE torchtv_meta(k TEXT PRIMARY KEY, v TEXT)");
        exec("CREATE TABLE proofs(key TEXT PRIMARY KEY, value BLOB NOT NULL)");
        exec(std::string("INSERT INTO torchtv_meta VALUES('format','") + kFormat + "')");
        format = kFormat;
      }
      exec("COMMIT");
    }
    if (format != kFormat) throw CacheError(path_ + " is a cache of another format (" + format.value_or("?") + ")");
  }

  std::optional<std::string> get(const std::string &key) override {
    Statement s(*this, "SELECT value FROM proofs WHERE key=?1");
    sqlite3_bind_text(s.st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    int rc = sqlite3_step(s.st);
    if (rc == SQLITE_DONE) return std::nullopt;
    if (rc != SQLITE_ROW) throw CacheError(error("cannot read"));
    const void *blob = sqlite3_column_blob(s.st, 0);
    return std::string(static_cast<const char *>(blob), static_cast<size_t>(sqlite3_column_bytes(s.st, 0)));
  }

  void put(const std::string &key, const std::string &value) override {
    Statement s(*this, "INSERT OR REPLACE INTO proofs VALUES(?1, ?2)");
    sqlite3_bind_text(s.st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_blob(s.st, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(s.st) != SQLITE_DONE) throw CacheError(error("cannot write"));
  }

  size_t count() override { return count("SELECT count(*) FROM proofs"); }
  std::pair<size_t, size_t> countPrefixed(const std::string &prefix) override {
    Statement s(*this, "SELECT count(*), total(length(value)) FROM proofs WHERE substr(key, 1, ?2) = ?1");
    sqlite3_bind_text(s.st, 1, prefix.data(), static_cast<int>(prefix.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s.st, 2, static_cast<sqlite3_int64>(prefix.size()));
    if (sqlite3_step(s.st) != SQLITE_ROW) throw CacheError(error("cannot read"));
    return {static_cast<size_t>(sqlite3_column_int64(s.st, 0)), static_cast<size_t>(sqlite3_column_double(s.st, 1))};
  }
  void clear() override { exec("DELETE FROM proofs"); }

private:
  struct Statement {
    Statement(SqliteBackend &b, const char *sql) {
      if (sqlite3_prepare_v2(b.db_, sql, -1, &st, nullptr) != SQLITE_OK) throw CacheError(b.error("cannot query"));
    }
    ~Statement() { sqlite3_finalize(st); }
    sqlite3_stmt *st = nullptr;
  };

  std::string error(const std::string &what) const {
    return what + " " + path_ + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
  }
  void exec(const std::string &sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) throw CacheError(error("cannot use"));
  }
  std::optional<std::string> scalar(const char *sql) {
    Statement s(*this, sql);
    int rc = sqlite3_step(s.st);
    if (rc == SQLITE_DONE) return std::nullopt;
    if (rc != SQLITE_ROW) throw CacheError(error("cannot read"));
    const unsigned char *t = sqlite3_column_text(s.st, 0);
    return t ? std::string(reinterpret_cast<const char *>(t)) : std::string();
  }
  size_t count(const char *sql) {
    Statement s(*this, sql);
    if (sqlite3_step(s.st) != SQLITE_ROW) throw CacheError(error("cannot read"));
    return static_cast<size_t>(sqlite3_column_int64(s.st, 0));
  }

  std::string path_;
  sqlite3 *db_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> openSqlite(const std::string &path) { return std::make_unique<SqliteBackend>(path); }

}  // namespace torchtv::cache
