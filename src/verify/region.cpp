#include "src/verify/region.h"

#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <unordered_set>

#include "ir/bitwise_faithful.h"
#include "ir/op_registry.h"
#include "src/sem/semantics.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

// A range in a region's key (Note [Index inputs in range]): its bound, the points the reference
// also accepts (Note [Reference kernel domains]), and whether the user declared it (Note [Declared
// input domains]), whose proofs name it apart.
std::string rangeKey(const IndexAssumption &d) {
  std::string s = " < " + std::to_string(d.range.bound);
  for (int64_t p : d.range.alsoDefined) s += "|" + std::to_string(p);
  if (d.declared()) s += " declared";
  return s;
}


constexpr size_t kMaxWidenedTerms = 20000;

// Ops that only move elements: the same tensor read at other indices
// (Note [Op properties] in ir/op_registry.h).
bool isIndexMap(const std::string &op) {
  ElementMap m = opProps(op).elements;
  return m == ElementMap::Reshape || m == ElementMap::Reorder;
}

class Builder {
public:
  Builder(sem::TermContext &tc, const RegionInputs &in, Frontier f, RegionMode m, size_t maxTerms,
          size_t maxExpansions)
      : tc_(tc), in_(in), f_(f), m_(m),
        maxTerms_(maxTerms ? maxTerms : (f == Frontier::Matched ? 0 : kMaxWidenedTerms)),
        maxExpansions_(f == Frontier::Inputs ? 0 : maxExpansions), matrixProducts_(in.matrixProducts) {}

  // Note [Bounded widening]: the level of a shared number is the fewest
  // shared accumulations on a path from a or b down to it, itself included (a
  // 0-1 breadth-first search); a number deeper than the bound is a frontier
  // tensor on both sides, so both read the same values.
  void planExpansions(const Value *a, const Value *b) {
    if (!maxExpansions_) return;
    std::unordered_map<const Value *, size_t> best;
    std::deque<std::pair<const Value *, size_t>> work{{a, 0}, {b, 0}};
    while (!work.empty()) {
      auto [v, level] = work.front();
      work.pop_front();
      auto seen = best.find(v);
      if (seen != best.end() && seen->second <= level) continue;
      best[v] = level;
      bool top = v == a || v == b;
      int number = in_.vn.number(v);
      if (!top && in_.shared.count(number)) {
        auto it = levels_.emplace(number, level).first;
        it->second = std::min(it->second, level);
      }
      if (level > maxExpansions_ || byRule(v, top)) continue;
      for (const Value *operand : v->producer->inputs) {
        if (!operand) continue;
        if (in_.shared.count(in_.vn.number(operand)) && isAccumulation(operand))
          work.emplace_back(operand, level + 1);
        else work.emplace_front(operand, level);
      }
    }
  }

  // A sum of two computed tensors: a link of a residual stream (or of a
  // gradient accumulated over layers), by which a widened region reaches from
  // one layer into the ones before it (Note [Bounded widening]).
  bool isAccumulation(const Value *v) const {
    if (!v->producer || (v->producer->op != "aten::add.Tensor" && v->producer->op != "aten::sub.Tensor")) return false;
    for (const Value *operand : v->producer->inputs)
      if (operand && (in_.constants.count(operand) || operand->type.shape.empty())) return false;
    return true;
  }

  // Whether the region reads v as a frontier tensor (by its number) rather
  // than expanding its definition.
  bool isFrontier(const Value *v, bool top) const {
    // Note [Constants are no frontier]
    if (v->producer && in_.constants.count(v)) return false;
    if (byRule(v, top)) return true;
    int number = in_.vn.number(v);
    if (!maxExpansions_ || top || !in_.shared.count(number)) return false;
    auto level = levels_.find(number);
    return level == levels_.end() || level->second > maxExpansions_;
  }

