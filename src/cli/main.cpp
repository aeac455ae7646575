// torchtv's command line: parses arguments and wires the stages together.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/load.h"
#include "src/report/report.h"
#include "src/verify/check.h"

#ifndef TORCHTV_VERSION
#define TORCHTV_VERSION "0.0.0"
#endif

namespace torchtv {
namespace {

enum class OutputFormat { Text, Json };

struct CheckArgs {
  std::vector<std::string> files;
  OutputFormat format = OutputFormat::Text;
  RequiredLevel require = RequiredLevel::Real;
};

void emit(const CheckResult &r, const ReportContext &ctx, OutputFormat format) {
  std::string out = format == OutputFormat::Json ? renderJson(r, ctx) : renderText(r, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

int runCheck(const CheckArgs &args) {
  ReportContext ctx;
  ctx.version = TORCHTV_VERSION;
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
      throw InputError(SourcePos{ctx.referencePath}, "needs two graphs: give two files, or one file with "
                                                     "@reference and @production");
    spdlog::info("checking @{} ({} nodes) against @{} ({} nodes)", ref.name(), ref.nodes().size(),
                 prod.name(), prod.nodes().size());
    CheckOptions options;
    options.require = args.require;
    result = checkGraphs(ref, prod, options);
  } catch (const InputError &e) {
    result = errorResult(e.message(), e.pos().str());
  }
  emit(result, ctx, args.format);
  return exitCode(result.verdict);
}

int runShow(const std::string &path) {
  try {
    auto m = loadModule(path);
    std::cout << printModule(*m);
    return 0;
  } catch (const InputError &e) {
    std::cerr << "torchtv: error: " << e.what() << "\n";
    return exitCode(Verdict::Error);
  }
}

int run(int argc, char **argv) {
  CLI::App app{"torchtv: translation validation for PyTorch graphs"};
  app.set_version_flag("--version", std::string("torchtv ") + TORCHTV_VERSION);
  app.require_subcommand(1);
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (repeat for more)");
  app.add_flag("-q,--quiet", quiet, "Only errors on stderr");

  CheckArgs checkArgs;
  auto *check = app.add_subcommand("check", "Decide whether two graphs compute the same outputs");
  check->add_option("files", checkArgs.files,
                    "REF PROD: two graph files, or one file holding @reference and @production")
      ->required()
      ->expected(1, 2);
  std::map<std::string, OutputFormat> formats{{"text", OutputFormat::Text}, {"json", OutputFormat::Json}};
  check->add_option("--format", checkArgs.format, "Output format")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));
  std::map<std::string, RequiredLevel> levels{{"real", RequiredLevel::Real}, {"bitwise", RequiredLevel::Bitwise}};
  check->add_option("--require", checkArgs.require,
                    "Weakest level that counts as equivalent (bitwise: a real-only proof exits 2)")
      ->transform(CLI::CheckedTransformer(levels, CLI::ignore_case));

  std::string showPath;
  auto *show = app.add_subcommand("show", "Print a graph file as .tvir text");
  show->add_option("file", showPath, "Graph file")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : exitCode(Verdict::Error);
  }

  auto logger = spdlog::stderr_color_mt("torchtv");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("torchtv: %l: %v");
  spdlog::set_level(quiet ? spdlog::level::err
                          : verbosity >= 2 ? spdlog::level::debug
                          : verbosity == 1 ? spdlog::level::info
                                           : spdlog::level::warn);

  if (*check) return runCheck(checkArgs);
  if (*show) return runShow(showPath);
  return exitCode(Verdict::Error);
}

}  // namespace
}  // namespace torchtv

int main(int argc, char **argv) {
  try {
    return torchtv::run(argc, argv);
  } catch (const std::exception &e) {
    // Any internal failure is an error verdict, never a pass.
    std::fprintf(stderr, "torchtv: internal error: %s\n", e.what());
    return torchtv::exitCode(torchtv::Verdict::Error);
  }
}
