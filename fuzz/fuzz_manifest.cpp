// libFuzzer target: the `torchtv ci` manifest reader (TOML). The manifest sits
// in a scratch folder holding one file of each kind a pair may name, so fuzzed
// manifests reach the checks past "file does not exist".
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fuzz/fuzz_util.h"
#include "src/cli/ci_manifest.h"

namespace {

std::filesystem::path gDir;
std::string gManifest;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  namespace fs = std::filesystem;
  gDir = fs::temp_directory_path() / ("torchtv-fuzz-manifest-" + std::to_string(::getpid()));
  fs::create_directories(gDir);
  for (const char *name : {"a.tvir", "b.tvir", "both.tvir", "pair.py"}) std::ofstream(gDir / name) << "\n";
  gManifest = (gDir / "manifest.toml").string();
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(gDir, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace torchtv;
  return fuzz::guarded([&] {
    cli::Manifest m = cli::readManifestText(fuzz::text(data, size), gManifest);
    // What `torchtv ci` relies on (ci_command.cpp, subprocess.cpp): a finite,
    // positive timeout that fits the runner's integer milliseconds, and the
    // number of files each kind of pair needs.
    for (const cli::CiEntry &e : m.entries) {
      if (!(e.timeoutSeconds > 0) || !std::isfinite(e.timeoutSeconds) || e.timeoutSeconds * 1000 > 9.2e18) std::abort();
      size_t want = e.kind == cli::PairKind::GraphFiles ? 2 : 1;
      if (e.files.size() != want || e.name.empty()) std::abort();
    }
  });
}
