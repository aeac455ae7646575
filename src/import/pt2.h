// Reads torch.export archives (.pt2, torch >= 2.2) into the IR.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Schema majors of torch.export's serialized ExportedProgram this reader
// understands; others are refused (the format changes incompatibly between majors).
constexpr int kPt2MinSchemaMajor = 3;
constexpr int kPt2MaxSchemaMajor = 8;

// Reads the archive at `path`: the newer layout (<name>/models/model.json,
// torch >= 2.6) or the older one (serialized_exported_program.json). Parameters
// and buffers become graph inputs named by their qualified names, lifted tensor
// constants become prim::constant, user outputs become graph outputs; symbolic
// sizes become named symbols. `inputs`, when given, must equal the types of the
// user inputs recorded in the file. Throws InputError naming the file.
std::unique_ptr<Module> importPt2(const std::string &path, const std::vector<TensorType> *inputs);

// The part after unzipping: maps an ExportedProgram JSON text to a graph.
// `readConstant(path_name)` returns the raw bytes of a lifted constant (throws
// InputError when the archive has none). Exposed for tests.
struct Pt2Archive {
  std::string path;        // for messages
  std::string modelJson;   // the ExportedProgram
  std::string constantsConfigJson;  // data/constants/model_constants_config.json, or empty
  std::function<std::string(const std::string &)> readConstant;
};
std::unique_ptr<Module> importExportedProgram(const Pt2Archive &archive, const std::vector<TensorType> *inputs);

}  // namespace torchtv
