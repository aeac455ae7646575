// torchtv show FILE: print a graph file as canonical .tvir.
#include <iostream>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/cli/commands.h"
#include "src/import/load.h"

namespace torchtv::cli {

Command addShowCommand(CLI::App &app) {
  auto path = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::string>();
  auto *cmd = app.add_subcommand("show", "Print a graph file as .tvir text");
  cmd->add_option("file", *path, "Graph file")->required();
  addInputsOption(*cmd, *inputs);
  return {cmd, [path, inputs] {
            try {
              LoadOptions load;
              if (!inputs->empty()) load.inputs = parseInputTypes(*inputs);
              std::cout << printModule(*loadModule(*path, load));
              return 0;
            } catch (const InputError &e) {
              std::cerr << "torchtv: error: " << e.what() << "\n";
              return exitCode(Verdict::Error);
            }
          }};
}

}  // namespace torchtv::cli
