// Subcommands of the torchtv CLI: each file adds one subcommand to the app and
// returns the function that runs it once the arguments are parsed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

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

// --inputs TYPES: the input types of .pt (TorchScript) files, e.g. 'f32[3,5],f32[5]'.
void addInputsOption(CLI::App &cmd, std::string &inputs);

// Prints a result in the chosen format on stdout and returns the exit code.
int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options);

std::string versionString();

}  // namespace torchtv::cli
