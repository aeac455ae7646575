// Where torchtv's data lives: the bundled rules and fusion definitions, the
// Python capture package and the LibTorch module, for an installed binary and
// for one run from its build tree.
#pragma once

#include <string>
#include <vector>

namespace torchtv {

// Note [Installed layout]
// `cmake --install --prefix PREFIX` (and the .deb, PREFIX=/usr) puts
//   PREFIX/bin/torchtv                          the CLI
//   PREFIX/lib/torchtv/libtorchtv_torch.so      the LibTorch module (Note [LibTorch module])
//   PREFIX/share/torchtv/rules, .../fusions     the bundled rules and fusion definitions
//   PREFIX/share/torchtv/python                 torchtv_capture and torchtv, the binary's own copy
//   PREFIX/lib/python3/dist-packages            the same Python packages, for `import torchtv`
//                                               from Debian's system Python
// A binary is *installed* when PREFIX/share/torchtv/rules exists, PREFIX being
// the parent of the folder that holds the executable (/proc/self/exe, so a
// symlink to it on PATH still finds its own data). Otherwise it runs from its
// build tree and uses the source tree it was configured from, as before
// installing existed. installLayout() is the one place that decides; nothing
// else names a data path.
//
// The capture always runs with the binary's own copy of the Python package
// first on PYTHONPATH, never the system dist-packages folder: the JSON a
// capture writes must be the format this binary reads, and putting Debian's
// dist-packages on the path of a --python from a virtualenv would shadow that
// environment's torch with Debian's.
//
// The environment overrides one piece each, for both layouts:
// TORCHTV_CAPTURE_PATH (the Python package's folder, here) and
// TORCHTV_TORCH_MODULE (the module file, in src/torch/loader.cpp).
struct InstallLayout {
  bool installed = false;
  std::string prefix;             // installed: PREFIX; else empty
  std::string rulesDir;           // the bundled *.rules
  std::string fusionsDir;         // the bundled fusion definitions
  std::string capturePackageDir;  // the folder holding torchtv_capture/ (goes on PYTHONPATH)
  // The folders where the LibTorch module is looked for, in order (the build
  // tree has two: the executable's, and the one this build wrote it to).
  std::vector<std::string> torchModuleDirs;
};

// The layout of the running executable, decided once (Note [Installed layout]).
const InstallLayout &installLayout();

// The layout for an executable at `exePath` (for tests; installLayout() passes /proc/self/exe).
InstallLayout layoutForExecutable(const std::string &exePath);

}  // namespace torchtv
