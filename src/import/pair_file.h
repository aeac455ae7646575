// Pair files (DESIGN.md, "Pair files"): Python files captured by the
// torchtv_capture package (src/capture) in a child Python process.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"

namespace torchtv {

struct CaptureOptions {
  // Python interpreter with torch: --python, else $TORCHTV_PYTHON, else /usr/bin/python3.
  std::string python;
  double timeoutSeconds = 600;
};

// The interpreter to use when none was given on the command line.
std::string defaultPython();

// Captures PAIR.py: the capture's JSON text ({"capture", "graphs"}; `verify`
// keeps it in its capture cache, Note [Capture cache] in src/cli). Capture
// errors become InputError at the user's file and line.
std::string capturePairFileJson(const std::string &pairPath, const CaptureOptions &options);
// Reads both graphs (and the FUSIONS graphs) of a capture's JSON text.
std::unique_ptr<Module> readCapturedPair(const std::string &jsonText, const std::string &pairPath);

// Captures PAIR.py into DIR (capture.json, reference.json, ...). Nothing is
// left half-written in DIR on failure; `force` replaces a non-empty DIR.
void capturePairFileToDir(const std::string &pairPath, const std::string &dir, bool force,
                          const CaptureOptions &options);

}  // namespace torchtv
