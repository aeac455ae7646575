#include "src/verify/cut_record.h"

#include <nlohmann/json.hpp>

#include "src/match/value_numbering.h"
#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"
#include "src/verify/persistent_proofs.h"

namespace torchtv {

namespace {

// Bumped whenever what a step hashes, or the search's rules, change (Note [Cut search record]).
constexpr const char *kRecordFormat = "torchtv-cut-record 1";

std::string decisionKey(const std::string &digest, size_t index) { return digest + ":" + std::to_string(index); }

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
  key_ = persistentKey(std::string(kRecordFormat) + "\n" + text, Widening::AroundProducts, limits);
  digest_ = cache::sha256Hex(key_);
  std::optional<std::string> payload = limits.cache->lookup(key_);
  if (!payload) return;
  try {
    nlohmann::json j = nlohmann::json::parse(*payload);
    for (const auto &[k, d] : j.at("decisions").items()) {
      CutDecision c;
      c.reference = d.at(0).get<long>();
      c.level = static_cast<Level>(d.at(1).get<int>());
      c.assumptions = d.at(2).get<std::set<std::string>>();
      if (c.reference >= static_cast<long>(refValues_.size())) {  // not this reference's: a miss
        stored_.clear();
        return;
      }
      stored_.emplace(k, std::move(c));
    }
  } catch (const nlohmann::json::exception &) {
    stored_.clear();  // intact but unreadable: another version's layout, a miss
  }
}

void CutRecord::step(const Node &node, const std::string &numberingKey, bool live,
                     const std::unordered_set<const Value *> &outputs, const std::vector<bool> &interior) {
  if (!on()) return;
  std::string text = digest_ + "\n" + numberingKey + (live ? " live" : " dead");
  for (size_t i = 0; i < node.outputs.size(); ++i)
    text += " " + node.outputs[i]->type.str() + (outputs.count(node.outputs[i]) ? " output" : "") +
            (interior[i] ? " interior" : "");
  digest_ = cache::sha256Hex(text);
}

std::optional<CutDecision> CutRecord::replay(size_t index) const {
  auto it = stored_.find(decisionKey(digest_, index));
  if (it == stored_.end()) return std::nullopt;
  return it->second;
}

void CutRecord::record(size_t index, const CutDecision &d, bool searched) {
  if (!on()) return;
  made_.insert_or_assign(decisionKey(digest_, index), d);
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
  nlohmann::json decisions = nlohmann::json::object();
  for (const auto &[k, d] : made_) decisions[k] = nlohmann::json::array({d.reference, static_cast<int>(d.level), d.assumptions});
  limits_.cache->store(key_, nlohmann::json{{"decisions", decisions}}.dump());
}

}  // namespace torchtv
