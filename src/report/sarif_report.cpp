// SARIF 2.1.0 (OASIS), the format code-scanning services read. The schema is
// vendored in third_party/sarif/ and the tests validate our output against it.
#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "src/report/describe.h"
#include "src/report/report.h"
#include "src/report/source_paths.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

using nlohmann::json;

// Note [SARIF rule ids]
// One rule per failing verdict. The ids are stable: code-scanning services
// track alerts by rule id and fingerprint, so renaming one reopens every alert.
struct SarifRule {
  Verdict verdict;
  const char *id;
  const char *name;
  const char *description;
  const char *level;  // SARIF result level
};
const SarifRule kSarifRules[] = {
    {Verdict::NotEquivalent, "TTV001", "NotEquivalent",
     "Production computes a different output than the reference (a counterexample exists).", "error"},
    {Verdict::Unknown, "TTV002", "NotProven",
     "torchtv could neither prove nor refute that the output equals the reference's.", "warning"},
    {Verdict::Error, "TTV003", "InputError", "The pair could not be checked: bad input or usage.", "error"},
};

const SarifRule &ruleFor(Verdict v) {
  for (const SarifRule &r : kSarifRules)
    if (r.verdict == v) return r;
  return kSarifRules[2];
}

int ruleIndex(Verdict v) { return static_cast<int>(&ruleFor(v) - kSarifRules); }

// A path as a URI reference: unreserved characters and '/' stay, the rest is
// percent-encoded (a space, '#', '%', ...).
std::string uriOf(const std::string &path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

const char *const kSrcRoot = "%SRCROOT%";

// Inside the source root: a relative URI against %SRCROOT%; outside: an
// absolute file URI (SARIF 3.4.4: a relative uri needs a uriBaseId).
json artifactLocation(const std::string &file, const std::string &root) {
  std::string path = relativeToRoot(file, root);
  if (isAbsolutePath(path)) return {{"uri", "file://" + uriOf(path)}};
  if (root.empty()) return {{"uri", uriOf(path)}};
  return {{"uri", uriOf(path)}, {"uriBaseId", kSrcRoot}};
}

json physical(const std::string &file, int line, int col, const std::string &root) {
  json loc = {{"artifactLocation", artifactLocation(file, root)}};
  if (line > 0) {
    loc["region"] = {{"startLine", line}};
    if (col > 0) loc["region"]["startColumn"] = col;
  }
  return {{"physicalLocation", loc}};
}

json siteLocation(const Site &s, const std::string &root) {
  FileLine fl = parseFileLine(s.loc);
  json loc = physical(fl.file, fl.line, 0, root);
  loc["message"] = {{"text", siteText(s)}};
  return loc;
}

json makeResult(const NamedResult &nr, Verdict verdict, const std::string &text, const std::string &output) {
  json result = {{"ruleId", ruleFor(verdict).id},
                 {"ruleIndex", ruleIndex(verdict)},
                 {"level", ruleFor(verdict).level},
                 {"message", {{"text", text}}},
                 {"partialFingerprints", {{"torchtvOutput/v1", nr.name + "/" + output}}},
                 {"properties", {{"pair", nr.name}, {"output", output}, {"verdict", std::string(verdictName(verdict))}}}};
  return result;
}

// Note [Expected verdicts] in src/cli/ci_manifest.h: a result the manifest accepts is kept,
// suppressed, as SARIF's viewers (GitHub code scanning) hide suppressed results.
void suppress(json &res, const std::string *accepted) {
  if (accepted) res["suppressions"] = json::array({{{"kind", "external"}, {"justification", *accepted}}});
}

void addPair(const NamedResult &nr, json &results) {
  const CheckResult &r = nr.result;
  const std::string &root = nr.ctx.sourceRoot;
  std::string prefix = nr.name.empty() ? "" : nr.name + ": ";
  if (r.verdict == Verdict::Error) {
    json res = makeResult(nr, Verdict::Error, prefix + "error: " + r.reason, "");
    FileLine fl = parseFileLine(r.errorLocation);
    std::string file = !fl.file.empty() ? fl.file : nr.ctx.productionPath;
    res["locations"] = json::array({physical(file.empty() ? "." : file, fl.line, fl.col, root)});
    results.push_back(res);
    return;
  }
  if (r.outputs.empty() && r.verdict != Verdict::Equivalent) {  // undecided as a whole (time limit)
    json res = makeResult(nr, r.verdict, prefix + std::string(verdictName(r.verdict)) + ": " + r.reason, "");
    res["locations"] = json::array({physical(nr.ctx.productionPath.empty() ? "." : nr.ctx.productionPath, 0, 0, root)});
    suppress(res, nr.acceptedWhy(""));
    results.push_back(res);
    return;
  }
  // One result per cause, its outputs listed (Note [One alert per cause]).
  for (const CauseGroup &g : causeGroups(r)) {
    const OutputResult &first = *g.outputs.front();
    std::string text = prefix + (g.outputs.size() == 1 ? "output " + first.name + " is " +
                                                             verdictWithLevel(first.verdict, first.level) + ": " + first.reason
                                                       : groupedOutputsText(g) + "; output " + first.name + " is " +
                                                             verdictWithLevel(first.verdict, first.level) + ": " +
                                                             first.reason);
    json names = json::array();
    text += undecidedText(first, "\n");
    for (const OutputResult *o : g.outputs) {
      names.push_back(o->name);
      if (r.counterexample && r.counterexample->output == o->name) text += "\n" + counterexampleText(*r.counterexample);
    }
    json res = makeResult(nr, g.verdict, text, first.name);
    res["properties"]["outputs"] = names;
    // Suppressed only when the manifest accepts every output of the cause.
    bool allAccepted = std::all_of(g.outputs.begin(), g.outputs.end(),
                                   [&](const OutputResult *o) { return nr.acceptedWhy(o->name) != nullptr; });
    suppress(res, allAccepted ? nr.acceptedWhy(first.name) : nullptr);
    // The production source line first (where a fix goes), then the graph file.
    json locations = json::array();
    if (g.production && !g.production->loc.empty()) locations.push_back(siteLocation(*g.production, root));
    if (!nr.ctx.productionPath.empty()) locations.push_back(physical(nr.ctx.productionPath, 0, 0, root));
    res["locations"] = locations;
    if (g.reference && !g.reference->loc.empty()) {
      json related = siteLocation(*g.reference, root);
      related["id"] = 1;
      related["message"]["text"] = "reference: " + siteText(*g.reference);
      res["relatedLocations"] = json::array({related});
    }
    results.push_back(res);
  }
}

}  // namespace

