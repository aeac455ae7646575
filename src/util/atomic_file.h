// Writing report files so that a reader never sees half a file.
#pragma once

#include <string>

namespace torchtv {

// Note [Atomic reports]
// The content goes to a temporary file in the same folder, which is then
// renamed over `path`: rename(2) within one file system is atomic, so a CI job
// that is killed, or a reader that looks early, sees either no file or the
// whole one. Throws InputError naming the path when it cannot be written.
void writeFileAtomic(const std::string &path, const std::string &content);

}  // namespace torchtv
