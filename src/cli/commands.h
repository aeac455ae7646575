// Subcommands of the torchtv CLI: each file adds one subcommand to the app and
// returns the function that runs it once the arguments are parsed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/fusion/fusion_library.h"
#include "src/report/report.h"
#include "src/verify/check.h"

namespace torchtv::cli {

using RunFn = std::function<int()>;

struct Command {
  CLI::App *app;
  RunFn run;
};

Command addCheckCommand(CLI::App &app);
Command addShowCommand(CLI::App &app);

// Options every deciding command shares (check, verify, ...).
enum class OutputFormat { Text, Json };

struct OutputOptions {
  OutputFormat format = OutputFormat::Text;
  RequiredLevel require = RequiredLevel::Real;
};

void addOutputOptions(CLI::App &cmd, OutputOptions &options);

// Prints a result in the chosen format on stdout and returns the exit code.
int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options);

std::string versionString();

// The definitions a command expands: the bundled fusions/, then a user's
// --fusions DIR and the definitions inside the input files (tried first).
FusionLibrary fusionsFor(const std::vector<const Module *> &inputs, const std::string &userDir);

}  // namespace torchtv::cli
