#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

#include "ir/diagnostic.h"
#include "src/cli/commands.h"
#include "src/cli/repro.h"
#include "src/cli/usage.h"
#include "src/report/source_paths.h"
#include "src/util/atomic_file.h"

#ifndef TORCHTV_VERSION
#define TORCHTV_VERSION "0.0.0"
#endif

namespace torchtv::cli {

std::string versionString() { return TORCHTV_VERSION; }

namespace {
int gVerbosity = 0;
}  // namespace
void setVerbosity(int v) { gVerbosity = v; }
int verbosity() { return gVerbosity; }

void addOutputOptions(CLI::App &cmd, OutputOptions &options) {
  addChoiceOption<OutputFormat>(cmd, "--format", options.format,
                                {{"text", OutputFormat::Text},
                                 {"json", OutputFormat::Json},
                                 {"sarif", OutputFormat::Sarif},
                                 {"junit", OutputFormat::Junit},
                                 {"github", OutputFormat::Github}},
                                "format", "Output format on stdout: text, json, sarif, junit or github");
  addChoiceOption<RequiredLevel>(cmd, "--require", options.require,
                                 {{"rounded", RequiredLevel::Rounded},
                                  {"real", RequiredLevel::Real},
                                  {"bitwise", RequiredLevel::Bitwise}},
                                 "level",
                                 "Weakest level that counts as equivalent: rounded (the default), real (a proof up "
                                 "to rounded constants or narrowing casts exits 2) or bitwise (so does a real one)");
  cmd.add_option("--report", options.reportPath, "Also write the HTML diff report to this file");
  addChoiceOption<ReportWhen>(cmd, "--report-when", options.reportWhen,
                              {{"always", ReportWhen::Always}, {"failures", ReportWhen::Failures}},
                              "report policy", "Write --report always, or only when the pair is not equivalent");
  addSourceRootOption(cmd, options.sourceRoot);
  cmd.add_flag("--explain", options.explain,
               "Print the diverging regions side by side (on stderr when --format is not text)");
  addChoiceOption<ColorChoice>(cmd, "--color", options.color,
                               {{"auto", ColorChoice::Auto}, {"always", ColorChoice::Always}, {"never", ColorChoice::Never}},
                               "colour mode", "Colours in --explain: auto (on a terminal, unless NO_COLOR), always, never");
}

void addSourceRootOption(CLI::App &cmd, std::string &root) {
  cmd.add_option("--source-root", root,
                 "SARIF and GitHub annotations name files relative to this folder (default: the git work tree of "
                 "the current directory, else the current directory)")
      ->check(CLI::ExistingDirectory);
}

std::string sourceRootOf(const std::string &given) {
  if (given.empty()) return defaultSourceRoot();
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(given, ec).lexically_normal().string();
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  return ec ? given : absolute;
}

void addInputsOption(CLI::App &cmd, std::string &inputs) {
  cmd.add_option("--inputs", inputs,
                 "Types of the user inputs of .pt/.pt2 files, comma-separated, e.g. 'f32[3,5],f32[5]' "
                 "(required for TorchScript, which stores no shapes; checked against a .pt2)");
}

namespace {

std::string render(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options) {
  switch (options.format) {
  case OutputFormat::Json: return renderJson(result, ctx);
  case OutputFormat::Sarif: return renderSarif({NamedResult{"", result, ctx, {}}}, ctx.version, ctx.sourceRoot);
  case OutputFormat::Junit: return renderJunit({NamedResult{"", result, ctx, {}}});
  case OutputFormat::Github: return renderGithub(result, ctx);
  case OutputFormat::Text: break;
  }
  TextOptions text;
  text.verbose = verbosity() >= 1;
  text.selfCheckAsked = options.selfCheckAsked;
  return renderText(result, ctx, text);
}

ColorMode colorFor(ColorChoice choice, int fd) {
  if (choice == ColorChoice::Always) return ColorMode::Always;
  if (choice == ColorChoice::Never || std::getenv("NO_COLOR")) return ColorMode::Never;
  return ::isatty(fd) ? ColorMode::Always : ColorMode::Never;
}

// False when the stream failed (a full disk, a closed pipe): the result the
// caller relies on was not delivered, so the run cannot count as a pass.
bool writeAll(FILE *f, const std::string &s) {
  size_t n = std::fwrite(s.data(), 1, s.size(), f);
  return std::fflush(f) == 0 && n == s.size() && !std::ferror(f);
}

}  // namespace

int emitResult(const CheckResult &result, const ReportContext &given, const OutputOptions &options) {
  ReportContext ctx = given;
  if (ctx.sourceRoot.empty()) ctx.sourceRoot = sourceRootOf(options.sourceRoot);
  bool written = writeAll(stdout, render(result, ctx, options));
  if (options.explain) {
    // Machine-readable stdout stays parseable: the explanation goes to stderr.
    bool toStdout = options.format == OutputFormat::Text;
    written &= writeAll(toStdout ? stdout : stderr,
                        renderExplain(result, ctx, colorFor(options.color, toStdout ? STDOUT_FILENO : STDERR_FILENO)));
  }
  if (!written) {
    std::fprintf(stderr, "torchtv: error: cannot write the result to standard output: %s\n", std::strerror(errno));
    return exitCode(Verdict::Error);
  }
  if (!options.reproDir.empty()) {  // Note [Counterexamples a user can run]
    try {
      std::string script = writeRepro(result, ctx.referencePath, options.reproDir);
      if (script.empty())
        std::fprintf(stderr, "torchtv: --repro: no counterexample with inputs to write (%s)\n",
                     std::string(verdictName(result.verdict)).c_str());
      else
        std::fprintf(stderr, "torchtv: counterexample written: python3 %s runs it\n", script.c_str());
    } catch (const InputError &e) {
      std::fprintf(stderr, "torchtv: error: %s\n", e.what());
      return exitCode(Verdict::Error);
    }
  }
  bool wanted = options.reportWhen == ReportWhen::Always ||
                (options.reportWhen == ReportWhen::Failures && result.verdict != Verdict::Equivalent);
  if (!options.reportPath.empty() && wanted) {
    try {
      HtmlOptions html;
      html.dotPath = defaultDotPath();
      writeFileAtomic(options.reportPath, renderHtml(result, ctx, html));
    } catch (const InputError &e) {
      std::fprintf(stderr, "torchtv: error: %s\n", e.what());
      return exitCode(Verdict::Error);
    }
  }
  return exitCode(result.verdict);
}

}  // namespace torchtv::cli
