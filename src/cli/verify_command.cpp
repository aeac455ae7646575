// torchtv verify PAIR.py: capture a pair file's two functions and decide them.
// Note: this runs the user's Python code (the pair file); `check` never does.
#include <algorithm>

#include "src/cache/proof_cache.h"
#include "src/cli/capture_cache.h"
#include "src/cli/commands.h"
#include "src/cli/usage.h"
#include "ir/diagnostic.h"
#include "src/import/pair_file.h"

namespace torchtv::cli {

namespace {
struct VerifyArgs {
  std::vector<std::string> pairs;
  bool each = false;  // --each: several pair files, captured by one Python (Note [Capturing each file])
  CaptureOptions capture;
  EngineOptions engine;
  OutputOptions output;
  bool recapture = false;
};
// The engine's options for PAIR.py: a refutation of its graphs is run through its
// code (Note [A refutation reproduces on the code] in src/verify/code_runs.h).
EngineOptions engineFor(const std::string &pair, const EngineOptions &given, const CaptureOptions &capture) {
  EngineOptions engine = given;
  engine.check.runCode = [pair, capture](const std::string &request) {
    return runPairFileCode(pair, request, capture);
  };
  return engine;
}
// `verify --each A.py B.py ...`: what the capture cache holds is taken from it, the
// rest is captured by one Python process, and each pair is decided as `verify`
// would decide it, results printed in order (Note [Checking each file]). The
// captures come first: a pair's --timeout bounds its decision, --capture-timeout
// its capture.
int verifyEach(const VerifyArgs &args) {
  std::unique_ptr<cache::ProofCache> store = openProofCache(args.engine.cache, args.engine.noCache);
  std::vector<CapturedPairFile> captured(args.pairs.size());
  std::vector<std::string> missing;
  std::vector<size_t> place;
  for (size_t i = 0; i < args.pairs.size(); ++i) {
    std::optional<std::string> hit;
    if (!args.recapture) hit = CaptureCache(store.get(), args.pairs[i], args.capture).lookup();
    if (hit) {
      captured[i].json = std::move(*hit);
      continue;
    }
    missing.push_back(args.pairs[i]);
    place.push_back(i);
  }
  if (!missing.empty()) {
    std::vector<CapturedPairFile> fresh;
    try {
      fresh = capturePairFilesJson(missing, args.capture);
    } catch (const InputError &) {  // the capture could not start: every pair says why
      fresh.assign(missing.size(), CapturedPairFile{"", std::current_exception()});
    }
    for (size_t k = 0; k < missing.size(); ++k) {
      if (!fresh[k].error) CaptureCache(store.get(), missing[k], args.capture).store(fresh[k].json);
      captured[place[k]] = std::move(fresh[k]);
    }
  }
  int worst = exitCode(Verdict::Equivalent);
  for (size_t i = 0; i < args.pairs.size(); ++i) {
    ReportContext ctx;
    ctx.referencePath = ctx.productionPath = args.pairs[i];
    auto load = [&] {
      if (captured[i].error) std::rethrow_exception(captured[i].error);
      return std::make_pair(readCapturedPair(captured[i].json, args.pairs[i]), std::unique_ptr<Module>());
    };
    worst = worseExitCode(worst, decideAndEmit(load, ctx, engineFor(args.pairs[i], args.engine, args.capture),
                                               args.output));
  }
  return worst;
}
}  // namespace

void addCaptureOptions(CLI::App &cmd, CaptureOptions &capture) {
  cmd.add_option("--python", capture.python,
                 "Python interpreter with torch (default: $TORCHTV_PYTHON, else /usr/bin/python3)");
  cmd.add_option("--capture-timeout", capture.timeoutSeconds,
                 "Seconds the capture may take (also bounded by what is left of --timeout)")
      ->capture_default_str()
      ->check(atLeast(0.001, "seconds"));
  cmd.add_flag("--sandbox", capture.sandbox.enabled,
               "Run the pair file's code under bubblewrap: no network, the file system read-only, limited "
               "processes and memory (for code from untrusted changes; Note [The capture sandbox])");
  cmd.add_option("--sandbox-memory", capture.sandbox.memoryGiB, "GiB of memory the sandboxed code may use")
      ->capture_default_str()
      ->check(atLeast(0.5, "GiB"));
  cmd.add_option("--sandbox-processes", capture.sandbox.processes,
                 "Processes and threads the sandboxed code may start")
      ->capture_default_str()
      ->check(atLeast(1, "processes", "", true));
}

Command addVerifyCommand(CLI::App &app) {
  auto args = std::make_shared<VerifyArgs>();
  auto *cmd = app.add_subcommand("verify", "Capture a pair file (PAIR.py, runs its code) and decide it");
  cmd->add_option("pair", args->pairs, "Pair file defining example_inputs, reference, production")
      ->required()
      ->expected(1, -1);
  addCaptureOptions(*cmd, args->capture);
  addEngineOptions(*cmd, args->engine);
  cmd->add_flag("--recapture", args->recapture,
                "Trace the pair file even when the capture cache holds it unchanged (Note [Capture cache])");
  addOutputOptions(*cmd, args->output);
  cmd->add_option("--repro", args->output.reproDir,
                  "Write the counterexample to this folder as counterexample.json and repro.py, which runs the "
                  "pair's two functions on it (python3 DIR/repro.py)");
  addEachOption(*cmd, args->each, args->pairs, args->output, "verify takes one pair file; --each verifies several",
                "Verify each pair file, capturing them all with one Python process");
  return {cmd, [args] {
            if (args->each) return verifyEach(*args);
            const std::string &pair = args->pairs.at(0);
            ReportContext ctx;
            ctx.referencePath = ctx.productionPath = pair;
            // The capture comes first, so what is left of --timeout is all of it (Note [Time budget]).
            CaptureOptions capture = args->capture;
            const double timeout = args->engine.check.timeoutSeconds;
            if (timeout > 0) capture.timeoutSeconds = std::min(capture.timeoutSeconds, timeout);
            auto load = [&] {
              std::unique_ptr<cache::ProofCache> store = openProofCache(args->engine.cache, args->engine.noCache);
              CaptureCache captures(store.get(), pair, capture);
              std::optional<std::string> json = args->recapture ? std::nullopt : captures.lookup();
              if (!json) {
                json = capturePairFileJson(pair, capture);
                captures.store(*json);
              }
              return std::make_pair(readCapturedPair(*json, pair), std::unique_ptr<Module>());
            };
            return decideAndEmit(load, ctx, engineFor(pair, args->engine, capture), args->output);
          }};
}

}  // namespace torchtv::cli
