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
Command addCiCommand(CLI::App &app);

// Options every deciding command shares (check, verify, ...).
enum class OutputFormat { Text, Json, Sarif, Junit, Github };
enum class ColorChoice { Auto, Always, Never };

struct OutputOptions {
  OutputFormat format = OutputFormat::Text;
  RequiredLevel require = RequiredLevel::Real;
  std::string reportPath;  // --report: the HTML diff report, written atomically
  bool explain = false;    // --explain: side-by-side diff of diverging regions
  ColorChoice color = ColorChoice::Auto;
};

void addOutputOptions(CLI::App &cmd, OutputOptions &options);

// Prints a result in the chosen format on stdout, writes the --report file,
// and returns the exit code. ctx.reference/production should be set whenever
// the graphs were read, for --report and --explain.
int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options);

std::string versionString();

}  // namespace torchtv::cli
