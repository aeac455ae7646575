// Renderings of a CheckResult: one file per format.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

struct ReportContext {
  std::string referencePath;
  std::string productionPath;
  std::string version;
  // Files are named relative to it in SARIF and GitHub annotations (Note [Source
  // root]); empty: as given.
  std::string sourceRoot;
  // The graphs that were matched, for the views that draw them (HTML,
  // --explain); null when there are none (errors, results read back from JSON).
  const Graph *reference = nullptr;
  const Graph *production = nullptr;

  // Points the views at the graphs `r` matched: the normalized copies when the
  // check made them (its match map names their values), else `ref` and `prod`.
  void useGraphsOf(const CheckResult &r, const Graph &ref, const Graph &prod) {
    reference = r.comparedReference ? r.comparedReference.get() : &ref;
    production = r.comparedProduction ? r.comparedProduction.get() : &prod;
  }
};

// One decided pair, for the formats that gather many (`torchtv ci`).
struct NamedResult {
  std::string name;
  CheckResult result;
  ReportContext ctx;
  // Outputs the manifest accepts as they are (Note [Expected verdicts] in src/cli/ci_manifest.h):
  // output name -> "expected unknown: WHY"; the name "" is the pair undecided as a whole.
  std::map<std::string, std::string> accepted;

  const std::string *acceptedWhy(const std::string &output) const {
    auto it = accepted.find(output);
    return it == accepted.end() ? nullptr : &it->second;
  }
};

struct TextOptions {
  bool verbose = false;         // -v: one line per proven output
  bool selfCheckAsked = false;  // --self-check was given: say when it did not run
};
// Human-readable summary for the terminal (Note [Text at scale]).
std::string renderText(const CheckResult &r, const ReportContext &ctx, const TextOptions &options = {});
// Machine-readable result; schema in docs/json-output.md.
std::string renderJson(const CheckResult &r, const ReportContext &ctx);
// The inverse of renderJson for what it carries (not the graphs or the match
// map). Throws InputError when the text is not such a result.
CheckResult parseJsonResult(const std::string &text, ReportContext &ctx);

// SARIF 2.1.0: one run, one result per cause of outputs that are not equivalent
// (Note [One alert per cause] in describe.h; and one per errored pair). Rule ids are stable: see kSarifRules in sarif_report.cpp.
// Paths relative to `sourceRoot` carry the uriBaseId %SRCROOT% (Note [Source root]).
std::string renderSarif(const std::vector<NamedResult> &results, const std::string &version,
                        const std::string &sourceRoot = "");
// JUnit XML: one testsuite per pair, one testcase per output.
std::string renderJunit(const std::vector<NamedResult> &results);
// GitHub Actions workflow commands: `::error file=...,line=...::message`, one per cause.
std::string renderGithub(const CheckResult &r, const ReportContext &ctx);

enum class ColorMode { Never, Always };
// Side-by-side text diff of each diverging region, with source lines.
std::string renderExplain(const CheckResult &r, const ReportContext &ctx, ColorMode color);

// Which pairs get an HTML report: every one, those that are not equivalent, none.
enum class ReportWhen { Always, Failures, Never };

struct HtmlOptions {
  // Graphviz's dot; empty: the page shows tables instead of drawn graphs.
  std::string dotPath;
  // Seconds all of the page's drawings may take together (Note [Drawing budget]).
  double dotTimeoutSeconds = 30;
  // Graphs with more nodes than this first show the neighbourhood of the
  // divergence only (Note [Collapsed view]).
  size_t collapseAbove = 60;
  int neighbourhoodRadius = 2;
  // The full drawing of a collapsed graph is added (folded) up to this size.
  size_t fullGraphLimit = 600;
  // A collapsed graph's folded repeats carry their members for the page to
  // expand, up to this many nodes per side (Note [Folded layers]).
  size_t foldedNodeBudget = 20000;
};
// Where dot is: $TORCHTV_DOT if set (empty disables drawing), else PATH.
std::string defaultDotPath();
// A self-contained HTML page (no external resources).
std::string renderHtml(const CheckResult &r, const ReportContext &ctx, const HtmlOptions &options);

}  // namespace torchtv
