// torchtv check REF PROD: decide two graph files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "ir/rewrite.h"
#include "src/cli/code_runner_fds.h"
#include "src/cli/commands.h"
#include "src/cli/usage.h"
#include "src/cli/progress_line.h"
#include "src/cli/watchdog.h"
#include "src/verify/verdict_table.h"
#include "src/import/capture_json.h"
#include "src/import/input_mutations.h"
#include "src/import/load.h"
#include "src/normalize/normalize.h"

namespace torchtv::cli {

void addEngineOptions(CLI::App &cmd, EngineOptions &options) {
  CheckOptions &check = options.check;
  cmd.add_option("--fusions", options.fusionsDir, "Folder of .tvir definitions of fused/custom ops to expand");
  cmd.add_flag_callback("--no-kernel-definitions", [&options] { options.kernelDefinitions = false; },
                        "Do not expand PyTorch's own fused kernels (fusions/inductor: sdpa's flash, efficient and CPU "
                        "variants, their backwards) through their bundled definitions; they stay uninterpreted");
  cmd.add_flag_callback("--no-normalize", [&check] { check.normalization = Normalization::Off; },
                        "Match the graphs as written (no normalization, no expansion)");
  cmd.add_option("--timeout", check.timeoutSeconds,
                 "Global time limit in seconds (0: none); what is left undecided is unknown")
      ->check(atLeast(0, "seconds", "0: no limit"));
  cmd.add_option("--rlimit", check.rlimit, "Z3 resource limit per query (deterministic)")
      ->capture_default_str()
      ->check(atLeast(0, "Z3 resource units", "0: no limit", true));
  cmd.add_option("--solver-memory", check.solverMemoryMB,
                 "Memory cap in MiB of each Z3 query (0: none); past it the query is unknown")
      ->capture_default_str()
      ->check(atLeast(0, "MiB", "0: no limit", true));
  // Note [Equivalence up to rounding]: what the flag asked for is the default now (level rounded);
  // kept so that scripts passing it still run. `--require real` rejects that level.
  cmd.add_flag_callback("--assume-rounded-constants", [] {},
                        "The default: constants within one rounding of each other (1/sqrt(8) and sqrt(8) as "
                        "doubles) are proven equal at level rounded, which names them; --require real rejects it");
  cmd.add_option("--assume", check.declaredDomains,
                 "Assume an integer input lies in a range you declare, e.g. 'x1 in [0, 5)' or 'target in [0, 5) or "
                 "-100' (repeatable); it replaces the range torchtv derives from the reference's kernels, and the "
                 "verdict names it as your assumption")
      ->type_name("'NAME in [0, N)'");
  cmd.add_flag_callback("--self-check", [&check] { check.selfCheck = SelfCheckMode::On; },
                        "Re-check an equivalent verdict by evaluating both graphs on seeded random inputs");
  cmd.add_flag_callback("--monolithic", [&check] { check.strategy = Strategy::Monolithic; },
                        "Benchmark baseline, not for use: no structural matching, each output's whole graph in one "
                        "Z3 query, bounded by --timeout (give --rlimit 0 for no per-query limit)")
      ->group("Benchmark baselines");
  cmd.add_flag_callback("--no-cut-points", [&check] { check.cutPoints = CutPointSearch::Off; },
                        "Benchmark baseline: do not merge intermediate values proven equal before deciding outputs")
      ->group("Benchmark baselines");
  addCacheOptions(cmd, options.cache, options.noCache);
}

namespace {
bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

FusionLibrary fusionsFor(const std::vector<const Module *> &inputs, const std::string &userDir, bool kernelDefinitions) {
  FusionLibrary lib = kernelDefinitions ? defaultFusions() : bundledFusions();
  if (!userDir.empty()) lib.loadDirectory(userDir, FusionOrigin::User);
  // The text is only consulted for `# FAITHFUL` marks, which only .tvir files carry.
  for (const Module *m : inputs)
    if (m) lib.addModule(*m, FusionOrigin::User, endsWith(m->path, ".tvir") ? readFile(m->path) : "");
  return lib;
}

InputReader::InputReader(const std::string &inputs, std::string fusionsDir) : fusionsDir_(std::move(fusionsDir)) {
  if (!inputs.empty()) options_.inputs = parseInputTypes(inputs);
}

std::unique_ptr<Module> InputReader::load(const std::string &path) {
  if (!fusionsDir_.empty() && !options_.customOps && endsWith(path, ".pt")) {
    userFusions_.loadDirectory(fusionsDir_, FusionOrigin::User);
    for (const auto &[name, schema] : userFusions_.resolver().custom()) customOps_.schemas.push_back(schema);
    customOps_.resultTypes = [this](const std::string &op, const std::vector<const TensorType *> &operands,
                                    const AttributeMap &attrs) { return userFusions_.resultTypes(op, operands, attrs); };
    options_.customOps = &customOps_;
  }
  return loadModule(path, options_);
}

int worseExitCode(int a, int b) {
  // Exit codes in the order of severity() (verdict.h): equivalent < unknown < not_equivalent < error.
  auto rank = [](int code) {
    for (Verdict v : {Verdict::Equivalent, Verdict::Unknown, Verdict::NotEquivalent, Verdict::Error})
      if (exitCode(v) == code) return severity(v);
    return severity(Verdict::Error);
  };
  return rank(b) > rank(a) ? b : a;
}

void addEachOption(CLI::App &cmd, bool &each, const std::vector<std::string> &files, const OutputOptions &output,
                   const std::string &tooMany, const std::string &help, size_t most,
                   std::function<void()> alsoCheck) {
  cmd.add_flag("--each", each,
               help + ", one after another in this process; text or json output, one result per file; exits with "
                      "the worst verdict");
  // Thrown while parsing, so that they are usage errors (Note [Usage errors]).
  cmd.parse_complete_callback([&each, &files, &output, tooMany, most, alsoCheck] {
    if (!each && files.size() > most) throw CLI::ValidationError(tooMany);
    if (each && output.format != OutputFormat::Text && output.format != OutputFormat::Json)
      throw CLI::ValidationError("--each prints text or json; `torchtv ci` writes SARIF, JUnit and GitHub reports "
                                 "of many pairs");
    if (each && !output.reportPath.empty())
      throw CLI::ValidationError("--each does not take --report; `torchtv ci` writes a report per pair");
    if (alsoCheck) alsoCheck();
  });
}

namespace {
// Both graphs of a check, with the modules that own them (the report draws them).
struct LoadedPair {
  std::unique_ptr<Module> refModule, prodModule;
  const Graph *ref = nullptr, *prod = nullptr;
  // What the capture learnt (a pair file's), or which inputs the graph files modify.
  std::optional<CaptureEvidence> evidence;
};

LoadedPair loadPair(const ModuleLoader &load, const ReportContext &ctx) {
  LoadedPair p;
  std::tie(p.refModule, p.prodModule) = load();
  Graph &ref = selectGraph(*p.refModule, "reference");
  Graph &prod = selectGraph(p.prodModule ? *p.prodModule : *p.refModule, "production");
  p.ref = &ref;
  p.prod = &prod;
  if (p.ref == p.prod)
    throw InputError(SourcePos{ctx.referencePath},
                     "needs two graphs: give two files, or one file with @reference and @production");
  for (const Module *m : {p.refModule.get(), p.prodModule.get()})
    if (m && m->capture) p.evidence = *m->capture;
  if (!p.evidence) {
    // A capture pairs its graphs' input updates itself (Note [Input mutations] in export.py).
    InputMutations m = pairInputMutations(ref, prod);
    if (m.any()) p.evidence = CaptureEvidence{std::nullopt, m.reference, m.production, false, {}};
  }
  return p;
}
}  // namespace

// Note [Time budget]
// --timeout bounds everything before the verdict: reading (for `verify`, the
// capture, whose own limit is at most --timeout) and deciding, which gets what
// the loading left. Reports are drawn after the verdict, under their own
// bound (Note [Drawing budget]). Running out while loading is unknown with
// that reason, not an error: the input may be fine.
int decideAndEmit(const ModuleLoader &load, ReportContext ctx, const EngineOptions &engine,
                  const OutputOptions &given) {
  ctx.version = versionString();
  OutputOptions options = given;
  options.selfCheckAsked = engine.check.selfCheck == SelfCheckMode::On;
  const double timeout = engine.check.timeoutSeconds;  // 0: none
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  // `late`: what the engine had decided (Note [Outputs decided before the time limit]); a result
  // whose every output it had decided keeps its verdict.
  auto outOfTime = [&](const std::string &when, CheckResult late) {
    std::string ranOut = "the global time limit of " + fmt::format("{:g}", timeout) + " s ran out " + when;
    for (OutputResult &out : late.outputs)
      if (out.code == ReasonCode::TimedOut) {
        out.reason = ranOut + " before it was decided";
        out.toDecide = whatWouldDecide({{Obstacle::CheckTimeLimit, ""}},
                                       {engine.check.rlimit, engine.check.solverMemoryMB, timeout});
      }
    if (late.outputs.empty() || late.verdict != Verdict::Equivalent) {
      applyEvidence(late, Evidence::TimedOut);
      late.reason = ranOut + " (Note [Watchdog])";
    }
    late.stats.seconds = elapsed();
    return late;
  };
  CheckResult result;
  LoadedPair pair;
  bool pairFile = ctx.referencePath.size() > 3 && ctx.referencePath.rfind(".py") == ctx.referencePath.size() - 3;
  ProgressLine progress(spdlog::should_log(spdlog::level::warn),  // off with -q
                        pairFile ? "capturing the pair file" : "reading the graphs");
  try {
    pair = loadPair(load, ctx);
    const Graph &ref = *pair.ref, &prod = *pair.prod;
    spdlog::info("checking @{} ({} nodes) against @{} ({} nodes)", ref.name(), ref.nodes().size(),
                 prod.name(), prod.nodes().size());
    // What the loading left; when it left nothing, the engine still gets a moment: what
    // matches structurally needs no solver time, and the rest becomes unknown, naming the limit.
    double left = timeout > 0 ? std::max(timeout - elapsed(), 1e-3) : 0;  // 0: no limit
    FusionLibrary fusions = fusionsFor({pair.refModule.get(), pair.prodModule.get()}, engine.fusionsDir, engine.kernelDefinitions);
    CheckOptions checkOptions = engine.check;
    checkOptions.require = options.require;
    checkOptions.fusions = &fusions;
    checkOptions.timeoutSeconds = left;
    if (pair.evidence) {
      checkOptions.capture = &*pair.evidence;
      // Note [Declared input domains]: the pair file's ASSUME, then --assume.
      checkOptions.declaredDomains.insert(checkOptions.declaredDomains.begin(), pair.evidence->declaredDomains.begin(),
                                          pair.evidence->declaredDomains.end());
    }
    if (!pair.prodModule) {  // one capture holds both sides (Note [Reduced-shape graphs] in capture.py)
      checkOptions.reducedReference = pair.refModule->find(kReducedReference);
      checkOptions.reducedProduction = pair.refModule->find(kReducedProduction);
    }
    if (pair.evidence && pair.evidence->reducedOnly) {  // the graphs are at the reduced shapes themselves
      checkOptions.reducedReference = &ref;
      checkOptions.reducedProduction = &prod;
    }
    checkOptions.progress = [&progress](const char *stage, size_t decided, size_t total) {
      progress.update(stage, decided, total);
    };
    std::unique_ptr<cache::ProofCache> proofCache = openProofCache(engine.cache, engine.noCache);
    checkOptions.proofCache = proofCache->usable() ? proofCache.get() : nullptr;
    DecidedSoFar decidedSoFar;  // only a time limit has a watchdog to print it
    if (timeout > 0) checkOptions.decidedSoFar = &decidedSoFar;
    {
      Watchdog watchdog(left, [&] {
        // Only the loaded graphs and the published result are read here: the engine works on
        // copies of the graphs, and publishes copies of its results.
        std::string where = progress.where();
        progress.stop();
        CheckResult late = outOfTime(where, decidedSoFar.latest().value_or(CheckResult{}));
        late.stats.referenceNodes = ref.nodes().size();
        late.stats.productionNodes = prod.nodes().size();
        return emitResult(late, ctx, options);
      });
      result = checkGraphs(ref, prod, checkOptions);
    }
    ctx.useGraphsOf(result, ref, prod);
  } catch (const InputError &e) {
    // A capture stopped by the global limit (verify gives it at most --timeout).
    if (timeout > 0 && elapsed() >= timeout) result = outOfTime("while capturing or reading the graphs", CheckResult{});
    else result = errorResult(e.message(), e.pos().str());
  }
  progress.stop();
  return emitResult(result, ctx, options);
}

namespace {
// How far `check` goes. The benchmark (bench/run.py) times the stages before the
// decision as the floor that deciding is compared with.
enum class StopAfter { Decide, Read, Normalize };

struct CheckArgs {
  std::vector<std::string> files;
  std::string inputs;  // --inputs, for .pt / .pt2 files
  EngineOptions engine;
  OutputOptions output;
  StopAfter stopAfter = StopAfter::Decide;
  bool each = false;  // --each: every file is a pair of its own (Note [Checking each file])
};

// --stop-after read|normalize: reads both graphs (every node checked against its
// schema and shape rule), normalizes copies of them when asked, prints their
// sizes and exits 2, the exit code of unknown: nothing was decided, and a gate
// that runs this by mistake must not pass a pair it never compared (exit 0
// would read as equivalent). Bad input is reported as by a decision (exit 3).
int stopEarly(const ModuleLoader &load, ReportContext ctx, const CheckArgs &args) {
  ctx.version = versionString();
  try {
    LoadedPair pair = loadPair(load, ctx);
    size_t refNodes = pair.ref->nodes().size(), prodNodes = pair.prod->nodes().size();
    if (args.stopAfter == StopAfter::Normalize) {
      FusionLibrary fusions = fusionsFor({pair.refModule.get(), pair.prodModule.get()}, args.engine.fusionsDir,
                                         args.engine.kernelDefinitions);
      NormalizeOptions opts;
      opts.rules = &bundledRules();
      auto ref = cloneGraph(*pair.ref), prod = cloneGraph(*pair.prod);
      normalizeGraph(*ref, fusions, opts);
      normalizeGraph(*prod, fusions, opts);
      refNodes = ref->nodes().size();
      prodNodes = prod->nodes().size();
    }
    std::printf("torchtv: @%s (%zu nodes) and @%s (%zu nodes); stopped after %s: nothing was decided (exit 2)\n",
                pair.ref->name().c_str(), refNodes, pair.prod->name().c_str(), prodNodes,
                args.stopAfter == StopAfter::Normalize ? "normalize" : "read");
    return exitCode(Verdict::Unknown);
  } catch (const InputError &e) {
    return emitResult(errorResult(e.message(), e.pos().str()), ctx, args.output);
  }
}
// One pair: REF PROD as two files (`check X X` compares a file with itself), or one file holding both.
int checkOne(const CheckArgs &args, const std::string &referencePath, const std::optional<std::string> &productionPath) {
  ReportContext ctx;
  ctx.referencePath = referencePath;
  ctx.productionPath = productionPath.value_or(referencePath);
  auto load = [&] {
    InputReader reader(args.inputs, args.engine.fusionsDir);
    auto ref = reader.load(referencePath);
    std::unique_ptr<Module> prod;
    if (productionPath) prod = reader.load(*productionPath);
    return std::make_pair(std::move(ref), std::move(prod));
  };
  if (args.stopAfter != StopAfter::Decide) return stopEarly(load, ctx, args);
  return decideAndEmit(load, ctx, args.engine, args.output);
}

// Note [Checking each file]
// `check --each A.tvir B.tvir ...` (and `verify --each A.py B.py ...`, whose
// captures come first from one Python: Note [Capturing each file] in
// src/capture/torchtv_capture/cli.py) decides many one-file pairs in one process,
// so a folder of pair files pays the process's fixed costs once: LibTorch, which the
// self-check and the replay load, takes a second or more to start, and a check
// of a small pair takes a tenth of that (tests/golden/run_golden.py runs a whole
// folder this way). Each pair is decided exactly as `check FILE` would decide it;
// the results are printed in order as they finish (JSON: one document per file),
// and the exit code is the worst verdict's, as `torchtv ci` orders them. A
// `--timeout` bounds each pair; a pair that overruns it ends the run after its
// own result (Note [Watchdog]), so the files after it are not checked. Formats
// that describe one run (SARIF, JUnit, GitHub) and one --report file do not fit
// many pairs: `torchtv ci` writes those for a manifest.
int checkEach(const CheckArgs &args) {
  int worst = exitCode(Verdict::Equivalent);
  for (const std::string &file : args.files) worst = worseExitCode(worst, checkOne(args, file, std::nullopt));
  return worst;
}
}  // namespace

Command addCheckCommand(CLI::App &app) {
  auto args = std::make_shared<CheckArgs>();
  auto *cmd = app.add_subcommand("check", "Decide whether two graphs compute the same outputs");
  cmd->add_option("files", args->files,
                  "REF PROD: two graph files, or one file (or capture directory) holding both graphs")
      ->required()
      ->expected(1, -1);
  addInputsOption(*cmd, args->inputs);
  addEngineOptions(*cmd, args->engine);
  addOutputOptions(*cmd, args->output);
  cmd->add_option_function<std::string>(
         "--code-runner-fds", [args](const std::string &fds) { args->engine.check.runCode = codeRunnerOverFds(fds); },
         "R,W: pipes to the process that holds the pair's functions, which runs a refutation on them "
         "(torchtv.verify passes them; Note [A refutation reproduces on the code])")
      ->group("");
  addChoiceOption<StopAfter>(*cmd, "--stop-after", args->stopAfter,
                             {{"read", StopAfter::Read}, {"normalize", StopAfter::Normalize}, {"decide", StopAfter::Decide}},
                             "stage", "Stop after this stage: read, normalize (for timing the floor; exits 2: nothing is "
                             "decided) or decide");
  addEachOption(*cmd, args->each, args->files, args->output,
                "check takes REF PROD, or one file holding both graphs; --each checks several such files",
                "Check each file as a pair of its own (a .tvir with @reference and @production, or a capture "
                "folder)",
                2, [args] {
                  if (args->each && args->stopAfter != StopAfter::Decide)
                    throw CLI::ValidationError("--each does not take --stop-after");
                });
  return {cmd, [args] {
            if (args->each) return checkEach(*args);
            return checkOne(*args, args->files.at(0),
                            args->files.size() > 1 ? std::optional<std::string>(args->files[1]) : std::nullopt);
          }};
}

}  // namespace torchtv::cli
