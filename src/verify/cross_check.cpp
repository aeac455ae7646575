#include "src/verify/cross_check.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "src/verify/verdict_table.h"

namespace torchtv {

namespace {

std::string howTheyDiffer(const EagerOutputCheck &c) {
  char buf[96];
  if (c.maxUlp > 0)
    std::snprintf(buf, sizeof buf, "%lld element%s differ by up to %.10g ulp", c.elementsDiffer,
                  c.elementsDiffer == 1 ? "" : "s", c.maxUlp);
  else  // signed zeros, or runs that measure no ulps (--self-check)
    std::snprintf(buf, sizeof buf, "%lld element%s differ in their bits", c.elementsDiffer,
                  c.elementsDiffer == 1 ? "" : "s");
  std::string s = buf;
  if (!c.firstDifference.empty()) s += " (" + c.firstDifference + ")";
  return s;
}

}  // namespace

void applyRunEvidence(CheckResult &result, const EagerEvidence &runs, std::string_view what,
                      std::string_view bitsDiffer, bool refutes) {
  if (!runs.ran) return;
  const std::string source =
      runs.reducedShapes ? std::string(what) + " at the reduced shapes of " + runs.inputs : std::string(what);
  bool changed = false;
  const Evidence beyondRounding = !refutes            ? Evidence::GraphRunsDifferBeyondRounding
                                  : runs.reducedShapes ? Evidence::ReducedRunsDifferBeyondRounding
                                                       : Evidence::CodeRunsDifferBeyondRounding;
  const Evidence inBits = runs.reducedShapes ? Evidence::ReducedRunsDifferInBits : Evidence::RunsDifferInBits;
  auto counterexample = [&](const OutputResult &out, const EagerOutputCheck &c) {
    if (result.counterexample) return;
    Counterexample cex;
    cex.output = out.name;
    cex.note = source + ", " + c.firstDifference;
    result.counterexample = cex;
  };
  // Note [Verdict table]: the runs are evidence; the table says what they make of each output,
  // and the reason's text follows the row it took.
  for (OutputResult &out : result.outputs) {
    const EagerOutputCheck *c = runs.find(out.name);
    if (!c || c->draws == 0) continue;
    const Verdict before = out.verdict;
    const std::string beforeLevel(levelName(out.level)), beforeReason = out.reason;
    if (!c->beyondRounding && c->bitwiseEqual) continue;
    const Evidence e = c->beyondRounding ? beyondRounding : inBits;
    // Runs that differ in bits decide nothing on an undecided output; what they showed, and when an
    // op ran below float64 why they cannot tell more, is its `runs` (describeRunsOfUndecided).
    if (!applyEvidence(out, e)) continue;
    changed = true;
    const std::string inconsistency = std::string(reasons::kInternalInconsistency) + ": proven " + beforeLevel +
                                      " (" + beforeReason + "), but " + source +
                                      " gives outputs that differ beyond rounding";
    switch (out.code) {
    case ReasonCode::RefutedByRunning:
    case ReasonCode::RunsContradictProof:
      out.reason = std::string(reasons::kRefutedByRunning) + " (" + source + "): " + *c->beyondRounding + "; " +
                   howTheyDiffer(*c) +
                   (before == Verdict::Equivalent
                        ? "; " + inconsistency +
                              ", so the decided graphs are not the code that runs (code that checks whether it is "
                              "traced?), or torchtv is wrong"
                        : "");
      counterexample(out, *c);
      break;
    case ReasonCode::InternalInconsistency:
      out.reason = inconsistency + ": " + *c->beyondRounding +
                   "; the decided graphs are not the code that runs, or torchtv is wrong";
      break;
    case ReasonCode::RunsDifferInBits:
      out.reason = std::string(bitsDiffer) + " (" + source + ": " + howTheyDiffer(*c) +
                   (c->inconclusive ? "; " + *c->inconclusive : "") + "); the proof holds at level real: " + beforeReason;
      break;
    default: break;
    }
  }
  if (changed) {
    result.reason.clear();
    summarize(result);
  }
}

void describeRunsOfUndecided(CheckResult &result, const EagerEvidence &runs) {
  for (OutputResult &out : result.outputs) {
    if (out.verdict != Verdict::Unknown) continue;
    if (!runs.ran) {
      if (!runs.why.empty()) out.runs = "the code did not run: " + runs.why;
      continue;
    }
    const EagerOutputCheck *c = runs.find(out.name);
    if (!c || c->draws == 0) continue;
    std::string on = std::to_string(c->draws) + " input" + (c->draws == 1 ? "" : "s") +
                     (runs.inputs.empty() ? "" : " (" + runs.inputs + ")") +
                     (runs.reducedShapes ? " at reduced shapes" : "");
    if (c->bitwiseEqual)
      out.runs = "the two functions agree bit for bit on " + on;
    else if (c->beyondRounding)
      out.runs = "the two functions differ beyond rounding on " + on + ": " + howTheyDiffer(*c) + "; " + *c->beyondRounding;
    else if (c->inconclusive)  // Note [Float64 evidence only from float64 runs] in precision.py
      out.runs = "the two functions differ on " + on + ": " + howTheyDiffer(*c) + "; " + *c->inconclusive;
    else
      out.runs = "the two functions agree up to rounding on " + on + ": " + howTheyDiffer(*c);
  }
}

void applyCaptureEvidence(CheckResult &result, const CaptureEvidence &capture) {
  if (capture.eager)
    applyRunEvidence(result, *capture.eager, "running the pair's functions eagerly", reasons::kRunsDifferInBits,
                     /*refutes=*/true);
  auto mutates = [](const std::vector<std::string> &names, const std::string &n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  const std::string suffix = kUpdatedSuffix;
  for (OutputResult &out : result.outputs) {
    if (out.verdict == Verdict::Equivalent || out.name.size() <= suffix.size() ||
        out.name.compare(out.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string input = out.name.substr(0, out.name.size() - suffix.size());
    bool byRef = mutates(capture.referenceMutates, input), byProd = mutates(capture.productionMutates, input);
    if (byRef == byProd) continue;
    out.reason = std::string(byProd ? "production" : "reference") + reasons::kModifiesInput + input + " in place" +
                 (byProd ? "" : ", production does not") + "; " + out.reason;
  }
}

}  // namespace torchtv
