#include <cmath>

#include <nlohmann/json.hpp>

#include "src/report/describe.h"
#include "src/report/report.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

using nlohmann::json;

json levelJson(Level l) { return l == Level::None ? json(nullptr) : json(std::string(levelName(l))); }

json siteJson(const std::optional<Site> &s) {
  if (!s) return nullptr;
  json j = {{"value", s->value}, {"op", s->op}, {"loc", s->loc.empty() ? json(nullptr) : json(s->loc)}};
  if (s->runs > 1) j["run"] = s->run, j["runs"] = s->runs;  // Note [Runs of a line] in src/verify/localize.h
  return j;
}

// JSON has no NaN or infinity: such values are written as strings.
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json firstDifferenceJson(const std::optional<IntermediateDifference> &d) {
  if (!d) return nullptr;
  // Outputs whose types differ: the types are the difference, no values (Note [Localized type differences]).
  return {{"reference", siteJson(d->reference)},
          {"production", siteJson(d->production)},
          {"index", d->index},
          {"reference_value", d->hasValues ? number(d->referenceValue) : json(nullptr)},
          {"production_value", d->hasValues ? number(d->productionValue) : json(nullptr)},
          {"type_difference", d->typeDifference}};
}

json counterexampleJson(const std::optional<Counterexample> &c) {
  if (!c) return nullptr;
  json inputs = json::array();
  for (const TensorValues &t : c->inputs) {
    json values = json::array();
    for (double v : t.values) values.push_back(number(v));
    inputs.push_back({{"name", t.name}, {"type", t.type}, {"values", values}});
  }
  const bool typesOnly = c->firstDifference && !c->firstDifference->hasValues;
  return {{"inputs", inputs},
          {"output", c->output},
          {"index", c->index},
          {"reference_value", typesOnly ? json(nullptr) : number(c->referenceValue)},
          {"production_value", typesOnly ? json(nullptr) : number(c->productionValue)},
          {"note", c->note},
          {"shrunk", c->shrunk},
          {"first_difference", firstDifferenceJson(c->firstDifference)}};
}

}  // namespace

std::string renderJson(const CheckResult &r, const ReportContext &ctx) {
  json outputs = json::array();
  for (const OutputResult &o : r.outputs) {
    outputs.push_back({{"name", o.name},
                       {"verdict", std::string(verdictName(o.verdict))},
                       {"level", levelJson(o.level)},
                       {"reason", o.reason},
                       {"reason_code", std::string(reasonCodeName(o.code))},
                       {"roundings", roundingsJson(o.roundings)},
                       {"reference_site", siteJson(o.referenceSite)},
                       {"production_site", siteJson(o.productionSite)}});
    if (!o.runs.empty()) outputs.back()["runs"] = o.runs;  // Note [Evidence of undecided outputs]
    if (!o.toDecide.empty()) outputs.back()["to_decide"] = o.toDecide;  // Note [What would decide it]
  }
  // Note [One alert per cause] in src/report/describe.h.
  json causes = json::array();
  for (const CauseGroup &g : causeGroups(r)) {
    json names = json::array();
    for (const OutputResult *o : g.outputs) names.push_back(o->name);
    causes.push_back({{"verdict", std::string(verdictName(g.verdict))},
                      {"reference_site", siteJson(g.reference)},
                      {"production_site", siteJson(g.production)},
                      {"outputs", names}});
  }
  json j = {
      {"torchtv_version", ctx.version},
      {"verdict", std::string(verdictName(r.verdict))},
      {"level", levelJson(r.level)},
      {"reason", r.reason},
      {"reason_code", std::string(reasonCodeName(r.code))},
      {"exit_code", exitCode(r.verdict)},
      {"outputs", outputs},
      {"causes", causes},
      {"counterexample", counterexampleJson(r.counterexample)},
      {"assumptions", r.assumptions},
      {"warnings", r.warnings},
      {"roundings", roundingsJson(r.roundings)},
      {"error", r.verdict == Verdict::Error
                    ? json{{"message", r.reason},
                           {"location", r.errorLocation.empty() ? json(nullptr) : json(r.errorLocation)}}
                    : json(nullptr)},
      {"files", {{"reference", ctx.referencePath}, {"production", ctx.productionPath}}},
      {"stats",
       {{"reference_nodes", r.stats.referenceNodes},
        {"production_nodes", r.stats.productionNodes},
        {"seconds", r.stats.seconds},
        {"distinct_proofs", r.stats.distinctProofs},
        {"cache_hits", r.stats.cacheHits},
        {"proof_cache", {{"hits", r.stats.proofCacheHits}, {"misses", r.stats.proofCacheMisses}}},
        {"result_cache", r.stats.resultCache},
        {"cut_points", r.stats.cutPoints},
        {"cut_point_attempts", r.stats.cutPointAttempts},
        {"cut_points_replayed", r.stats.cutPointsReplayed},
        {"solver_queries", r.stats.solverQueries}}},
      {"self_check", r.selfCheck ? json{{"ran", r.selfCheck->ran},
                                        {"agreed", r.selfCheck->agreed},
                                        {"runs", r.selfCheck->runs},
                                        {"detail", r.selfCheck->detail}}
                                 : json(nullptr)},
  };
  return j.dump(2) + "\n";
}

}  // namespace torchtv
