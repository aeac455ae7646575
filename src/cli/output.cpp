#include <cstdio>
#include <map>

#include "src/cli/commands.h"
#include "src/normalize/normalize.h"

#ifndef TORCHTV_VERSION
#define TORCHTV_VERSION "0.0.0"
#endif

namespace torchtv::cli {

std::string versionString() { return TORCHTV_VERSION; }

void addOutputOptions(CLI::App &cmd, OutputOptions &options) {
  std::map<std::string, OutputFormat> formats{{"text", OutputFormat::Text}, {"json", OutputFormat::Json}};
  cmd.add_option("--format", options.format, "Output format: text or json")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));
  std::map<std::string, RequiredLevel> levels{{"real", RequiredLevel::Real}, {"bitwise", RequiredLevel::Bitwise}};
  cmd.add_option("--require", options.require,
                 "Weakest level that counts as equivalent (bitwise: a real-only proof exits 2)")
      ->transform(CLI::CheckedTransformer(levels, CLI::ignore_case));
}

void addInputsOption(CLI::App &cmd, std::string &inputs) {
  cmd.add_option("--inputs", inputs,
                 "Types of the user inputs of .pt/.pt2 files, comma-separated, e.g. 'f32[3,5],f32[5]' "
                 "(required for TorchScript, which stores no shapes; checked against a .pt2)");
}

namespace {
bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

FusionLibrary fusionsFor(const std::vector<const Module *> &inputs, const std::string &userDir) {
  FusionLibrary lib = bundledFusions();
  if (!userDir.empty()) lib.loadDirectory(userDir, FusionOrigin::User);
  // The text is only consulted for `# FAITHFUL` marks, which only .tvir files carry.
  for (const Module *m : inputs)
    if (m) lib.addModule(*m, FusionOrigin::User, endsWith(m->path, ".tvir") ? readFile(m->path) : "");
  return lib;
}

int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options) {
  std::string out = options.format == OutputFormat::Json ? renderJson(result, ctx) : renderText(result, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return exitCode(result.verdict);
}

}  // namespace torchtv::cli
