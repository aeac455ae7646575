#include "src/report/source_paths.h"

#include <filesystem>

namespace torchtv {

namespace fs = std::filesystem;

std::string defaultSourceRoot() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) return "";
  for (fs::path dir = cwd;; dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir.string();  // a folder, or a file in a worktree
    if (dir == dir.parent_path()) break;
  }
  return cwd.string();
}

bool isAbsolutePath(const std::string &p) { return !p.empty() && p[0] == '/'; }

std::string relativeToRoot(const std::string &path, const std::string &root) {
  if (root.empty() || path.empty()) return path;
  std::error_code ec;
  fs::path p(path);
  if (p.is_relative() && !fs::exists(p, ec)) return fs::path(path).lexically_normal().generic_string();
  fs::path absolute = fs::weakly_canonical(fs::absolute(p, ec), ec);
  fs::path base = fs::weakly_canonical(fs::path(root), ec);
  fs::path rel = absolute.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") return absolute.generic_string();
  return rel.generic_string();
}

}  // namespace torchtv
