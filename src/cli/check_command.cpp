// torchtv check REF PROD: decide two graph files.
#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/cli/commands.h"
#include "src/import/load.h"

namespace torchtv::cli {

namespace {
struct CheckArgs {
  std::vector<std::string> files;
  std::string fusionsDir;
  bool noNormalize = false;
  OutputOptions output;
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
    FusionLibrary fusions = fusionsFor({refModule.get(), prodModule.get()}, args.fusionsDir);
    CheckOptions options;
    options.require = args.output.require;
    options.fusions = &fusions;
    options.normalization = args.noNormalize ? Normalization::Off : Normalization::On;
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
  cmd->add_option("--fusions", args->fusionsDir, "Folder of .tvir definitions of fused/custom ops to expand");
  cmd->add_flag("--no-normalize", args->noNormalize, "Match the graphs as written (no normalization, no expansion)");
  addOutputOptions(*cmd, args->output);
  return {cmd, [args] { return runCheck(*args); }};
}

}  // namespace torchtv::cli
