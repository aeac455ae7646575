#include <cstdio>

#include "src/report/report.h"

namespace torchtv {

namespace {
std::string verdictWithLevel(Verdict v, Level l) {
  std::string s(verdictName(v));
  if (l != Level::None) s += " (" + std::string(levelName(l)) + ")";
  return s;
}
}  // namespace

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
    if (o.referenceSite)
      out += "    reference diverges at %" + o.referenceSite->value + " = " + o.referenceSite->op +
             (o.referenceSite->loc.empty() ? "" : " (" + o.referenceSite->loc + ")") + "\n";
    if (o.productionSite)
      out += "    production diverges at %" + o.productionSite->value + " = " + o.productionSite->op +
             (o.productionSite->loc.empty() ? "" : " (" + o.productionSite->loc + ")") + "\n";
  }
  if (r.counterexample) {
    const Counterexample &c = *r.counterexample;
    out += "  counterexample: output " + c.output;
    if (!c.note.empty()) out += ": " + c.note;
    out += "\n";
  }
  for (const std::string &a : r.assumptions) out += "  assumes: " + a + "\n";
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", r.stats.seconds);
  out += "  time: " + std::string(secs) + " s\n";
  return out;
}

}  // namespace torchtv