std::string renderSarif(const std::vector<NamedResult> &pairs, const std::string &version,
                        const std::string &sourceRoot) {
  json rules = json::array();
  for (const SarifRule &r : kSarifRules)
    rules.push_back({{"id", r.id},
                     {"name", r.name},
                     {"shortDescription", {{"text", r.description}}},
                     {"defaultConfiguration", {{"level", r.level}}}});
  json results = json::array();
  for (const NamedResult &nr : pairs) addPair(nr, results);
  // What the equivalent verdicts relied on (one line per kind, summarizeRealAssumptions): a
  // property of the run, since SARIF results are findings and an assumption is none.
  json assumptions = json::array();
  for (const NamedResult &nr : pairs)
    for (const std::string &a : nr.result.assumptions) assumptions.push_back({{"pair", nr.name}, {"assumes", a}});
  json run = {{"tool",
               {{"driver",
                 {{"name", "torchtv"},
                  {"version", version},
                  {"semanticVersion", version},
                  {"rules", rules}}}}},
              {"results", results}};
  if (!sourceRoot.empty()) {
    // The root's absolute URI ends with '/', so that relative URIs resolve under it.
    std::string uri = "file://" + uriOf(sourceRoot);
    if (uri.back() != '/') uri += '/';
    run["originalUriBaseIds"] = {{kSrcRoot, {{"uri", uri}}}};
  }
  // What level rounded rests on (Note [Equivalence up to rounding]), each site with its line:
  // no finding either, so a property of the run too.
  json roundings = json::array();
  for (const NamedResult &nr : pairs)
    for (json site : roundingsJson(nr.result.roundings)) {
      site["pair"] = nr.name;
      roundings.push_back(std::move(site));
    }
  if (!assumptions.empty()) run["properties"]["assumptions"] = assumptions;
  if (!roundings.empty()) run["properties"]["roundings"] = roundings;
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  return log.dump(2) + "\n";
}

}  // namespace torchtv
