#include "src/verify/cut_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "src/match/value_numbering.h"
#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"
#include "src/verify/persistent_proofs.h"

namespace torchtv {

namespace {

// Bumped whenever what a digest holds, or the search's rules, change (Note [Cut search record]).
constexpr const char *kRecordFormat = "torchtv-cut-record 3";

}  // namespace

CutRecord::CutRecord(const Graph &ref, const Graph &prod, const ProverLimits &limits) : limits_(limits) {
  if (!limits.cache || !limits.cache->usable()) return;
  for (const Value *v : ref.inputs()) refValues_.push_back(v);
  for (const auto &n : ref.nodes())
    for (const Value *v : n->outputs) refValues_.push_back(v);
  for (size_t i = 0; i < refValues_.size(); ++i) refIndex_[refValues_[i]] = static_cast<long>(i);
  // The reference as the search sees it: nodes in order by operation, operand positions and result
  // types (names and source locations, which differ between two captures of one model, take no part;
  // input names do: the index ranges' assumptions name them).
  std::string text = "inputs";
  for (const Value *v : ref.inputs()) text += " %" + v->name + ":" + v->type.str();
  for (const Value *v : prod.inputs()) text += " " + v->type.str();
  for (const auto &n : ref.nodes()) {
    std::vector<int> operands;
    for (const Value *v : n->inputs) operands.push_back(v ? static_cast<int>(refIndex_.at(v)) : -1);
    text += "\n" + operationKey(*n, std::move(operands));
    for (const Value *v : n->outputs) text += " " + v->type.str();
  }
  text += "\noutputs";  // they decide the reference's post-dominators
  for (const Value *v : ref.outputs()) text += " " + std::to_string(refIndex_.at(v));
  // Hashed once: the store hashes its key on the lookup and again on the store.
  key_ = cache::sha256Hex(persistentKey(std::string(kRecordFormat) + "\n" + text, Widening::AroundProducts, limits));
  std::optional<std::string> payload = limits.cache->lookup(key_, cache::EntryKind::CutRecord);
  if (!payload) return;
  try {
    nlohmann::json j = nlohmann::json::parse(*payload);
    runs_ = j.at("runs").get<long>();
    for (const auto &[k, d] : j.at("decisions").items()) {
      Stored c;
      c.decision.reference = d.at(0).get<long>();
      c.lastRun = d.at(1).get<long>();
      if (c.decision.reference >= static_cast<long>(refValues_.size())) {  // not this reference's: a miss
        stored_.clear();
        return;
      }
      stored_.emplace(k, c);
    }
  } catch (const nlohmann::json::exception &) {
    stored_.clear();  // intact but unreadable: another version's layout, a miss
    runs_ = 0;
  }
}

void CutRecord::step(const Node &node, const ValueNumbering &vn, const std::unordered_set<int> &referenceNumbers) {
  if (!on()) return;
  // Only values without a reference number need a digest: a shared operand is written as its number.
  auto shared = [&](const Value *v) { return referenceNumbers.count(vn.number(v)) != 0; };
  if (std::all_of(node.outputs.begin(), node.outputs.end(), shared)) return;
  std::vector<std::string> operands;
  for (const Value *v : node.inputs) {
    if (!v) {
      operands.push_back("-");
    } else if (shared(v)) {
      operands.push_back(std::to_string(vn.number(v)));
    } else {
      auto it = cone_.find(v);
      if (it == cone_.end()) return;  // an operand without a digest: no key, nothing replayed
      operands.push_back("@" + it->second);
    }
  }
  if (isBitwiseCommutative(node)) std::sort(operands.begin(), operands.end());
  std::string text = node.op + "(";
  for (const std::string &o : operands) text += o + ",";
  text += "){" + attributesKey(node.attrs) + "}";
  for (const Value *v : node.outputs)
    if (!shared(v)) cone_[v] = cache::sha256Hex(text + "#" + std::to_string(v->outputIndex) + ":" + v->type.str());
}

std::string CutRecord::decisionKey(const Value *p, bool interior) const {
  auto it = cone_.find(p);
  return it == cone_.end() ? std::string() : it->second + (interior ? ":interior" : ":top");
}

std::optional<CutDecision> CutRecord::replay(const std::string &key) const {
  auto it = stored_.find(key);
  if (key.empty() || it == stored_.end()) return std::nullopt;
  return it->second.decision;
}

void CutRecord::record(const std::string &key, const CutDecision &d, bool searched) {
  if (!on() || key.empty()) return;
  made_.insert_or_assign(key, d);
  if (searched) ++searched_;
}

const Value *CutRecord::referenceValue(long i) const {
  return i >= 0 && i < static_cast<long>(refValues_.size()) ? refValues_[static_cast<size_t>(i)] : nullptr;
}

long CutRecord::indexOf(const Value *v) const {
  auto it = refIndex_.find(v);
  return it == refIndex_.end() ? -1 : it->second;
}

void CutRecord::save() {
  if (!on() || searched_ == 0) return;
  const long run = runs_ + 1;
  nlohmann::json decisions = nlohmann::json::object();
  // Note [Cut record pruning]: a stored decision that no run among the last kKeptRuns used is dropped.
  for (const auto &[k, s] : stored_)
    if (!made_.count(k) && run - s.lastRun < kKeptRuns) decisions[k] = {s.decision.reference, s.lastRun};
  for (const auto &[k, d] : made_) decisions[k] = {d.reference, run};  // this run's replace the stored ones
  limits_.cache->store(key_, nlohmann::json{{"runs", run}, {"decisions", decisions}}.dump(), cache::EntryKind::CutRecord);
}

}  // namespace torchtv
