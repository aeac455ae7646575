// Subcommands of the torchtv CLI: each file adds one subcommand to the app and
// returns the function that runs it once the arguments are parsed.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/import/pair_file.h"
#include "src/report/report.h"
#include "src/verify/check.h"

namespace torchtv::cli {

using RunFn = std::function<int()>;

struct Command {
  CLI::App *app;
  RunFn run;
};

Command addCheckCommand(CLI::App &app);
Command addVerifyCommand(CLI::App &app);
Command addCaptureCommand(CLI::App &app);
Command addShowCommand(CLI::App &app);

// Options every deciding command shares (check, verify, ...).
enum class OutputFormat { Text, Json };

struct OutputOptions {
  OutputFormat format = OutputFormat::Text;
  RequiredLevel require = RequiredLevel::Real;
};

void addOutputOptions(CLI::App &cmd, OutputOptions &options);
// --python and --capture-timeout, for commands that capture pair files.
void addCaptureOptions(CLI::App &cmd, CaptureOptions &capture);

// --inputs TYPES: the input types of .pt (TorchScript) files, e.g. 'f32[3,5],f32[5]'.
void addInputsOption(CLI::App &cmd, std::string &inputs);

// Prints a result in the chosen format on stdout and returns the exit code.
int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options);

std::string versionString();

// Loads the graphs, decides them and prints the result: the body shared by
// `check` and `verify`. `load` returns the reference module and, when the
// production graph lives in another file, the production module.
using ModuleLoader = std::function<std::pair<std::unique_ptr<Module>, std::unique_ptr<Module>>()>;
int decideAndEmit(const ModuleLoader &load, ReportContext ctx, const OutputOptions &options);

}  // namespace torchtv::cli
