// torchtv verify PAIR.py: capture a pair file's two functions and decide them.
// Note: this runs the user's Python code (the pair file); `check` never does.
#include <algorithm>

#include "src/cache/proof_cache.h"
#include "src/cli/capture_cache.h"
#include "src/cli/commands.h"
#include "src/cli/usage.h"
#include "src/import/pair_file.h"

namespace torchtv::cli {

namespace {
struct VerifyArgs {
  std::string pair;
  CaptureOptions capture;
  EngineOptions engine;
  OutputOptions output;
  bool recapture = false;
};
}  // namespace

void addCaptureOptions(CLI::App &cmd, CaptureOptions &capture) {
  cmd.add_option("--python", capture.python,
                 "Python interpreter with torch (default: $TORCHTV_PYTHON, else /usr/bin/python3)");
  cmd.add_option("--capture-timeout", capture.timeoutSeconds,
                 "Seconds the capture may take (also bounded by what is left of --timeout)")
      ->capture_default_str()
      ->check(atLeast(0.001, "seconds"));
}

Command addVerifyCommand(CLI::App &app) {
  auto args = std::make_shared<VerifyArgs>();
  auto *cmd = app.add_subcommand("verify", "Capture a pair file (PAIR.py, runs its code) and decide it");
  cmd->add_option("pair", args->pair, "Pair file defining example_inputs, reference, production")->required();
  addCaptureOptions(*cmd, args->capture);
  addEngineOptions(*cmd, args->engine);
  cmd->add_flag("--recapture", args->recapture,
                "Trace the pair file even when the capture cache holds it unchanged (Note [Capture cache])");
  addOutputOptions(*cmd, args->output);
  return {cmd, [args] {
            ReportContext ctx;
            ctx.referencePath = ctx.productionPath = args->pair;
            // The capture comes first, so what is left of --timeout is all of it (Note [Time budget]).
            CaptureOptions capture = args->capture;
            if (args->engine.timeout > 0) capture.timeoutSeconds = std::min(capture.timeoutSeconds, args->engine.timeout);
            auto load = [&] {
              std::unique_ptr<cache::ProofCache> store = openProofCache(args->engine.cache, args->engine.noCache);
              CaptureCache captures(store.get(), args->pair, capture);
              std::optional<std::string> json = args->recapture ? std::nullopt : captures.lookup();
              if (!json) {
                json = capturePairFileJson(args->pair, capture);
                captures.store(*json);
              }
              return std::make_pair(readCapturedPair(*json, args->pair), std::unique_ptr<Module>());
            };
            return decideAndEmit(load, ctx, args->engine, args->output);
          }};
}

}  // namespace torchtv::cli
