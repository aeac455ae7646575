// Pair files (docs/tvir.md, "Pair files"): Python files captured by the
// torchtv_capture package (src/capture) in a child Python process.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/util/sandbox.h"

namespace torchtv {

struct CaptureOptions {
  // Python interpreter with torch: --python, else $TORCHTV_PYTHON, else /usr/bin/python3.
  std::string python;
  double timeoutSeconds = 600;
  Sandbox sandbox;  // --sandbox: Note [The capture sandbox]
};

// The interpreter to use when none was given on the command line.
std::string defaultPython();

// Captures PAIR.py: the capture's JSON text ({"capture", "graphs"}; `verify`
// keeps it in its capture cache, Note [Capture cache] in src/cli). Capture
// errors become InputError at the user's file and line.
std::string capturePairFileJson(const std::string &pairPath, const CaptureOptions &options);
// Captures every pair file with one Python process (Note [Capturing each
// file] in src/capture/torchtv_capture/cli.py): for each, in order, its JSON
// text, or in `error` what capturePairFileJson would have thrown. Each file's
// capture is bounded by options.timeoutSeconds.
struct CapturedPairFile {
  std::string json;
  std::exception_ptr error;  // set: the capture failed
};
std::vector<CapturedPairFile> capturePairFilesJson(const std::vector<std::string> &pairPaths,
                                                   const CaptureOptions &options);
// Reads both graphs (and the FUSIONS graphs) of a capture's JSON text.
std::unique_ptr<Module> readCapturedPair(const std::string &jsonText, const std::string &pairPath);

// Runs PAIR.py's two functions on the inputs a request names (`python -m
// torchtv_capture PAIR.py --run-code`, the request on its stdin; Note [A
// refutation reproduces on the code] in src/verify/code_runs.h); returns the
// reply's JSON text. A run that fails becomes InputError.
std::string runPairFileCode(const std::string &pairPath, const std::string &request, const CaptureOptions &options);

// Captures PAIR.py into DIR (capture.json, reference.json, ...). Nothing is
// left half-written in DIR on failure; `force` replaces a non-empty DIR.
void capturePairFileToDir(const std::string &pairPath, const std::string &dir, bool force,
                          const CaptureOptions &options);

}  // namespace torchtv
