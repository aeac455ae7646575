#include <cstdio>

#include "src/report/describe.h"
#include "src/report/report.h"

namespace torchtv {

std::string renderText(const CheckResult &r, const ReportContext &ctx) {
  std::string out = "torchtv: " + verdictWithLevel(r.verdict, r.level) + "\n";
  if (r.verdict == Verdict::Error) {
    out += "  error: " + (r.errorLocation.empty() ? "" : r.errorLocation + ": ") + r.reason + "\n";
    return out;
  }
  out += "  reason: " + r.reason + "\n";
  if (!ctx.referencePath.empty())
    out += "  reference:  " + ctx.referencePath + " (" + std::to_string(r.stats.referenceNodes) + " nodes)\n";
  if (!ctx.productionPath.empty())
    out += "  production: " + ctx.productionPath + " (" + std::to_string(r.stats.productionNodes) + " nodes)\n";
  for (const OutputResult &o : r.outputs) {
    out += "  output " + o.name + ": " + verdictWithLevel(o.verdict, o.level) + " - " + o.reason + "\n";
    if (o.referenceSite) out += "    reference diverges at " + siteText(*o.referenceSite) + "\n";
    if (o.productionSite) out += "    production diverges at " + siteText(*o.productionSite) + "\n";
  }
  if (r.counterexample) out += "  " + counterexampleText(*r.counterexample);
  for (const std::string &a : r.assumptions) out += "  assumes: " + a + "\n";
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", r.stats.seconds);
  out += "  time: " + std::string(secs) + " s\n";
  return out;
}

}  // namespace torchtv