  sem::TermPtr termOf(const Value *v, const std::vector<sem::IndexExpr> &idx, bool top) {
    int number = in_.vn.number(v);
    if (isFrontier(v, top)) return frontierRead(number, idx, v->type.dtype);
    std::string key = std::to_string(v->id) + "@" + std::to_string(reinterpret_cast<uintptr_t>(v)) + ":";
    for (const auto &e : idx) key += e.key() + ",";
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    if (in_.oversized && in_.oversized->keys.count(oversizedKeyOf(v)))
      throw sem::Unsupported(std::string(reasons::kOversizedDefinition) + " (%" + v->name + ")", sem::Gap::TooLarge);
    size_t termsBefore = tc_.size();
    try {
      sem::TermPtr t = definitionOf(v, idx, number);
      memo_.emplace(key, t);
      return t;
    } catch (const sem::Unsupported &) {
      if (in_.oversized && tc_.size() - termsBefore >= in_.oversized->minTerms) in_.oversized->keys.insert(oversizedKeyOf(v));
      throw;
    }
  }

  // v's own definition at idx, its operands read by this region's rules.
  sem::TermPtr definition(const Value *v, const std::vector<sem::IndexExpr> &idx) {
    return definitionOf(v, idx, in_.vn.number(v));
  }

  // The frontier tensors read that hold indices (Note [Index inputs in range]).
  const std::map<int, IndexAssumption> &indexDomains() const { return indexReads_; }

private:
  // Note [Oversized definitions]: v's definition in this kind of region.
  std::string oversizedKeyOf(const Value *v) const {
    return std::to_string(static_cast<int>(f_)) + "|" + std::to_string(static_cast<int>(m_)) + "|" +
           std::to_string(maxExpansions_) + "|" + std::to_string(reinterpret_cast<uintptr_t>(v));
  }

  sem::TermPtr definitionOf(const Value *v, const std::vector<sem::IndexExpr> &idx, int number) {
    const Node &n = *v->producer;
    sem::TermPtr t = sem::opTerm(tc_, n, v->outputIndex, idx, [&](int k, const std::vector<sem::IndexExpr> &at) {
      const Value *operand = n.inputs.at(k);
      if (!operand) throw sem::Unsupported(n.op + ": operand " + std::to_string(k) + " is None");
      return termOf(operand, at, false);
    });
    // Note [Bitwise regions]; Note [Bitwise-faithful semantics] in ir/bitwise_faithful.h.
    if (m_ == RegionMode::Bitwise && (t->height > 0 || !bitwiseFaithful(n)))
      t = frontierRead(number, idx, v->type.dtype);
    // A widened region of a deep model can grow past what the normal form and
    // memory bear (Note [Widening the frontier]): give up on it, saying so.
    if (maxTerms_ && tc_.size() > maxTerms_)
      throw sem::Unsupported(std::string(f_ == Frontier::Matched ? "the region" : "the widened region") +
                             " grew past " + std::to_string(maxTerms_) + " terms", sem::Gap::TooLarge);
    return t;
  }

  sem::TermPtr frontierRead(int number, const std::vector<sem::IndexExpr> &idx, DType dtype) {
    if (in_.indexDomains)
      if (auto it = in_.indexDomains->find(number); it != in_.indexDomains->end()) indexReads_.emplace(*it);
    return tc_.read(number, idx, dtype);
  }

  // A frontier by the kind of frontier alone: a graph input, or a shared value
  // that this kind stops at.
  bool byRule(const Value *v, bool top) const {
    if (!v->producer) return true;
    int number = in_.vn.number(v);
    if (top || !in_.shared.count(number)) return false;
    bool product = matrixProducts_.count(number) != 0;
    switch (f_) {
    case Frontier::Matched: return true;
    case Frontier::MatmulOutputs: return product;
    case Frontier::ThroughProducts: return !product;
    case Frontier::ThroughViews: return !product && !isIndexMap(v->producer->op);
    case Frontier::Inputs: return false;
    case Frontier::ThroughIndices: return !readsOnlyIndices(v);
    }
    return true;
  }

  // Note [Frontier through index values]: v's cone reads no floating graph input.
  bool readsOnlyIndices(const Value *v) const {
    auto it = indexOnly_.find(v);
    if (it != indexOnly_.end()) return it->second;
    bool only = v->producer ? true : !isFloating(v->type.dtype);
    if (v->producer)
      for (const Value *operand : v->producer->inputs)
        if (operand && !readsOnlyIndices(operand)) {
          only = false;
          break;
        }
    indexOnly_.emplace(v, only);
    return only;
  }

