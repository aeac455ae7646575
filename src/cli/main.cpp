// torchtv's command line: parses arguments and hands over to one subcommand.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "src/cli/commands.h"
#include "src/cli/usage.h"
#include "src/torch/torch_module.h"
#include "src/util/install_layout.h"

namespace torchtv::cli {
namespace {

void setUpLogging(int verbosity, bool quiet) {
  auto logger = spdlog::stderr_color_mt("torchtv");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("torchtv: %l: %v");
  spdlog::set_level(quiet            ? spdlog::level::err
                    : verbosity >= 2 ? spdlog::level::debug
                    : verbosity == 1 ? spdlog::level::info
                                     : spdlog::level::warn);
}

int run(int argc, char **argv) {
  CLI::App app{"torchtv: translation validation for PyTorch graphs"};
  // The second line says which data this binary uses (Note [Installed layout]).
  const InstallLayout &layout = installLayout();
  app.set_version_flag("--version", "torchtv " + versionString() + "\n" +
                                        (layout.installed ? "installed in " + layout.prefix
                                                          : "build tree; rules and fusions in " +
                                                                std::filesystem::path(layout.rulesDir).parent_path().string()));
  app.require_subcommand(1);
  // Subcommands made after this pass the options they do not know to this app, so the global
  // flags read the same before or after the command (`torchtv verify -v PAIR.py`).
  app.fallthrough();
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (-vv for debug)");
  app.add_flag("-q,--quiet", quiet, "Only errors on stderr");

  std::vector<Command> commands = {addCheckCommand(app), addVerifyCommand(app), addCaptureCommand(app),
                                   addShowCommand(app), addCiCommand(app),
                                   addCacheCommand(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return reportUsageError(app, e, argc, argv);
  }
  setUpLogging(verbosity, quiet);
  setVerbosity(quiet ? 0 : verbosity);
  for (const Command &c : commands)
    if (c.app->parsed()) return c.run();
  return exitCode(Verdict::Error);
}

}  // namespace
}  // namespace torchtv::cli

int main(int argc, char **argv) {
  try {
    int rc = torchtv::cli::run(argc, argv);
    // LibTorch's static destructors take about a second at exit (more once
    // replay children have forked from this process: copy-on-write of every
    // page they touch). Everything is written by now: skip them.
    if (torchtv::torchModuleLoaded()) {
      std::fflush(nullptr);
      std::_Exit(rc);
    }
    return rc;
  } catch (const std::exception &e) {
    // An internal failure is an error verdict, never a pass.
    std::fprintf(stderr, "torchtv: internal error: %s\n", e.what());
    return torchtv::exitCode(torchtv::Verdict::Error);
  }
}
