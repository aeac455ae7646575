// torchtv check REF PROD: decide two graph files.
#include <tuple>

#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "src/cli/commands.h"
#include "src/import/load.h"

namespace torchtv::cli {

void addEngineOptions(CLI::App &cmd, EngineOptions &options) {
  cmd.add_option("--fusions", options.fusionsDir, "Folder of .tvir definitions of fused/custom ops to expand");
  cmd.add_flag("--no-normalize", options.noNormalize,
               "Match the graphs as written (no normalization, no expansion)");
  cmd.add_option("--timeout", options.timeout,
                 "Global time limit in seconds (0: none); what is left undecided is unknown")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--rlimit", options.rlimit, "Z3 resource limit per query (deterministic)")
      ->capture_default_str();
  cmd.add_flag("--self-check", options.selfCheck,
               "Re-check an equivalent verdict by evaluating both graphs on seeded random inputs");
}

int decideAndEmit(const ModuleLoader &load, ReportContext ctx, const EngineOptions &engine,
                  const OutputOptions &options) {
  ctx.version = versionString();
  CheckResult result;
  // The modules outlive the check: the report draws their graphs.
  std::unique_ptr<Module> refModule, prodModule;
  try {
    std::tie(refModule, prodModule) = load();
    const Graph &ref = selectGraph(*refModule, "reference");
    const Graph &prod = selectGraph(prodModule ? *prodModule : *refModule, "production");
    if (&ref == &prod)
      throw InputError(SourcePos{ctx.referencePath},
                       "needs two graphs: give two files, or one file with @reference and @production");
    spdlog::info("checking @{} ({} nodes) against @{} ({} nodes)", ref.name(), ref.nodes().size(),
                 prod.name(), prod.nodes().size());
    FusionLibrary fusions = fusionsFor({refModule.get(), prodModule.get()}, engine.fusionsDir);
    CheckOptions checkOptions;
    checkOptions.require = options.require;
    checkOptions.fusions = &fusions;
    checkOptions.normalization = engine.noNormalize ? Normalization::Off : Normalization::On;
    checkOptions.timeoutSeconds = engine.timeout;
    checkOptions.rlimit = engine.rlimit;
    checkOptions.selfCheck = engine.selfCheck ? SelfCheckMode::On : SelfCheckMode::Off;
    result = checkGraphs(ref, prod, checkOptions);
    ctx.useGraphsOf(result, ref, prod);
  } catch (const InputError &e) {
    result = errorResult(e.message(), e.pos().str());
  }
  return emitResult(result, ctx, options);
}

namespace {
struct CheckArgs {
  std::vector<std::string> files;
  std::string inputs;  // --inputs, for .pt / .pt2 files
  EngineOptions engine;
  OutputOptions output;
};
}  // namespace

Command addCheckCommand(CLI::App &app) {
  auto args = std::make_shared<CheckArgs>();
  auto *cmd = app.add_subcommand("check", "Decide whether two graphs compute the same outputs");
  cmd->add_option("files", args->files,
                  "REF PROD: two graph files, or one file (or capture directory) holding both graphs")
      ->required()
      ->expected(1, 2);
  addInputsOption(*cmd, args->inputs);
  addEngineOptions(*cmd, args->engine);
  addOutputOptions(*cmd, args->output);
  return {cmd, [args] {
            ReportContext ctx;
            ctx.referencePath = args->files.at(0);
            ctx.productionPath = args->files.size() > 1 ? args->files[1] : args->files[0];
            auto load = [&] {
              LoadOptions options;
              if (!args->inputs.empty()) options.inputs = parseInputTypes(args->inputs);
              auto ref = loadModule(ctx.referencePath, options);
              std::unique_ptr<Module> prod;
              if (args->files.size() > 1) prod = loadModule(ctx.productionPath, options);
              return std::make_pair(std::move(ref), std::move(prod));
            };
            return decideAndEmit(load, ctx, args->engine, args->output);
          }};
}

}  // namespace torchtv::cli
