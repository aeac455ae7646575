// JUnit XML, the test-report format CI systems show (GitLab, Jenkins, GitHub
// actions that read it): one testsuite per pair, one testcase per output.
#include <cstdio>
#include <map>

#include "src/report/describe.h"
#include "src/report/escape.h"
#include "src/report/report.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string attr(const std::string &name, const std::string &value) {
  return " " + name + "=\"" + xmlEscape(value) + "\"";
}

// An equivalent output passes; not_equivalent and unknown fail the gate (a
// failure element) unless the manifest expects them (`accepted`: a skipped
// element, Note [Expected verdicts]); error is an <error>.
std::string testcase(const std::string &suite, const std::string &name, Verdict v, const std::string &message,
                     const std::string &details, double time, const std::string *accepted = nullptr) {
  std::string out = "    <testcase" + attr("classname", "torchtv." + suite) + attr("name", name) +
                    attr("time", seconds(time));
  if (v == Verdict::Equivalent) return out + "/>\n";
  if (accepted && v != Verdict::Error)
    return out + ">\n      <skipped" + attr("message", *accepted + " - " + message) + ">" + xmlEscape(details) +
           "</skipped>\n    </testcase>\n";
  const char *tag = v == Verdict::Error ? "error" : "failure";
  out += ">\n      <" + std::string(tag) + attr("type", std::string(verdictName(v))) + attr("message", message) +
         ">" + xmlEscape(details) + "</" + tag + ">\n    </testcase>\n";
  return out;
}

}  // namespace

std::string renderJunit(const std::vector<NamedResult> &pairs) {
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double total = 0;
  std::string suites;
  for (const NamedResult &nr : pairs) {
    const CheckResult &r = nr.result;
    std::string name = nr.name.empty() ? pairDisplayName(nr.ctx) : nr.name;
    size_t suiteTests = 0, suiteFailures = 0, suiteErrors = 0, suiteSkipped = 0;
    std::string cases;
    if (r.verdict == Verdict::Error) {
      std::string where = r.errorLocation.empty() ? "" : r.errorLocation + ": ";
      cases += testcase(name, "check", Verdict::Error, r.reason, where + r.reason, r.stats.seconds);
      suiteTests = suiteErrors = 1;
    } else if (r.outputs.empty() && r.verdict != Verdict::Equivalent) {
      // A pair undecided as a whole (the global time limit ran out): one failing case, so
      // that a gate reading JUnit never sees an empty, passing suite.
      const std::string *accepted = nr.acceptedWhy("");
      cases += testcase(name, "check", r.verdict, r.reason, r.reason, r.stats.seconds, accepted);
      suiteTests = 1;
      (accepted ? suiteSkipped : suiteFailures) = 1;
    }
    // The pair's time is shared evenly: the checker does not time outputs apart.
    double each = r.outputs.empty() ? 0 : r.stats.seconds / r.outputs.size();
    // Each output's cause (Note [One alert per cause]): one testcase per output, the cause named
    // in each; an output grouped under another's cause says so first.
    std::map<const OutputResult *, const CauseGroup *> causeOf;
    const std::vector<CauseGroup> groups = causeGroups(r);
    for (const CauseGroup &g : groups)
      for (const OutputResult *o : g.outputs) causeOf[o] = &g;
    for (const OutputResult &o : r.outputs) {
      std::string details = "output " + o.name + ": " + verdictWithLevel(o.verdict, o.level) + " - " + o.reason + "\n";
      for (const std::string &line : undecidedLines(o)) details += line + "\n";
      std::string message = o.reason;
      if (auto it = causeOf.find(&o); it != causeOf.end()) {
        const CauseGroup &g = *it->second;
        if (g.reference) details += "reference diverges at " + siteText(*g.reference) + "\n";
        if (g.production) details += "production diverges at " + siteText(*g.production) + "\n";
        if (g.outputs.size() > 1) {
          details += "one cause for " + groupedOutputsText(g) + "\n";
          if (g.outputs.front() != &o && g.production)
            message = "same cause as output " + g.outputs.front()->name + " (" + siteText(*g.production) + "): " + o.reason;
        }
      }
      if (r.counterexample && r.counterexample->output == o.name) details += counterexampleText(*r.counterexample);
      details += "reference: " + nr.ctx.referencePath + "\nproduction: " + nr.ctx.productionPath + "\n";
      const std::string *accepted = nr.acceptedWhy(o.name);
      cases += testcase(name, "output " + o.name, o.verdict, message, details, each, accepted);
      ++suiteTests;
      if (o.verdict == Verdict::NotEquivalent || o.verdict == Verdict::Unknown) ++(accepted ? suiteSkipped : suiteFailures);
    }
    // What an equivalent verdict relied on (one line per kind, summarizeRealAssumptions).
    std::string props;
    for (const std::string &a : r.assumptions) props += "      <property" + attr("name", "assumes") + attr("value", a) + "/>\n";
    // Level rounded: each site, its line and bound (Note [Equivalence up to rounding]).
    for (const Rounding &x : r.roundings)
      props += "      <property" + attr("name", "rounded") + attr("value", describeRounding(x)) + "/>\n";
    if (!props.empty()) props = "    <properties>\n" + props + "    </properties>\n";
    suites += "  <testsuite" + attr("name", name) + attr("tests", std::to_string(suiteTests)) +
              attr("failures", std::to_string(suiteFailures)) + attr("errors", std::to_string(suiteErrors)) +
              attr("skipped", std::to_string(suiteSkipped)) + attr("time", seconds(r.stats.seconds)) + ">\n" + props + cases +
              "  </testsuite>\n";
    tests += suiteTests, failures += suiteFailures, errors += suiteErrors, skipped += suiteSkipped;
    total += r.stats.seconds;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" + attr("name", "torchtv") +
         attr("tests", std::to_string(tests)) + attr("failures", std::to_string(failures)) +
         attr("errors", std::to_string(errors)) + attr("skipped", std::to_string(skipped)) + attr("time", seconds(total)) + ">\n" + suites + "</testsuites>\n";
}

}  // namespace torchtv
