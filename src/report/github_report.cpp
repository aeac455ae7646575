// GitHub Actions workflow commands: each cause of failing outputs becomes one
// annotation on its production source line (or the graph file) in the pull request.
#include "src/report/describe.h"
#include "src/report/report.h"
#include "src/report/source_paths.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

// Escaping of workflow commands (as in @actions/core): the message escapes
// % CR LF; property values also escape ':' and ','.
std::string escapeData(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string escapeProperty(const std::string &s) {
  std::string out;
  for (char c : escapeData(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

// `file=` is relative to the repository root, as GitHub expects (Note [Source root]).
std::string annotation(const char *kind, const FileLine &where, const std::string &root, const std::string &title,
                       const std::string &msg) {
  std::string props;
  if (!where.file.empty()) props += "file=" + escapeProperty(relativeToRoot(where.file, root));
  if (where.line > 0) props += ",line=" + std::to_string(where.line);
  if (where.col > 0) props += ",col=" + std::to_string(where.col);
  props += std::string(props.empty() ? "" : ",") + "title=" + escapeProperty(title);
  return std::string("::") + kind + " " + props + "::" + escapeData(msg) + "\n";
}

}  // namespace

std::string renderGithub(const CheckResult &r, const ReportContext &ctx) {
  // A plain first line for the log; workflow commands follow.
  std::string out = "torchtv: " + verdictWithLevel(r.verdict, r.level) + " - " + r.reason + "\n";
  for (const std::string &a : r.assumptions) out += "  assumes: " + a + "\n";
  // Note [Equivalence up to rounding]: a notice on each site's line (the gate's verdict is the
  // exit code's: level rounded passes unless --require real).
  for (const Rounding &x : r.roundings) {
    FileLine where = parseFileLine(x.loc);
    if (where.file.empty()) where.file = ctx.productionPath;
    out += annotation("notice", where, ctx.sourceRoot, "torchtv: equal up to rounding",
                      describeRounding(x) + " (the bound is of the perturbation at this site, not of the outputs)");
  }
  if (r.verdict == Verdict::Error) {
    FileLine where = parseFileLine(r.errorLocation);
    if (where.file.empty()) where.file = ctx.productionPath;
    return out + annotation("error", where, ctx.sourceRoot, "torchtv: error", r.reason);
  }
  if (r.outputs.empty() && r.verdict != Verdict::Equivalent) {
    // Undecided as a whole (the time limit ran out): the gate fails, so it says so here too.
    FileLine where;
    where.file = ctx.productionPath;
    return out + annotation("error", where, ctx.sourceRoot, "torchtv: " + std::string(verdictName(r.verdict)), r.reason);
  }
  // One annotation per cause, at its line, the outputs it explains under it (Note [One alert per cause]).
  for (const CauseGroup &g : causeGroups(r)) {
    const OutputResult &first = *g.outputs.front();
    FileLine where;
    if (g.production && !g.production->loc.empty()) where = parseFileLine(g.production->loc);
    else where.file = ctx.productionPath;
    std::string msg = g.outputs.size() == 1 ? first.reason : groupedOutputsText(g) + "\n" + first.name + ": " + first.reason;
    msg += undecidedText(first, "\n");
    if (g.reference) msg += "\nreference diverges at " + siteText(*g.reference);
    if (g.production) msg += "\nproduction diverges at " + siteText(*g.production);
    for (const OutputResult *o : g.outputs)
      if (r.counterexample && r.counterexample->output == o->name) msg += "\n" + counterexampleText(*r.counterexample);
    std::string title = g.outputs.size() == 1 ? "torchtv: output " + first.name + " " + std::string(verdictName(first.verdict))
                                              : "torchtv: " + std::to_string(g.outputs.size()) + " outputs " +
                                                    std::string(verdictName(g.verdict));
    // unknown fails the gate too (exit 2), so it is an error, not a warning.
    out += annotation("error", where, ctx.sourceRoot, title, msg);
  }
  return out;
}

}  // namespace torchtv
