// Phrases that several report formats share, so that they say the same thing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/report/report.h"
#include "src/verify/verdict.h"

namespace torchtv {

// "equivalent (bitwise)", "not_equivalent", ...
std::string verdictWithLevel(Verdict v, Level l);
// "40 outputs: 38 proven, 2 refuted, 0 unknown"
std::string countsText(const CheckResult &r);
// "%t3 = aten::mul.Tensor (model.py:12)", "%t9 = aten::mul.Tensor (model.py:12, run 3 of 8 of this line)"
std::string siteText(const Site &s);

// Note [One alert per cause]
// One bug upstream of many outputs is one finding: a wrong attention scale in a
// 4-layer train step refuted 21 of its 25 outputs, and each format said so 21
// times, none at the planted line (issue 36). The outputs that are not proven
// are grouped by where production diverges: its source line (a loop's every
// run of one line is one cause), else its node, else the output stands alone.
// For the counterexample's output, and every output that diverges where it
// does, the cause is the first differing intermediate (evaluated on the
// counterexample: evidence, where the unmatched node is structure) when that
// has a source line. Groups holding a refuted output come first (a refutation
// is evidence of a bug; an unknown one of a limit), then in output order. Every
// format gives one alert per group, at the cause's line, with the group's
// outputs under it; JUnit keeps one testcase per output (a gate counts them)
// and names the cause in each.
struct CauseGroup {
  std::optional<Site> production, reference;  // where each side diverges; none: no site known
  std::vector<const OutputResult *> outputs;  // not proven, in output order
  Verdict verdict = Verdict::Unknown;         // the worst of theirs
};
std::vector<CauseGroup> causeGroups(const CheckResult &r);
// "3 outputs: loss (not_equivalent), grad_w (not_equivalent), ... (1 more)", names cut at `maxNamed`.
std::string groupedOutputsText(const CauseGroup &g, size_t maxNamed = 12);
// The counterexample as lines of text: output, index, both values, inputs
// (each shortened to `maxValues` values).
std::string counterexampleText(const Counterexample &c, size_t maxValues = 16);
// "[2,0]"
std::string indexText(const std::vector<long long> &index);
// "first differing intermediate: production %x = op at f:l is V at [i] where reference ..."
std::string firstDifferenceText(const IntermediateDifference &d);
// A node's constant arguments, "name=value, ..." (None ones left out unless
// `withNone`), cut to `maxChars` with "..." (0: whole).
std::string attributesText(const Node &n, size_t maxChars = 0, bool withNone = true);
// A counterexample input's values (Note [Counterexample inputs as text]): "[1, 2, 3, ... (61 more)]",
// or, for a large tensor of mostly zeros, "3 of 128 entries non-zero: [0,1,5]=0.5, ...".
std::string inputValuesText(const TensorValues &t, size_t maxValues);

// `text` cut to at most `maxChars` bytes ending in "..." when it is longer, never inside a UTF-8
// character (reasons quote users' names and files).
std::string shortened(const std::string &text, size_t maxChars);

// An undecided output's evidence, every format's lines: "runs of the code: ..." where it carries
// what the runs showed (Note [Evidence of undecided outputs] in src/verify/cross_check.h), and "to
// decide it: ..." where something the user sets would decide it (Note [What would decide it] in
// src/verify/obstacle.h); none for an output with neither.
std::vector<std::string> undecidedLines(const OutputResult &o);
// Those lines, each after `separator`.
std::string undecidedText(const OutputResult &o, const std::string &separator);

// What a single check is called where a name is needed (a JUnit suite): a pair file's or one-file
// pair's stem ("layernorm_train"), "ref vs prod" for two graph files, "check" without paths.
std::string pairDisplayName(const ReportContext &ctx);

// A "file:line" or "file:line:col" location taken apart; line 0 when absent.
struct FileLine {
  std::string file;
  int line = 0;
  int col = 0;
};
FileLine parseFileLine(const std::string &loc);

}  // namespace torchtv
