#include "src/report/graphviz.h"

#include <cstdlib>

#include "src/report/report.h"
#include "src/util/subprocess.h"

namespace torchtv {

std::string defaultDotPath() {
  if (const char *env = std::getenv("TORCHTV_DOT")) return env;
  return findProgram("dot");
}

SvgResult layoutWithDot(const std::string &dot, const std::string &dotPath, double timeoutSeconds) {
  SvgResult out;
  if (dotPath.empty()) {
    out.error = "Graphviz's dot was not found";
    return out;
  }
  ProcessOptions options;
  options.stdinText = dot;
  options.timeoutSeconds = timeoutSeconds;
  ProcessResult r = runProcess({dotPath, "-Tsvg"}, options);
  if (!r.started || r.timedOut || r.signal || r.exitCode != 0) {
    out.error = "dot failed (" + describeExit(r, timeoutSeconds) + ")";
    std::string firstLine = r.err.substr(0, r.err.find('\n'));
    if (!firstLine.empty()) out.error += ": " + firstLine;
    return out;
  }
  size_t start = r.out.find("<svg");
  if (start == std::string::npos) {
    out.error = "dot printed no SVG";
    return out;
  }
  out.svg = r.out.substr(start);
  return out;
}

}  // namespace torchtv
