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
};

int runCheck(const CheckArgs &args) {
  ReportContext ctx;
  ctx.version = versionString();
  ctx.referencePath = args.files.at(0);
  ctx.productionPath = args.files.size() > 1 ? args.files[1] : args.files[0];
  CheckResult result;
  // The modules outlive the check: the report draws their graphs.
  std::unique_ptr<Module> refModule, prodModule;
  try {
    refModule = loadModule(ctx.referencePath);
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
    result = checkGraphs(ref, prod, options);
    ctx.reference = &ref;
    ctx.production = &prod;
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
  return {cmd, [args] { return runCheck(*args); }};
}

}  // namespace torchtv::cli
