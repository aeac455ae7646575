// torchtv capture PAIR.py -o DIR: write both graphs of a pair file as JSON
// (docs/capture-format.md), for `torchtv check DIR` later or elsewhere.
#include <iostream>

#include "ir/diagnostic.h"
#include "src/cli/commands.h"
#include "src/import/pair_file.h"

namespace torchtv::cli {

namespace {
struct CaptureArgs {
  std::string pair;
  std::string outDir;
  bool force = false;
  CaptureOptions capture;
};
}  // namespace

Command addCaptureCommand(CLI::App &app) {
  auto args = std::make_shared<CaptureArgs>();
  auto *cmd = app.add_subcommand("capture", "Capture a pair file (runs its code) into a directory of JSON graphs");
  cmd->add_option("pair", args->pair, "Pair file")->required();
  cmd->add_option("-o,--out", args->outDir, "Output directory")->required();
  cmd->add_flag("--force", args->force, "Replace a non-empty output directory");
  addCaptureOptions(*cmd, args->capture);
  return {cmd, [args] {
            try {
              capturePairFileToDir(args->pair, args->outDir, args->force, args->capture);
              std::cout << "captured " << args->pair << " into " << args->outDir << "\n";
              return 0;
            } catch (const InputError &e) {
              std::cerr << "torchtv: error: " << e.what() << "\n";
              return exitCode(Verdict::Error);
            }
          }};
}

}  // namespace torchtv::cli
