// Paths in reports that a code host maps onto its repository's files.
//
// Note [Source root]
// GitHub code scanning and workflow annotations place a result on a file by
// its path relative to the repository root; an absolute path from the CI
// machine maps to nothing. Reports therefore name files relative to a source
// root (`--source-root`, default: the git work tree around the current
// directory, else the current directory); SARIF says so with the uriBaseId
// %SRCROOT% and gives the root's absolute URI in run.originalUriBaseIds.
// A relative path that exists from the current directory is taken from there
// (it is what the user typed); one that does not (a source location recorded
// as `model.py` in a .tvir file) is assumed to be relative to the root
// already. A file outside the root keeps its absolute path.
#pragma once

#include <string>

namespace torchtv {

// The git work tree containing the current directory, else the current directory.
std::string defaultSourceRoot();

// `path` relative to `root` ("src/model.py") when it lies inside it; else the
// absolute path. `root` empty: `path` as given.
std::string relativeToRoot(const std::string &path, const std::string &root);

// Is `p` absolute (a relativeToRoot result outside the root)?
bool isAbsolutePath(const std::string &p);

}  // namespace torchtv
