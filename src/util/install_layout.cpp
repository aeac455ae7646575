#include "src/util/install_layout.h"

#include <cstdlib>
#include <filesystem>

// Set by CMakeLists.txt on this file only: the install folders relative to
// PREFIX, and the source and build paths of the tree this binary was built in.
#ifndef TORCHTV_INSTALL_DATADIR
#define TORCHTV_INSTALL_DATADIR "share/torchtv"
#endif
#ifndef TORCHTV_INSTALL_MODULEDIR
#define TORCHTV_INSTALL_MODULEDIR "lib/torchtv"
#endif
#ifndef TORCHTV_SOURCE_DIR
#define TORCHTV_SOURCE_DIR "."
#endif

namespace torchtv {

// Note [Installed layout]
InstallLayout layoutForExecutable(const std::string &exePath) {
  namespace fs = std::filesystem;
  InstallLayout layout;
  fs::path exeDir = exePath.empty() ? fs::path() : fs::path(exePath).parent_path();
  fs::path prefix = exeDir.parent_path();
  fs::path data = prefix / TORCHTV_INSTALL_DATADIR;
  std::error_code ec;
  if (!exePath.empty() && fs::is_directory(data / "rules", ec)) {
    layout.installed = true;
    layout.prefix = prefix.string();
    layout.rulesDir = (data / "rules").string();
    layout.fusionsDir = (data / "fusions").string();
    layout.capturePackageDir = (data / "python").string();
    layout.torchModuleDirs = {(prefix / TORCHTV_INSTALL_MODULEDIR).string()};
  } else {
    fs::path source = TORCHTV_SOURCE_DIR;
    layout.rulesDir = (source / "rules").string();
    layout.fusionsDir = (source / "fusions").string();
    layout.capturePackageDir = (source / "src" / "capture").string();
    if (!exeDir.empty()) layout.torchModuleDirs.push_back(exeDir.string());
#ifdef TORCHTV_BUILD_MODULE_DIR
    if (exeDir != fs::path(TORCHTV_BUILD_MODULE_DIR)) layout.torchModuleDirs.push_back(TORCHTV_BUILD_MODULE_DIR);
#endif
  }
  if (const char *env = std::getenv("TORCHTV_CAPTURE_PATH"); env && *env) layout.capturePackageDir = env;
  return layout;
}

const InstallLayout &installLayout() {
  static const InstallLayout layout = [] {
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return layoutForExecutable(ec ? "" : exe.string());
  }();
  return layout;
}

}  // namespace torchtv
