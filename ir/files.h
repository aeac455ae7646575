// Reading the project's input files: one reader with the input limits, and
// one way to load a folder of rules or fusion definitions.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace torchtv {

// Reads a whole file; InputError if it cannot be read (Note [Input limits]).
std::string readFile(const std::string &path);

// Reads every file of `dir` whose name ends in `extension` (".rules"), in
// name order, and hands each path and text to `load`. InputError when `dir`
// is not a folder (`what` names it in the message: "rules folder") or a file
// cannot be read.
void loadDirectory(const std::string &dir, std::string_view extension, const std::string &what,
                   const std::function<void(const std::string &path, const std::string &text)> &load);

}  // namespace torchtv
