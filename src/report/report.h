// Renderings of a CheckResult: one function per format.
#pragma once

#include <string>

#include "src/verify/verdict.h"

namespace torchtv {

struct ReportContext {
  std::string referencePath;
  std::string productionPath;
  std::string version;
};

// Human-readable summary for the terminal.
std::string renderText(const CheckResult &r, const ReportContext &ctx);
// Machine-readable result; schema in docs/json-output.md.
std::string renderJson(const CheckResult &r, const ReportContext &ctx);

}  // namespace torchtv
