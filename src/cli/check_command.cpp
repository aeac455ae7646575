// torchtv check REF PROD: decide two graph files.
#include <cstdio>
#include <map>
#include <tuple>

#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "src/cli/commands.h"
#include "src/import/load.h"

namespace torchtv::cli {

namespace {
// Both graphs of a check, with the modules that own them.
struct LoadedPair {
  std::unique_ptr<Module> refModule, prodModule;
  const Graph *ref = nullptr, *prod = nullptr;
};

LoadedPair loadPair(const ModuleLoader &load, const ReportContext &ctx) {
  LoadedPair p;
  std::tie(p.refModule, p.prodModule) = load();
  p.ref = &selectGraph(*p.refModule, "reference");
  p.prod = &selectGraph(p.prodModule ? *p.prodModule : *p.refModule, "production");
  if (p.ref == p.prod)
    throw InputError(SourcePos{ctx.referencePath},
                     "needs two graphs: give two files, or one file with @reference and @production");
  return p;
}
}  // namespace

int decideAndEmit(const ModuleLoader &load, ReportContext ctx, const OutputOptions &options) {
  ctx.version = versionString();
  CheckResult result;
  try {
    LoadedPair pair = loadPair(load, ctx);
    const Graph &ref = *pair.ref, &prod = *pair.prod;
    spdlog::info("checking @{} ({} nodes) against @{} ({} nodes)", ref.name(), ref.nodes().size(),
                 prod.name(), prod.nodes().size());
    CheckOptions checkOptions;
    checkOptions.require = options.require;
    result = checkGraphs(ref, prod, checkOptions);
  } catch (const InputError &e) {
    result = errorResult(e.message(), e.pos().str());
  }
  return emitResult(result, ctx, options);
}

namespace {
// How far `check` goes. The benchmark (bench/run.py) times the stages before the decision as
// the floor that deciding is compared with; later stages add their own values here.
enum class StopAfter { Decide, Read };

struct CheckArgs {
  std::vector<std::string> files;
  std::string inputs;  // --inputs, for .pt / .pt2 files
  OutputOptions output;
  StopAfter stopAfter = StopAfter::Decide;
};

// --stop-after read: reads and selects both graphs (every node checked against its schema and
// shape rule), prints their sizes and exits 0; bad input is reported as by a decision.
int readAndStop(const ModuleLoader &load, ReportContext ctx, const OutputOptions &options) {
  ctx.version = versionString();
  try {
    LoadedPair pair = loadPair(load, ctx);
    std::printf("torchtv: read @%s (%zu nodes) and @%s (%zu nodes); stopped after read\n",
                pair.ref->name().c_str(), pair.ref->nodes().size(), pair.prod->name().c_str(),
                pair.prod->nodes().size());
    return 0;
  } catch (const InputError &e) {
    return emitResult(errorResult(e.message(), e.pos().str()), ctx, options);
  }
}
}  // namespace

Command addCheckCommand(CLI::App &app) {
  auto args = std::make_shared<CheckArgs>();
  auto *cmd = app.add_subcommand("check", "Decide whether two graphs compute the same outputs");
  cmd->add_option("files", args->files,
                  "REF PROD: two graph files, or one file (or capture directory) holding both graphs")
      ->required()
      ->expected(1, 2);
  addInputsOption(*cmd, args->inputs);
  addOutputOptions(*cmd, args->output);
  std::map<std::string, StopAfter> stops{{"read", StopAfter::Read}, {"decide", StopAfter::Decide}};
  cmd->add_option("--stop-after", args->stopAfter,
                  "Stop after this stage: read (load and check both graphs; for timing) or decide")
      ->transform(CLI::CheckedTransformer(stops, CLI::ignore_case));
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
            if (args->stopAfter == StopAfter::Read) return readAndStop(load, ctx, args->output);
            return decideAndEmit(load, ctx, args->output);
          }};
}

}  // namespace torchtv::cli
