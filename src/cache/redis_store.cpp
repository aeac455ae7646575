// The shared backend: a Redis server that a fleet of CI runners uses at once.
#include <cstdlib>
#include <memory>
#include <vector>

#include <hiredis/hiredis.h>

#include "src/cache/proof_cache.h"

namespace torchtv::cache {
namespace {

constexpr const char *kFormat = "torchtv-proof-cache 1";
constexpr const char *kPrefix = "torchtv:proof:";
constexpr const char *kFormatKey = "torchtv:format";

class RedisBackend : public Backend {
public:
  explicit RedisBackend(const std::string &url) : url_(url) {
    // redis://HOST[:PORT][/DB]
    std::string rest = url.substr(8);
    int db = 0, port = 6379;
    if (size_t slash = rest.find('/'); slash != std::string::npos) {
      db = std::atoi(rest.c_str() + slash + 1);
      rest.resize(slash);
    }
    if (size_t colon = rest.rfind(':'); colon != std::string::npos) {
      port = std::atoi(rest.c_str() + colon + 1);
      rest.resize(colon);
    }
    if (rest.empty() || port <= 0) throw CacheError("not a redis://HOST:PORT/DB address");
    // Short timeouts: an unreachable cache must cost a check little.
    timeval timeout{2, 0};
    ctx_ = redisConnectWithTimeout(rest.c_str(), port, timeout);
    if (!ctx_ || ctx_->err) {
      std::string why = ctx_ ? ctx_->errstr : "out of memory";
      redisFree(ctx_);
      ctx_ = nullptr;
      throw CacheError("cannot connect: " + why);
    }
    try {
      redisSetTimeout(ctx_, timeout);
      command({"SELECT", std::to_string(db)});
      command({"SET", kFormatKey, kFormat, "NX"});
      Reply got = command({"GET", kFormatKey});
      if (got->type != REDIS_REPLY_STRING || std::string(got->str, got->len) != kFormat)
        throw CacheError("the database holds another cache format");
    } catch (...) {
      redisFree(ctx_);
      throw;
    }
  }
  ~RedisBackend() override { redisFree(ctx_); }

  std::optional<std::string> get(const std::string &key) override {
    Reply r = command({"GET", kPrefix + key});
    if (r->type == REDIS_REPLY_NIL) return std::nullopt;
    if (r->type != REDIS_REPLY_STRING) throw CacheError("unexpected reply to GET");
    return std::string(r->str, r->len);
  }
  void put(const std::string &key, const std::string &value) override { command({"SET", kPrefix + key, value}); }

  size_t count() override {
    size_t n = 0;
    scan("", [&](const std::string &) { ++n; });
    return n;
  }
  std::pair<size_t, size_t> countPrefixed(const std::string &prefix) override {
    size_t n = 0, bytes = 0;
    scan(prefix, [&](const std::string &k) {
      ++n;
      Reply r = command({"STRLEN", k});
      if (r->type == REDIS_REPLY_INTEGER) bytes += static_cast<size_t>(r->integer);
    });
    return {n, bytes};
  }
  void clear() override {
    scan("", [&](const std::string &k) { command({"DEL", k}); });
  }

private:
  struct FreeReply {
    void operator()(redisReply *r) const { freeReplyObject(r); }
  };
  using Reply = std::unique_ptr<redisReply, FreeReply>;

  Reply command(const std::vector<std::string> &args) {
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const std::string &a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    Reply r(static_cast<redisReply *>(redisCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(), lens.data())));
    if (!r) throw CacheError(std::string("redis: ") + (ctx_->err ? ctx_->errstr : "no reply"));
    if (r->type == REDIS_REPLY_ERROR) throw CacheError("redis: " + std::string(r->str, r->len));
    return r;
  }

  template <typename Fn>
  void scan(const std::string &prefix, Fn fn) {
    std::string cursor = "0";
    do {
      Reply r = command({"SCAN", cursor, "MATCH", std::string(kPrefix) + prefix + "*", "COUNT", "1000"});
      if (r->type != REDIS_REPLY_ARRAY || r->elements != 2) throw CacheError("unexpected reply to SCAN");
      cursor.assign(r->element[0]->str, r->element[0]->len);
      for (size_t i = 0; i < r->element[1]->elements; ++i)
        fn(std::string(r->element[1]->element[i]->str, r->element[1]->element[i]->len));
    } while (cursor != "0");
  }

  std::string url_;
  redisContext *ctx_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> openRedis(const std::string &url) { return std::make_unique<RedisBackend>(url); }

}  // namespace torchtv::cache
