#include "src/verify/result_cache.h"

#include "src/verify/verdict_table.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/attribute.h"
#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"
#include "src/verify/assumption_json.h"
#include "src/verify/persistent_proofs.h"
#include "src/verify/roundings.h"

namespace torchtv {
namespace {

bool runningRefutedAnOutput(const CheckOptions &options) {
  if (!options.capture || !options.capture->eager || !options.capture->eager->ran) return false;
  for (const EagerOutputCheck &o : options.capture->eager->outputs)
    if (o.beyondRounding) return true;
  return false;
}

// Note [Result cache]: a graph as its printed form holds it (names, types, operations and
// attributes, source locations) and its outputs' names, added field by field without printing
// the graph. What repeats (operations, types, attributes, source files) is added once, at the
// end, in a table that the nodes index (source file paths were two fifths of the printed text),
// and operands by the position of their value's definition, whose name is added there.
void addGraph(cache::Sha256 &h, const Graph &g) {
  // Counts and indices fit 4 bytes: a graph has at most maxNodesPerGraph (2^20) nodes (ir/limits.h).
  auto number = [&](size_t n) { h.number(static_cast<uint32_t>(n)); };
  std::unordered_map<std::string, size_t> table;
  std::vector<const std::string *> order;
  auto repeated = [&](const std::string &s) {
    auto it = table.find(s);
    if (it == table.end()) {
      it = table.emplace(s, table.size()).first;
      order.push_back(&it->first);
    }
    number(it->second);
  };
  std::unordered_map<const Value *, size_t> index;  // operands by the order their values were added
  auto operand = [&](const Value *v) {
    auto it = v ? index.find(v) : index.end();
    number(!v ? 0 : it != index.end() ? it->second : UINT32_MAX);  // 0: None
    if (v && it == index.end()) h.field(v->name);  // not defined before its use: by name
  };
  auto value = [&](const Value *v) {
    index.emplace(v, index.size() + 1);
    h.field(v->name);
    repeated(v->type.str());
  };
  h.field(g.name());
  number(g.inputs().size());
  for (const Value *v : g.inputs()) value(v);
  number(g.nodes().size());
  for (const auto &n : g.nodes()) {
    repeated(n->op);
    number(n->outputs.size());
    for (const Value *v : n->outputs) value(v);
    number(n->inputs.size());
    for (const Value *v : n->inputs) operand(v);
    repeated(attributesKey(n->attrs));
    repeated(n->loc.known() ? n->loc.file : "");
    number(n->loc.known() ? static_cast<size_t>(n->loc.line) : 0);
  }
  number(g.outputs().size());
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    operand(g.outputs()[i]);
    h.field(i < g.outputNames().size() ? g.outputNames()[i] : "");
  }
  number(order.size());
  for (const std::string *s : order) h.field(*s);
}

std::string keyOf(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                  const CheckOptions &o) {
  cache::Sha256 h;
  h.add("torchtv-result 5\n" + semanticsVersion() +
        "\nnormalize=" + std::to_string(o.normalization == Normalization::On) +
        " monolithic=" + std::to_string(o.strategy == Strategy::Monolithic) +
        " cuts=" + std::to_string(o.cutPoints == CutPointSearch::On) + " rlimit=" + std::to_string(o.rlimit) +
        " memory=" + std::to_string(o.solverMemoryMB) + "\n");
  for (const std::string &d : o.declaredDomains) h.add("assume " + d + "\n");  // Note [Declared input domains]
  for (const Graph *g : {&origRef, &origProd, &ref, &prod}) addGraph(h, *g);
  return h.hex();
}

}  // namespace

ResultCache::ResultCache(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                         const CheckOptions &options)
    : options_(options) {
  if (options.proofCache && options.proofCache->usable() && !runningRefutedAnOutput(options))
    // Hashed once here: the store hashes its key again on each lookup and store (Note [Result cache]).
    key_ = keyOf(origRef, origProd, ref, prod, options);
}

std::optional<Decision> ResultCache::lookup() {
  if (!on()) return std::nullopt;
  std::optional<std::string> payload = options_.proofCache->lookup(key_);
  if (!payload) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(*payload);
    Decision d;
    for (const auto &o : j.at("outputs")) {
      OutputResult out;
      out.name = o.at("name").get<std::string>();
      // Only equivalent decisions are stored: each output's proof, at its level, and its roundings.
      const std::string level = o.at("level").get<std::string>();
      applyEvidence(out, Evidence::StoredProof,
                    level == "bitwise" ? Level::Bitwise : level == "rounded" ? Level::Rounded : Level::Real);
      out.roundings = roundingsFromJson(o.at("roundings"));
      out.reason = o.at("reason").get<std::string>() + "; " + reasons::kFromProofCache;
      d.result.outputs.push_back(std::move(out));
    }
    d.result.match.reference = j.at("match_reference").get<std::map<std::string, int>>();
    d.result.match.production = j.at("match_production").get<std::map<std::string, int>>();
    d.result.stats.cutPoints = j.at("cut_points").get<size_t>();
    d.realAssumptions = j.at("real_assumptions").get<AssumptionCounts>();
    return d;
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;  // intact but unreadable: another version's layout
  }
}

bool ResultCache::store(const Decision &d) {
  if (!on()) return false;
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputResult &o : d.result.outputs) {
    if (o.verdict != Verdict::Equivalent) return false;
    outputs.push_back({{"name", o.name},
                       {"level", std::string(levelName(o.level))},
                       {"reason", o.reason},
                       {"roundings", roundingsJson(o.roundings)}});
  }
  nlohmann::json j = {{"outputs", outputs},
                      {"match_reference", d.result.match.reference},
                      {"match_production", d.result.match.production},
                      {"cut_points", d.result.stats.cutPoints},
                      {"real_assumptions", d.realAssumptions}};
  options_.proofCache->store(key_, j.dump());
  return true;
}

}  // namespace torchtv
