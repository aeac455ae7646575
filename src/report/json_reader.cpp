// Reads back what renderJson wrote: `torchtv ci` runs each pair as a child
// process and gathers the children's JSON into the combined reports.
#include <cmath>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "src/report/report.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

using nlohmann::json;

Verdict verdictOf(const json &j) {
  std::string s = j.get<std::string>();
  for (Verdict v : {Verdict::Equivalent, Verdict::NotEquivalent, Verdict::Unknown, Verdict::Error})
    if (verdictName(v) == s) return v;
  throw InputError("unknown verdict \"" + s + "\" in a JSON result");
}

Level levelOf(const json &j) {
  if (j.is_null()) return Level::None;
  std::string s = j.get<std::string>();
  for (Level l : {Level::Bitwise, Level::Real, Level::Rounded})
    if (levelName(l) == s) return l;
  throw InputError("unknown level \"" + s + "\" in a JSON result");
}

// Non-finite numbers travel as strings (see renderJson).
double numberOf(const json &j) {
  if (j.is_number()) return j.get<double>();
  std::string s = j.get<std::string>();
  if (s == "nan") return NAN;
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  throw InputError("bad number \"" + s + "\" in a JSON result");
}

std::optional<Site> siteOf(const json &j) {
  if (j.is_null()) return std::nullopt;
  Site s{j.at("value").get<std::string>(), j.at("op").get<std::string>(),
         j.at("loc").is_null() ? "" : j.at("loc").get<std::string>()};
  s.run = j.value("run", 0);
  s.runs = j.value("runs", 0);
  return s;
}

// `reason_code` (absent in results written before it was: none, or error for an error).
ReasonCode reasonCodeOf(const json &j, Verdict v) {
  if (auto it = j.find("reason_code"); it != j.end() && it->is_string())
    if (auto c = reasonCodeNamed(it->get<std::string>())) return *c;
  return v == Verdict::Error ? ReasonCode::Error : ReasonCode::None;
}

}  // namespace

CheckResult parseJsonResult(const std::string &text, ReportContext &ctx) {
  try {
    json j = json::parse(text);
    CheckResult r;
    r.verdict = verdictOf(j.at("verdict"));
    r.level = levelOf(j.at("level"));
    r.reason = j.at("reason").get<std::string>();
    r.code = reasonCodeOf(j, r.verdict);
    if (j.contains("roundings")) r.roundings = roundingsFromJson(j.at("roundings"));
    for (const json &o : j.at("outputs")) {
      OutputResult out;
      out.name = o.at("name").get<std::string>();
      out.verdict = verdictOf(o.at("verdict"));
      out.level = levelOf(o.at("level"));
      out.reason = o.at("reason").get<std::string>();
      out.code = reasonCodeOf(o, out.verdict);
      if (o.contains("roundings")) out.roundings = roundingsFromJson(o.at("roundings"));
      out.referenceSite = siteOf(o.at("reference_site"));
      out.productionSite = siteOf(o.at("production_site"));
      if (auto it = o.find("runs"); it != o.end() && it->is_string()) out.runs = it->get<std::string>();
      if (auto it = o.find("to_decide"); it != o.end() && it->is_string()) out.toDecide = it->get<std::string>();
      r.outputs.push_back(out);
    }
    if (const json &c = j.at("counterexample"); !c.is_null()) {
      Counterexample cex;
      for (const json &t : c.at("inputs")) {
        TensorValues tv{t.at("name").get<std::string>(), t.at("type").get<std::string>(), {}};
        for (const json &v : t.at("values")) tv.values.push_back(numberOf(v));
        cex.inputs.push_back(tv);
      }
      cex.output = c.at("output").get<std::string>();
      cex.index = c.at("index").get<std::vector<long long>>();
      if (!c.at("reference_value").is_null()) {  // null: the types differ (Note [Localized type differences])
        cex.referenceValue = numberOf(c.at("reference_value"));
        cex.productionValue = numberOf(c.at("production_value"));
      }
      cex.note = c.at("note").get<std::string>();
      cex.shrunk = c.value("shrunk", "");
      if (const json &d = c.value("first_difference", json(nullptr)); !d.is_null()) {
        IntermediateDifference diff;
        diff.reference = *siteOf(d.at("reference"));
        diff.production = *siteOf(d.at("production"));
        diff.index = d.at("index").get<std::vector<long long>>();
        diff.hasValues = !d.at("reference_value").is_null();
        if (diff.hasValues) {
          diff.referenceValue = numberOf(d.at("reference_value"));
          diff.productionValue = numberOf(d.at("production_value"));
        }
        diff.typeDifference = d.value("type_difference", "");
        cex.firstDifference = diff;
      }
      r.counterexample = cex;
    }
    r.assumptions = j.at("assumptions").get<std::vector<std::string>>();
    if (auto it = j.find("warnings"); it != j.end() && it->is_array()) r.warnings = it->get<std::vector<std::string>>();
    if (const json &e = j.at("error"); !e.is_null() && !e.at("location").is_null())
      r.errorLocation = e.at("location").get<std::string>();
    ctx.version = j.at("torchtv_version").get<std::string>();
    ctx.referencePath = j.at("files").at("reference").get<std::string>();
    ctx.productionPath = j.at("files").at("production").get<std::string>();
    const json &stats = j.at("stats");
    r.stats.referenceNodes = stats.at("reference_nodes").get<size_t>();
    r.stats.productionNodes = stats.at("production_nodes").get<size_t>();
    r.stats.seconds = stats.at("seconds").get<double>();
    return r;
  } catch (const json::exception &e) {
    throw InputError(std::string("not a torchtv JSON result: ") + e.what());
  }
}

}  // namespace torchtv
