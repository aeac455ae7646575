// Note [Installed layout]: an executable whose PREFIX/share/torchtv/rules exists uses the data
// under PREFIX; any other uses the source tree it was built from.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "src/util/install_layout.h"

namespace fs = std::filesystem;
using namespace torchtv;

TEST_CASE("install layout: data found relative to an installed executable") {
  fs::path prefix = fs::temp_directory_path() / ("torchtv-layout-" + std::to_string(::getpid()));
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "torchtv" / "rules");
  unsetenv("TORCHTV_CAPTURE_PATH");
  InstallLayout installed = layoutForExecutable((prefix / "bin" / "torchtv").string());
  CHECK(installed.installed);
  CHECK(installed.prefix == prefix.string());
  CHECK(installed.rulesDir == (prefix / "share/torchtv/rules").string());
  CHECK(installed.fusionsDir == (prefix / "share/torchtv/fusions").string());
  CHECK(installed.capturePackageDir == (prefix / "share/torchtv/python").string());
  REQUIRE(installed.torchModuleDirs.size() == 1);
  CHECK(installed.torchModuleDirs[0] == (prefix / "lib/torchtv").string());

  // Without share/torchtv/rules beside it, the same executable is a build tree's.
  fs::remove_all(prefix / "share");
  InstallLayout built = layoutForExecutable((prefix / "bin" / "torchtv").string());
  CHECK_FALSE(built.installed);
  CHECK(built.rulesDir == (fs::path(TORCHTV_SOURCE_DIR) / "rules").string());
  CHECK(built.capturePackageDir == (fs::path(TORCHTV_SOURCE_DIR) / "src/capture").string());
  CHECK(built.torchModuleDirs.front() == (prefix / "bin").string());

  // The environment overrides the capture package in both layouts.
  setenv("TORCHTV_CAPTURE_PATH", "/elsewhere", 1);
  CHECK(layoutForExecutable((prefix / "bin" / "torchtv").string()).capturePackageDir == "/elsewhere");
  unsetenv("TORCHTV_CAPTURE_PATH");
  fs::remove_all(prefix);
}
