// The terminal summary. Note [Text at scale]: a model has tens of outputs, and
// a reader wants to know first how many failed and which: the counts come
// first, then each output that is not proven, grouped by cause (Note [One
// alert per cause] in describe.h: the cause once, its outputs under it), then
// one line for the proven ones (each on its own line with -v).
#include <cstdio>

#include "src/report/describe.h"
#include "src/report/report.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

std::string outputLine(const OutputResult &o) {
  std::string text = "  output " + o.name + ": " + verdictWithLevel(o.verdict, o.level) + " - " + o.reason + "\n";
  for (const std::string &line : undecidedLines(o)) text += "      " + line + "\n";
  return text;
}

std::string sitesText(const std::optional<Site> &reference, const std::optional<Site> &production) {
  return (reference ? "    reference diverges at " + siteText(*reference) + "\n" : "") +
         (production ? "    production diverges at " + siteText(*production) + "\n" : "");
}

// Each output that is not proven, grouped by cause (Note [One alert per cause]): an output
// alone is followed by where it diverges; a group of several is headed by its cause, once.
std::string failingOutputs(const CheckResult &r) {
  std::string out;
  for (const CauseGroup &g : causeGroups(r)) {
    if (g.outputs.size() == 1) {
      out += outputLine(*g.outputs[0]) + sitesText(g.reference, g.production);
      continue;
    }
    out += "  " + std::to_string(g.outputs.size()) + " outputs diverge " +
           (g.production ? "where production's " + siteText(*g.production) + " does" : "without a known site") + ":\n";
    if (g.reference) out += "    (reference: " + siteText(*g.reference) + ")\n";
    for (const OutputResult *o : g.outputs) out += "  " + outputLine(*o);
  }
  return out;
}

// The proven outputs: one line each when verbose, else one line for all.
std::string provenOutputs(const CheckResult &r, bool verbose) {
  std::vector<const OutputResult *> proven;
  for (const OutputResult &o : r.outputs)
    if (o.verdict == Verdict::Equivalent) proven.push_back(&o);
  if (proven.empty()) return "";
  if (verbose || proven.size() == 1) {
    std::string out;
    for (const OutputResult *o : proven) out += outputLine(*o);
    return out;
  }
  const size_t kNamed = 8;
  std::string names;
  for (size_t i = 0; i < proven.size() && i < kNamed; ++i)
    names += (i ? ", " : "") + proven[i]->name +
             (proven[i]->level != Level::Bitwise ? " (" + std::string(levelName(proven[i]->level)) + ")" : "");
  if (proven.size() > kNamed) names += ", ... (" + std::to_string(proven.size() - kNamed) + " more)";
  return "  proven equivalent: " + names + " (-v: one line each, with the reason)\n";
}

std::string selfCheckLine(const CheckResult &r, bool asked) {
  if (r.selfCheck) {
    const SelfCheck &sc = *r.selfCheck;
    if (!sc.ran) return "  self-check: not run - " + sc.detail + "\n";
    if (!sc.agreed) return "  self-check: DISAGREES with the proof - " + sc.detail + "\n";
    return "  self-check: " + sc.detail + "\n";
  }
  if (asked) return "  self-check: not run (it re-checks equivalent verdicts only)\n";
  return "";
}

}  // namespace

std::string renderText(const CheckResult &r, const ReportContext &ctx, const TextOptions &options) {
  std::string out = "torchtv: " + verdictWithLevel(r.verdict, r.level) + "\n";
  if (r.verdict == Verdict::Error) {
    out += "  error: " + (r.errorLocation.empty() ? "" : r.errorLocation + ": ") + r.reason + "\n";
    return out;
  }
  if (!r.outputs.empty()) out += "  " + countsText(r) + "\n";
  out += "  reason: " + r.reason + "\n";
  if (!ctx.referencePath.empty())
    out += "  reference:  " + ctx.referencePath + " (" + std::to_string(r.stats.referenceNodes) + " nodes)\n";
  if (!ctx.productionPath.empty())
    out += "  production: " + ctx.productionPath + " (" + std::to_string(r.stats.productionNodes) + " nodes)\n";
  out += failingOutputs(r);
  out += provenOutputs(r, options.verbose);
  if (r.counterexample) out += "  " + counterexampleText(*r.counterexample);
  for (const std::string &a : r.assumptions) out += "  assumes: " + a + "\n";
  for (const std::string &w : r.warnings) out += "  warning: " + w + "\n";
  // Note [Equivalence up to rounding]: each site, its line and the perturbation it introduces there.
  for (const Rounding &x : r.roundings) out += "  rounded: " + describeRounding(x) + "\n";
  if (!r.roundings.empty()) out += "  (each bound is of the perturbation at its site, not of the outputs)\n";
  out += selfCheckLine(r, options.selfCheckAsked);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", r.stats.seconds);
  out += "  time: " + std::string(secs) + " s\n";
  return out;
}

}  // namespace torchtv
