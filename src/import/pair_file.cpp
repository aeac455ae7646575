#include "src/import/pair_file.h"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/capture_json.h"
#include "src/util/install_layout.h"
#include "src/util/subprocess.h"

namespace torchtv {

namespace {

std::string lastLine(const std::string &s) {
  size_t end = s.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// The InputError of a capture that failed: at the user's file and line when the
// capture ended by itself (`recorded`) and its last stderr line is its {"error",
// "file", "line"} record, else the process's exit and the tail of its stderr.
InputError captureFailure(const std::string &pairPath, const std::string &err, bool recorded, const std::string &how,
                          const CaptureOptions &options) {
  const std::string sandboxed = options.sandbox.enabled ? " (" + sandboxLimitsText(options.sandbox) + ")" : "";
  nlohmann::json record = recorded ? nlohmann::json::parse(lastLine(err), nullptr, false) : nlohmann::json();
  if (record.is_object() && record.contains("error") && record["error"].is_string()) {
    std::string file =
        record.value("file", nlohmann::json(nullptr)).is_string() ? record["file"].get<std::string>() : pairPath;
    int line = record.value("line", nlohmann::json(nullptr)).is_number_integer() ? record["line"].get<int>() : 0;
    return InputError(SourcePos{file, line}, "capture failed: " + record["error"].get<std::string>() + sandboxed);
  }
  std::string tail = err.size() > 2000 ? err.substr(err.size() - 2000) : err;
  return InputError(SourcePos{pairPath}, "capture failed: " + how + sandboxed + (tail.empty() ? "" : ":\n" + tail));
}

// The interpreter a capture runs: --python, else defaultPython().
std::string pythonOf(const CaptureOptions &options) { return options.python.empty() ? defaultPython() : options.python; }

// Runs the capture module on `pairPaths` with `args`, in the sandbox when asked (`writableDir`:
// the one folder it may write then); failures to run it at all become InputError at `where`.
ProcessResult runCaptureModule(const std::vector<std::string> &pairPaths, const std::vector<std::string> &args,
                               double timeoutSeconds, const CaptureOptions &options, const std::string &where,
                               const std::string &stdinText = "", const std::string &writableDir = "") {
  std::vector<std::string> argv = {pythonOf(options), "-m", "torchtv_capture"};
  argv.insert(argv.end(), pairPaths.begin(), pairPaths.end());
  argv.insert(argv.end(), args.begin(), args.end());
  if (options.sandbox.enabled) {
    try {
      argv = sandboxedArgv(argv, options.sandbox, writableDir);
    } catch (const std::runtime_error &e) {
      throw InputError(SourcePos{where}, e.what());
    }
  }
  ProcessOptions popts;
  popts.timeoutSeconds = timeoutSeconds;
  popts.stdinText = stdinText;
  std::string pythonPath = installLayout().capturePackageDir;  // Note [Installed layout]
  if (const char *old = std::getenv("PYTHONPATH"); old && *old) pythonPath += std::string(":") + old;
  popts.env.push_back("PYTHONPATH=" + pythonPath);
  ProcessResult r = runProcess(argv, popts);
  if (!r.started)
    throw InputError(SourcePos{where}, "cannot start the capture: " + r.error +
                                           " (choose a Python with torch via --python or TORCHTV_PYTHON)");
  return r;
}

// A pair file is a Python file; what a newcomer passes instead (a folder of them, a README, a
// graph file) gets a sentence saying what to do.
void requireRegularFile(const std::string &pairPath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(pairPath, ec)) {
    size_t pyFiles = 0;
    for (const auto &entry : fs::directory_iterator(pairPath, ec))
      if (entry.path().extension() == ".py") ++pyFiles;
    throw InputError(SourcePos{pairPath},
                     pyFiles == 0 ? "is a directory without pair files (*.py); verify takes a pair file"
                                  : "is a directory of " + std::to_string(pyFiles) +
                                        " Python files; verify takes pair files: torchtv verify --each " +
                                        pairPath + "/*.py");
  }
  if (!fs::is_regular_file(pairPath, ec)) throw InputError(SourcePos{pairPath}, "no such pair file");
  const std::string ext = fs::path(pairPath).extension().string();
  if (ext != ".py")
    throw InputError(SourcePos{pairPath},
                     "is not a Python pair file (a pair file ends in .py and defines example_inputs, reference "
                     "and production)" +
                         std::string(ext == ".tvir" || ext == ".pt" || ext == ".pt2" || ext == ".json"
                                         ? "; a graph file is decided with torchtv check"
                                         : ""));
}

// Runs the capture module on one pair file; returns its stdout. Failures become InputError.
std::string runCapture(const std::string &pairPath, const std::vector<std::string> &extraArgs,
                       const CaptureOptions &options, const std::string &writableDir = "") {
  requireRegularFile(pairPath);
  ProcessResult r = runCaptureModule({pairPath}, extraArgs, options.timeoutSeconds, options, pairPath, "", writableDir);
  if (!r.timedOut && r.signal == 0 && r.exitCode == 0) return r.out;
  throw captureFailure(pairPath, r.err, r.signal == 0 && !r.timedOut,
                       pythonOf(options) + " " + describeExit(r, options.timeoutSeconds), options);
}

}  // namespace

std::string defaultPython() {
  const char *env = std::getenv("TORCHTV_PYTHON");
  return env && *env ? env : "/usr/bin/python3";
}

std::string capturePairFileJson(const std::string &pairPath, const CaptureOptions &options) {
  return runCapture(pairPath, {"--emit-stdout"}, options);
}

std::vector<CapturedPairFile> capturePairFilesJson(const std::vector<std::string> &pairPaths,
                                                   const CaptureOptions &options) {
  namespace fs = std::filesystem;
  std::vector<CapturedPairFile> results(pairPaths.size());
  std::vector<std::string> present;  // the files that exist, in order
  std::vector<size_t> place;
  for (size_t i = 0; i < pairPaths.size(); ++i) {
    try {
      requireRegularFile(pairPaths[i]);
      present.push_back(pairPaths[i]);
      place.push_back(i);
    } catch (const InputError &) {
      results[i].error = std::current_exception();
    }
  }
  if (present.empty()) return results;
  std::string pattern = (fs::temp_directory_path() / "torchtv-capture-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw InputError(SourcePos{pairPaths[0]}, "cannot create a temporary folder");
  fs::path dir = pattern;
  struct Remove {
    fs::path dir;
    ~Remove() { std::error_code ec; fs::remove_all(dir, ec); }
  } remove{dir};
  // The parent only waits for its children, each bounded by the per-file limit.
  double total = options.timeoutSeconds * static_cast<double>(present.size()) + 60;
  ProcessResult r = runCaptureModule(
      present, {"--each", dir.string(), "--each-timeout", fmt::format("{:g}", options.timeoutSeconds)}, total,
      options, present[0], "", dir.string());
  for (size_t k = 0; k < present.size(); ++k) {
    CapturedPairFile &out = results[place[k]];
    fs::path json = dir / (std::to_string(k) + ".json");
    std::error_code ec;
    if (fs::is_regular_file(json, ec)) {
      out.json = readFile(json.string());
      continue;
    }
    fs::path errFile = dir / (std::to_string(k) + ".err");
    std::string err = fs::is_regular_file(errFile, ec) ? readFile(errFile.string()) : "";
    // No K.err: the parent failed (or was killed) before this child ran.
    bool childRan = !err.empty();
    out.error = std::make_exception_ptr(captureFailure(present[k], childRan ? err : r.err,
                                                       childRan || (r.signal == 0 && !r.timedOut),
                                                       childRan ? "its capture process ended without a result"
                                                                : pythonOf(options) + " " + describeExit(r, total),
                                                       options));
  }
  return results;
}

std::unique_ptr<Module> readCapturedPair(const std::string &jsonText, const std::string &pairPath) {
  std::string where = pairPath + " (captured)";
  return readCaptureBundle(parseJsonText(jsonText, where), where);
}

std::string runPairFileCode(const std::string &pairPath, const std::string &request, const CaptureOptions &options) {
  requireRegularFile(pairPath);
  ProcessResult r = runCaptureModule({pairPath}, {"--run-code"}, options.timeoutSeconds, options, pairPath, request);
  if (!r.timedOut && r.signal == 0 && r.exitCode == 0) return r.out;
  throw captureFailure(pairPath, r.err, r.signal == 0 && !r.timedOut,
                       pythonOf(options) + " " + describeExit(r, options.timeoutSeconds), options);
}

void capturePairFileToDir(const std::string &pairPath, const std::string &dir, bool force,
                          const CaptureOptions &options) {
  std::vector<std::string> args = {"-o", dir};
  if (force) args.push_back("--force");
  std::error_code ec;
  if (options.sandbox.enabled) std::filesystem::create_directories(dir, ec);  // the sandbox binds it
  runCapture(pairPath, args, options, options.sandbox.enabled ? dir : "");
}

}  // namespace torchtv
