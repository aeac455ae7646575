#include <cstdio>
#include <map>

#include "src/cli/commands.h"

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

int emitResult(const CheckResult &result, const ReportContext &ctx, const OutputOptions &options) {
  std::string out = options.format == OutputFormat::Json ? renderJson(result, ctx) : renderText(result, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return exitCode(result.verdict);
}

}  // namespace torchtv::cli
