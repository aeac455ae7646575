// torchtv check REF PROD: decide two graph files.
#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "src/cli/commands.h"
#include "src/import/load.h"

namespace torchtv::cli {

namespace {
struct CheckArgs {
  std::vector<std::string> files;
  OutputOptions output;
  double timeout = 0;
  unsigned rlimit = 1000000;
  bool selfCheck = false;
};

int runCheck(const CheckArgs &args) {
  ReportContext ctx;
  ctx.version = versionString();
  ctx.referencePath = args.files.at(0);
  ctx.productionPath = args.files.size() > 1 ? args.files[1] : args.files[0];
  CheckResult result;
  try {
    auto refModule = loadModule(ctx.referencePath);
    std::unique_ptr<Module> prodModule;
    if (args.files.size() > 1) prodModule = loadModule(ctx.productionPath);
    const Graph &ref = selectGraph(*refModule, "reference");
    const Graph &prod = selectGraph(prodModule ? *prodModule : *refModule, "production");
    if (&ref == &prod)
      throw InputError(SourcePos{ctx.referencePath},
                       "needs two graphs: give two files, or one file with @reference and @production");
    spdlog::info("checking @{} ({} nodes) against @{} ({} nodes)", ref.name(), ref.nodes().size(),
                 prod.name(), prod.nodes().size());
    CheckOptions options;
    options.require = args.output.require;
    options.timeoutSeconds = args.timeout;
    options.rlimit = args.rlimit;
    options.selfCheck = args.selfCheck ? SelfCheckMode::On : SelfCheckMode::Off;
    result = checkGraphs(ref, prod, options);
  } catch (const InputError &e) {
    result = errorResult(e.message(), e.pos().str());
  }
  return emitResult(result, ctx, args.output);
}
}  // namespace

Command addCheckCommand(CLI::App &app) {
  auto args = std::make_shared<CheckArgs>();
  auto *cmd = app.add_subcommand("check", "Decide whether two graphs compute the same outputs");
  cmd->add_option("files", args->files,
                  "REF PROD: two graph files, or one file holding @reference and @production")
      ->required()
      ->expected(1, 2);
  addOutputOptions(*cmd, args->output);
  cmd->add_option("--timeout", args->timeout, "Global time limit in seconds (0: none); what is left undecided is unknown")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--rlimit", args->rlimit, "Z3 resource limit per query (deterministic)");
  cmd->add_flag("--self-check", args->selfCheck,
                "Re-check an equivalent verdict by evaluating both graphs on seeded random inputs");
  return {cmd, [args] { return runCheck(*args); }};
}

}  // namespace torchtv::cli
