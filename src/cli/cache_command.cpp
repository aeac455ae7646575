// torchtv cache stats|clear: the persistent proof cache (Note [Proof cache]).
#include <cstdio>

#include "src/cli/commands.h"
#include "src/verify/persistent_proofs.h"

namespace torchtv::cli {

void addCacheOptions(CLI::App &cmd, std::string &cache, bool &noCache) {
  cmd.add_option("--cache", cache,
                 "Proof cache: a SQLite file or redis://HOST:PORT/DB (default: $TORCHTV_CACHE, else "
                 "$XDG_CACHE_HOME/torchtv/proofs.sqlite)");
  cmd.add_flag("--no-cache", noCache, "Neither read nor write the proof cache");
}

std::unique_ptr<cache::ProofCache> openProofCache(const std::string &cache, bool noCache) {
  bool isDefault = false;
  std::string spec = cache::resolveCacheSpec(cache, noCache, &isDefault);
  // The default location may be unwritable (a CI runner's read-only home):
  // then the run goes on without a cache, silently.
  return cache::ProofCache::open(spec, isDefault);
}

namespace {
struct CacheArgs {
  std::string action;
  std::string cache;
};
}  // namespace

Command addCacheCommand(CLI::App &app) {
  auto args = std::make_shared<CacheArgs>();
  CLI::App *cmd = app.add_subcommand("cache", "Show or clear the persistent proof cache");
  cmd->add_option("action", args->action, "stats or clear")->required()->check(CLI::IsMember({"stats", "clear"}));
  cmd->add_option("--cache", args->cache, "The cache (default: as for check and verify)");
  return {cmd, [args] {
            std::string spec = cache::resolveCacheSpec(args->cache, false);
            if (spec.empty()) {
              std::printf("proof cache: off\n");
              return 0;
            }
            std::unique_ptr<cache::ProofCache> c = cache::ProofCache::open(spec);
            try {
              if (args->action == "clear") {
                c->clear();
                std::printf("cleared %s\n", spec.c_str());
              } else {
                auto [records, recordBytes] = c->entriesOf(cache::EntryKind::CutRecord);
                std::printf("location: %s\nentries: %zu\ncut search records: %zu (%zu bytes)\nsemantics: %s\n",
                            spec.c_str(), c->entries(), records, recordBytes, semanticsVersion().c_str());
              }
            } catch (const cache::CacheError &e) {
              std::fprintf(stderr, "torchtv: error: %s\n", e.what());
              return exitCode(Verdict::Error);
            }
            return 0;
          }};
}

}  // namespace torchtv::cli