  sem::TermContext &tc_;
  const RegionInputs &in_;
  Frontier f_;
  RegionMode m_;
  size_t maxTerms_;
  size_t maxExpansions_;
  std::unordered_map<int, size_t> levels_;  // of shared numbers, by planExpansions
  // A number stands for a matrix product when either graph computes it by
  // one: both sides then stop at it, also where the other graph's value of
  // that number is a view of a product or a cut point (Note [Cut points]).
  const std::unordered_set<int> &matrixProducts_;
  std::map<std::string, sem::TermPtr> memo_;
  std::map<int, IndexAssumption> indexReads_;
  mutable std::unordered_map<const Value *, bool> indexOnly_;
};

// A linear, canonical serialization of a term DAG.
class KeyWriter {
public:
  explicit KeyWriter(const sem::TermContext &tc) : tc_(tc) {}
  int visit(sem::TermPtr t) {
    auto it = local_.find(t->id);
    if (it != local_.end()) return it->second;
    std::string line = std::string(sem::topName(t->op)) + ":" + std::string(dtypeName(t->dtype)) + "(";
    for (sem::TermPtr a : t->args) line += std::to_string(visit(a)) + ",";
    line += ")";
    if (t->op == sem::TOp::Read) {
      auto s = slots_.emplace(t->slot, static_cast<int>(slots_.size())).first;
      line += "s" + std::to_string(s->second);
    }
    // Everything else that identifies the term, with variables printed by their
    // canonical names (output dims and binders are canonical).
    // (Every digit of a constant: 1e-7 and 1e-8 are different obligations,
    // in this run's memo and in the persistent cache: Note [Proof cache].)
    char num[32];
    std::snprintf(num, sizeof num, "%.17g", t->num);
    line += "{" + std::string(num) + "," + std::to_string(t->inum) + ",";
    for (const auto &e : t->index) line += e.str(tc_.vars) + ";";
    if (sem::isReduction(t->op)) line += tc_.vars.name(t->binder) + "<" + t->extent.str() + ">" + t->origin;
    line += "}";
    int id = static_cast<int>(local_.size());
    local_.emplace(t->id, id);
    out_ += std::to_string(id) + "=" + line + "\n";
    return id;
  }
  const std::string &text() const { return out_; }
  // The frontier slots' ranges (Note [Index inputs in range]), by the slots' renumbered ids:
  // a proof under them is another obligation than one without.
  std::string domainsText(const std::map<int, IndexAssumption> &domains) const {
    std::string s;
    for (const auto &[slot, d] : domains)
      if (auto it = slots_.find(slot); it != slots_.end())
        s += "index s" + std::to_string(it->second) + rangeKey(d) + "\n";
    return s;
  }

private:
  const sem::TermContext &tc_;
  std::map<int, int> local_;
  std::map<int, int> slots_;
  std::string out_;
};

// Note [Region keys from the graph]: the values a region expands and the
// frontier values it reads, in the order the terms are built, with frontier
// numbers renumbered by first use.
class GraphKeyWriter {
public:
  GraphKeyWriter(const Builder &b, const ValueNumbering &vn, const IndexDomains *domains)
      : b_(b), vn_(vn), domains_(domains) {}
  int visit(const Value *v, bool top) {
    auto it = ids_.find(v);
    if (it != ids_.end()) return it->second;
    std::string line;
    if (b_.isFrontier(v, top)) {
      auto slot = slots_.emplace(vn_.number(v), static_cast<int>(slots_.size())).first;
      line = "read s" + std::to_string(slot->second) + ":" + v->type.str();
      if (domains_)  // Note [Index inputs in range]
        if (auto it = domains_->find(vn_.number(v)); it != domains_->end()) line += rangeKey(it->second);
    } else {
      const Node &n = *v->producer;
      std::vector<int> operands;
      for (const Value *operand : n.inputs) operands.push_back(operand ? visit(operand, false) : -1);
      // Everything a semantics handler reads (sem::OpEnv): the op, its
      // attributes, the types of its results, and its operands (whose types
      // their own lines hold).
      line = n.op + "#" + std::to_string(v->outputIndex) + "{" + attributesKey(n.attrs) + "}->";
      for (const Value *out : n.outputs) line += out->type.str() + ",";
      line += "(";
      for (int o : operands) line += std::to_string(o) + ",";
      line += ")";
    }
    int id = static_cast<int>(ids_.size());
    ids_.emplace(v, id);
    out_ += std::to_string(id) + "=" + line + "\n";
    return id;
  }
  const std::string &text() const { return out_; }

private:
  const Builder &b_;
  const ValueNumbering &vn_;
  const IndexDomains *domains_;
  std::unordered_map<const Value *, int> ids_;
  std::map<int, int> slots_;
  std::string out_;
};

}  // namespace

