#include "src/import/pair_file.h"

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "src/import/capture_json.h"
#include "src/util/subprocess.h"

#ifndef TORCHTV_CAPTURE_DIR
#define TORCHTV_CAPTURE_DIR "src/capture"
#endif

namespace torchtv {

namespace {

// Where the torchtv_capture package lives: $TORCHTV_CAPTURE_PATH, else the
// source tree this binary was built from.
std::string capturePackageDir() {
  const char *env = std::getenv("TORCHTV_CAPTURE_PATH");
  return env && *env ? env : TORCHTV_CAPTURE_DIR;
}

std::string lastLine(const std::string &s) {
  size_t end = s.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Runs the capture module; returns its stdout. Failures become InputError.
std::string runCapture(const std::string &pairPath, const std::vector<std::string> &extraArgs,
                       const CaptureOptions &options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(pairPath, ec)) throw InputError(SourcePos{pairPath}, "no such pair file");
  std::string python = options.python.empty() ? defaultPython() : options.python;
  std::vector<std::string> argv = {python, "-m", "torchtv_capture", pairPath};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  ProcessOptions popts;
  popts.timeoutSeconds = options.timeoutSeconds;
  std::string pythonPath = capturePackageDir();
  if (const char *old = std::getenv("PYTHONPATH"); old && *old) pythonPath += std::string(":") + old;
  popts.env.push_back("PYTHONPATH=" + pythonPath);
  ProcessResult r = runProcess(argv, popts);
  if (!r.started)
    throw InputError(SourcePos{pairPath}, "cannot start the capture: " + r.error +
                                              " (choose a Python with torch via --python or TORCHTV_PYTHON)");
  if (!r.timedOut && r.signal == 0 && r.exitCode == 0) return r.out;
  // On failure the capture's last stderr line is {"error", "file", "line"}.
  nlohmann::json err = nlohmann::json::parse(lastLine(r.err), nullptr, false);
  if (r.signal == 0 && !r.timedOut && err.is_object() && err.contains("error")) {
    std::string file = err.value("file", nlohmann::json(nullptr)).is_string() ? err["file"].get<std::string>() : pairPath;
    int line = err.value("line", nlohmann::json(nullptr)).is_number_integer() ? err["line"].get<int>() : 0;
    throw InputError(SourcePos{file, line}, "capture failed: " + err["error"].get<std::string>());
  }
  std::string tail = r.err.size() > 2000 ? r.err.substr(r.err.size() - 2000) : r.err;
  throw InputError(SourcePos{pairPath}, "capture failed: " + python + " " + describeExit(r, popts.timeoutSeconds) +
                                            (tail.empty() ? "" : ":\n" + tail));
}

}  // namespace

std::string defaultPython() {
  const char *env = std::getenv("TORCHTV_PYTHON");
  return env && *env ? env : "/usr/bin/python3";
}

std::string capturePairFileJson(const std::string &pairPath, const CaptureOptions &options) {
  return runCapture(pairPath, {"--emit-stdout"}, options);
}

std::unique_ptr<Module> readCapturedPair(const std::string &jsonText, const std::string &pairPath) {
  std::string where = pairPath + " (captured)";
  return readCaptureBundle(parseJsonText(jsonText, where), where);
}

void capturePairFileToDir(const std::string &pairPath, const std::string &dir, bool force,
                          const CaptureOptions &options) {
  std::vector<std::string> args = {"-o", dir};
  if (force) args.push_back("--force");
  runCapture(pairPath, args, options);
}

}  // namespace torchtv
