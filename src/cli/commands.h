// Subcommands of the torchtv CLI: each file adds one subcommand to the app and
// returns the function that runs it once the arguments are parsed.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/import/load.h"
#include "src/import/pair_file.h"
#include "src/fusion/fusion_library.h"
#include "src/report/report.h"
#include "src/cache/proof_cache.h"
#include "src/torch/torchscript.h"
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
Command addCiCommand(CLI::App &app);
Command addCacheCommand(CLI::App &app);

// Options every deciding command shares (check, verify, ...).
enum class OutputFormat { Text, Json, Sarif, Junit, Github };
enum class ColorChoice { Auto, Always, Never };

struct OutputOptions {
  OutputFormat format = OutputFormat::Text;
  RequiredLevel require = RequiredLevel::Rounded;
  std::string reportPath;  // --report: the HTML diff report, written atomically
  ReportWhen reportWhen = ReportWhen::Always;  // --report-when
  bool explain = false;    // --explain: side-by-side diff of diverging regions
  ColorChoice color = ColorChoice::Auto;
  bool selfCheckAsked = false;  // set from --self-check, for the text summary
  std::string sourceRoot;       // --source-root; empty: defaultSourceRoot()
  std::string reproDir;         // verify --repro: the counterexample as files to run (src/cli/repro.h)
};

// The global -v count, set once the arguments are parsed: the text summary
// lists every proven output from -v on.
void setVerbosity(int verbosity);
int verbosity();

void addOutputOptions(CLI::App &cmd, OutputOptions &options);
// --python and --capture-timeout, for commands that capture pair files.
void addCaptureOptions(CLI::App &cmd, CaptureOptions &capture);

// --source-root DIR (Note [Source root]); sourceRootOf gives the absolute root
// to use: DIR, else the default.
void addSourceRootOption(CLI::App &cmd, std::string &root);
std::string sourceRootOf(const std::string &given);

// --inputs TYPES: the input types of .pt (TorchScript) files, e.g. 'f32[3,5],f32[5]'.
void addInputsOption(CLI::App &cmd, std::string &inputs);

// Prints a result in the chosen format on stdout, writes the --report file,
// and returns the exit code. ctx.reference/production should be set whenever
// the graphs were read, for --report and --explain.
int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options);

std::string versionString();

// Loads the graphs, decides them and prints the result: the body shared by
// `check` and `verify`. `load` returns the reference module and, when the
// production graph lives in another file, the production module.
using ModuleLoader = std::function<std::pair<std::unique_ptr<Module>, std::unique_ptr<Module>>()>;

// How the engine works, as the command line sets it: the engine's own options
// (CheckOptions, whose defaults are the engine's) and what only the CLI
// resolves into them (a folder of definitions, a cache location).
struct EngineOptions {
  // --no-normalize, --timeout, --rlimit, --solver-memory, --self-check,
  // --assume-rounded-constants, --monolithic, --no-cut-points. decideAndEmit
  // fills in the rest (the fusions, the time left, the capture's evidence).
  CheckOptions check;
  std::string fusionsDir;  // --fusions DIR
  bool kernelDefinitions = true;  // off: --no-kernel-definitions (Note [Kernel definitions by default])
  std::string cache;       // --cache PATH|redis://HOST:PORT/DB (Note [Proof cache])
  bool noCache = false;    // --no-cache
};
void addEngineOptions(CLI::App &cmd, EngineOptions &options);
// --cache and --no-cache (Note [Proof cache]); the cache they choose, never
// null (an unusable one is off, with one warning).
void addCacheOptions(CLI::App &cmd, std::string &cache, bool &noCache);
std::unique_ptr<cache::ProofCache> openProofCache(const std::string &cache, bool noCache);

// The worse of two exit codes, as verdicts go for a gate (severity() in verdict.h).
int worseExitCode(int a, int b);
// --each for `check` and `verify` (Note [Checking each file]): without it at
// most `most` files (else the usage error `tooMany`); with it text or json
// output and no --report; `alsoCheck` adds the command's own usage checks
// (CLI11 keeps one parse-complete callback per command).
void addEachOption(CLI::App &cmd, bool &each, const std::vector<std::string> &files, const OutputOptions &output,
                   const std::string &tooMany, const std::string &help, size_t most = 1,
                   std::function<void()> alsoCheck = {});

int decideAndEmit(const ModuleLoader &load, ReportContext ctx, const EngineOptions &engine,
                  const OutputOptions &options);

// The definitions a command expands: the bundled fusions/ and, unless
// `kernelDefinitions` is false, fusions/inductor/ (Note [Kernel definitions by
// default] in src/normalize/normalize.h), then a user's --fusions DIR and the
// definitions inside the input files (tried first).
FusionLibrary fusionsFor(const std::vector<const Module *> &inputs, const std::string &userDir,
                         bool kernelDefinitions = true);

// How a command reads its input files: --inputs, and the custom ops --fusions
// DIR declares and defines, which a TorchScript file calling them needs to be
// read at all (Note [Custom ops in TorchScript files] in src/torch/torchscript.h).
// The folder is read here only for a .pt file (fusionsFor reads it for the
// decision).
class InputReader {
public:
  InputReader(const std::string &inputs, std::string fusionsDir);
  InputReader(const InputReader &) = delete;  // customOps_ refers to userFusions_
  InputReader &operator=(const InputReader &) = delete;
  std::unique_ptr<Module> load(const std::string &path);

private:
  LoadOptions options_;
  std::string fusionsDir_;
  FusionLibrary userFusions_;
  CustomOps customOps_;
};

}  // namespace torchtv::cli