bool isMatrixProduct(const std::string &op) { return opProps(op).matrixProduct; }

void addMatrixProductNumbers(const Graph &g, const ValueNumbering &vn, std::unordered_set<int> &out) {
  for (const auto &n : g.nodes())
    if (isMatrixProduct(n->op))
      for (const Value *v : n->outputs) out.insert(vn.number(v));
}

void addConstantValues(const Graph &g, std::unordered_set<const Value *> &out) {
  for (const auto &n : g.nodes()) {
    bool constant = true;
    for (const Value *v : n->inputs) constant = constant && (!v || out.count(v));
    if (constant) out.insert(n->outputs.begin(), n->outputs.end());
  }
}

Region buildRegion(sem::TermContext &tc, const RegionInputs &in, const Value *a, const Value *b, Frontier frontier,
                   RegionMode mode, size_t maxTerms, size_t maxExpansions) {
  // Output coordinates are canonical variables (family 2, by position), so
  // repeated layers produce identical keys.
  std::vector<sem::IndexExpr> idx;
  for (size_t d = 0; d < a->type.shape.size(); ++d)
    idx.push_back(sem::IndexExpr::var(tc.vars.canonical(2, static_cast<int>(d), a->type.shape[d])));
  Builder builder(tc, in, frontier, mode, maxTerms, maxExpansions);
  builder.planExpansions(a, b);
  Region r;
  r.reference = builder.termOf(a, idx, true);
  r.production = builder.termOf(b, idx, true);
  KeyWriter w(tc);
  int x = w.visit(r.reference), y = w.visit(r.production);
  r.indexDomains = builder.indexDomains();
  r.key = std::string(mode == RegionMode::Bitwise ? "B" : "R") + std::to_string(x) + "/" + std::to_string(y) + "\n" +
          w.text() + w.domainsText(r.indexDomains);
  return r;
}

sem::TermPtr frontierDefinition(sem::TermContext &tc, const RegionInputs &in, Frontier frontier, int number,
                                const std::vector<sem::IndexExpr> &index, bool indexMapsOnly) {
  // a value that computes the number, the reference's first (a graph input's number has none)
  for (const Graph *g : {&in.reference, &in.production})
    for (const auto &n : g->nodes())
      for (const Value *v : n->outputs)
        if (in.vn.has(v) && in.vn.number(v) == number) {
          if (indexMapsOnly && !isIndexMap(n->op)) return nullptr;
          Builder builder(tc, in, frontier, RegionMode::Real, std::numeric_limits<size_t>::max(), 0);
          return builder.definition(v, index);
        }
  return nullptr;
}

std::string regionGraphKey(const RegionInputs &in, const Value *a, const Value *b, Frontier frontier, RegionMode mode,
                           size_t maxExpansions) {
  sem::TermContext unused;  // the builder's plan reads no terms
  Builder builder(unused, in, frontier, mode, 0, maxExpansions);
  builder.planExpansions(a, b);
  GraphKeyWriter w(builder, in.vn, in.indexDomains);
  int x = w.visit(a, true), y = w.visit(b, true);
  return std::string("graph ") + (mode == RegionMode::Bitwise ? "B" : "R") + std::to_string(static_cast<int>(frontier)) +
         "/" + std::to_string(maxExpansions) + " " + std::to_string(x) + "/" + std::to_string(y) + "\n" + w.text();
}

}  // namespace torchtv
