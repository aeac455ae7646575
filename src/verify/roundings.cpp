#include "src/verify/roundings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "src/verify/cone.h"
#include "src/verify/cut_points.h"
#include "src/verify/verdict_table.h"

namespace torchtv {

double unitRoundoff(DType d) {
  switch (d) {
  case DType::F64: return std::ldexp(1.0, -53);
  case DType::F32: return std::ldexp(1.0, -24);
  case DType::F16: return std::ldexp(1.0, -11);
  case DType::BF16: return std::ldexp(1.0, -8);
  default: return 0;
  }
}

namespace {

// The ops that only convert their input's dtype (the real semantics reads them as the identity).
bool isConversion(const std::string &op) {
  static const std::set<std::string> ops = {"aten::_to_copy",      "aten::to.dtype", "prims::convert_element_type",
                                            "aten::type_as",       "aten::to.device", "aten::to.dtype_layout",
                                            "aten::to.other",      "aten::to.prim_dtype"};
  return ops.count(op) > 0;
}

// A conversion that rounds a floating value to a coarser floating dtype.
bool narrows(const Node &n) {
  if (!isConversion(n.op) || n.inputs.empty() || !n.inputs[0] || n.outputs.empty()) return false;
  DType from = n.inputs[0]->type.dtype, to = n.outputs[0]->type.dtype;
  return isFloating(from) && isFloating(to) && unitRoundoff(to) > unitRoundoff(from);
}

// The narrowing casts in the cone of v, in the order a depth-first walk meets them (each node once).
std::vector<const Node *> narrowingCastsIn(const Value *v) {
  std::vector<const Node *> out;
  forEachNodeInCone(v, [&](const Node &n) {
    if (narrows(n)) out.push_back(&n);
  });
  std::sort(out.begin(), out.end(), [](const Node *a, const Node *b) { return a->outputs[0]->id < b->outputs[0]->id; });
  return out;
}

std::string castText(const Node &n) {
  return std::string(dtypeName(n.inputs[0]->type.dtype)) + " -> " + std::string(dtypeName(n.outputs[0]->type.dtype));
}

// The unit roundoff of the coarsest floating dtype a value in the cone of v has (0: none).
double coarsestRoundoff(const Value *v) {
  double coarsest = 0;
  for (const Value *x : coneValues(v)) coarsest = std::max(coarsest, unitRoundoff(x->type.dtype));
  return coarsest;
}

// The casts of `mine` that round to a dtype the other side never computes in as coarsely (a
// value it keeps wider: autocast's bf16 against an f32 reference, not an f32 upcast cast back
// to the bf16 the reference computes in) and does not make too (matched by dtypes, counted).
std::vector<const Node *> unmatched(const std::vector<const Node *> &mine, const std::vector<const Node *> &theirs,
                                    double theirCoarsest) {
  std::map<std::string, size_t> left;
  for (const Node *n : theirs) ++left[castText(*n)];
  std::vector<const Node *> out;
  for (const Node *n : mine) {
    size_t &count = left[castText(*n)];
    if (count > 0) --count;
    else if (unitRoundoff(n->outputs[0]->type.dtype) > theirCoarsest) out.push_back(n);
  }
  return out;
}

std::string fmt(const char *format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::vector<Rounding> narrowingCastsOnOneSide(const Value *reference, const Value *production) {
  std::vector<const Node *> ref = narrowingCastsIn(reference), prod = narrowingCastsIn(production);
  std::vector<Rounding> out;
  auto add = [&](const std::vector<const Node *> &casts, bool inProduction) {
    for (const Node *n : casts) {
      Rounding r;
      r.kind = Rounding::Kind::NarrowingCast;
      (inProduction ? r.production : r.reference) = castText(*n);
      r.dtype = dtypeName(n->outputs[0]->type.dtype);
      r.loc = n->loc.known() ? n->loc.str() : "";
      r.bound = unitRoundoff(n->outputs[0]->type.dtype);
      addRoundings(out, {r});
    }
  };
  add(unmatched(ref, prod, coarsestRoundoff(production)), false);
  add(unmatched(prod, ref, coarsestRoundoff(reference)), true);
  return out;
}

bool roundedCutInCone(const std::vector<CutPoint> &cuts, const Value *reference, const Value *production) {
  if (std::none_of(cuts.begin(), cuts.end(), [](const CutPoint &c) { return c.level == Level::Rounded; }))
    return false;
  std::unordered_set<const Value *> refCone = coneValues(reference), prodCone = coneValues(production);
  return std::any_of(cuts.begin(), cuts.end(), [&](const CutPoint &c) {
    return c.level == Level::Rounded && (prodCone.count(c.production) || refCone.count(c.reference));
  });
}

void settleRoundedLevels(const Graph &reference, const Graph &production, const std::vector<CutPoint> &cuts,
                         std::vector<OutputResult> &outputs) {
  const bool roundedCuts =
      std::any_of(cuts.begin(), cuts.end(), [](const CutPoint &c) { return c.level == Level::Rounded; });
  for (size_t i = 0; i < outputs.size() && i < production.outputs().size(); ++i) {
    OutputResult &out = outputs[i];
    if (out.verdict != Verdict::Equivalent || (out.level != Level::Real && out.level != Level::Rounded)) continue;
    const Value *ref = reference.outputs()[i], *prod = production.outputs()[i];
    std::vector<Rounding> sites;
    if (roundedCuts) {
      std::unordered_set<const Value *> refCone = coneValues(ref), prodCone = coneValues(prod);
      for (const CutPoint &c : cuts)
        if (c.level == Level::Rounded && (prodCone.count(c.production) || refCone.count(c.reference)))
          addRoundings(sites, c.roundings);
    }
    addRoundings(sites, narrowingCastsOnOneSide(ref, prod));
    std::vector<Rounding> added;
    for (const Rounding &r : sites)
      if (std::find(out.roundings.begin(), out.roundings.end(), r) == out.roundings.end()) added.push_back(r);
    if (added.empty()) continue;
    addRoundings(out.roundings, added);
    applyEvidence(out, Evidence::ProvenRounded);
    out.reason += "; " + describeRoundings(added);
  }
}

void addRoundings(std::vector<Rounding> &into, const std::vector<Rounding> &from) {
  for (const Rounding &r : from)
    if (std::find(into.begin(), into.end(), r) == into.end()) into.push_back(r);
}

std::string describeRounding(const Rounding &r) {
  std::string where = r.loc.empty() ? "" : ", " + r.loc;
  if (r.kind == Rounding::Kind::NarrowingCast) {
    bool inProduction = !r.production.empty();
    return "a cast " + (inProduction ? r.production : r.reference) + " in " +
           (inProduction ? "production" : "reference") + " only" + where + ", rounds by at most " +
           fmt("%.1e", r.bound) + " (relative, the unit roundoff of " + r.dtype + ")";
  }
  return "constants " + r.reference + " (reference) and " + r.production + " (production), computed in " + r.dtype +
         where + ", " + fmt("%.1e", r.bound) + " apart (relative)";
}

std::string describeRoundings(const std::vector<Rounding> &rs, size_t shown) {
  std::string s = reasons::kEqualUpToRounding;
  for (size_t i = 0; i < rs.size() && i < shown; ++i) s += (i ? "; " : "") + describeRounding(rs[i]);
  if (rs.size() > shown) s += "; and " + std::to_string(rs.size() - shown) + " more";
  return s;
}

nlohmann::json roundingsJson(const std::vector<Rounding> &rs) {
  nlohmann::json out = nlohmann::json::array();
  for (const Rounding &r : rs) {
    nlohmann::json j = {{"kind", r.kind == Rounding::Kind::Constants ? "constants" : "narrowing_cast"},
                        {"dtype", r.dtype},
                        {"location", r.loc.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.loc)},
                        {"bound", r.bound},
                        {"description", describeRounding(r)}};
    if (r.kind == Rounding::Kind::Constants) {
      j["reference"] = r.reference;
      j["production"] = r.production;
    } else {
      j["side"] = r.production.empty() ? "reference" : "production";
      j["cast"] = r.production.empty() ? r.reference : r.production;
    }
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<Rounding> roundingsFromJson(const nlohmann::json &j) {
  std::vector<Rounding> out;
  for (const nlohmann::json &x : j) {
    Rounding r;
    r.kind = x.at("kind").get<std::string>() == "constants" ? Rounding::Kind::Constants
                                                           : Rounding::Kind::NarrowingCast;
    r.dtype = x.at("dtype").get<std::string>();
    r.loc = x.at("location").is_null() ? "" : x.at("location").get<std::string>();
    r.bound = x.at("bound").get<double>();
    if (r.kind == Rounding::Kind::Constants) {
      r.reference = x.at("reference").get<std::string>();
      r.production = x.at("production").get<std::string>();
    } else {
      (x.at("side").get<std::string>() == "production" ? r.production : r.reference) = x.at("cast").get<std::string>();
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace torchtv
