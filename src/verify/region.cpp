#include "src/verify/region.h"

#include <functional>
#include <map>
#include <unordered_set>

#include "src/sem/semantics.h"

namespace torchtv {

namespace {

constexpr size_t kMaxWidenedTerms = 20000;

bool isMatrixProduct(const std::string &op) {
  return op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul" || op == "aten::linear" ||
         op == "aten::addmm" || op == "aten::dot";
}

// Ops that only move elements: the same tensor read at other indices.
bool isIndexMap(const std::string &op) {
  static const std::unordered_set<std::string> ops = {
      "aten::view",    "aten::reshape",   "aten::_unsafe_view", "aten::_reshape_alias", "aten::expand",
      "aten::permute", "aten::transpose.int", "aten::t",         "aten::unsqueeze",     "aten::squeeze",
      "aten::squeeze.dim", "aten::squeeze.dims", "aten::slice.Tensor", "aten::select.int"};
  return ops.count(op) != 0;
}

class Builder {
public:
  Builder(sem::TermContext &tc, const RegionInputs &in, Frontier f, RegionMode m, size_t maxTerms)
      : tc_(tc), in_(in), f_(f), m_(m),
        maxTerms_(maxTerms ? maxTerms : (f == Frontier::Matched ? 0 : kMaxWidenedTerms)) {
    // A number stands for a matrix product when either graph computes it by
    // one: both sides then stop at it, also where the other graph's value of
    // that number is a view of a product or a cut point (Note [Cut points]).
    if (f == Frontier::Matched || f == Frontier::Inputs) return;
    for (const Graph *g : {&in.reference, &in.production})
      for (const auto &n : g->nodes())
        if (isMatrixProduct(n->op))
          for (const Value *out : n->outputs) matrixProducts_.insert(in.vn.number(out));
  }

  sem::TermPtr termOf(const Value *v, const std::vector<sem::IndexExpr> &idx, bool top) {
    int number = in_.vn.number(v);
    bool shared = !top && in_.shared.count(number);
    bool frontier = !v->producer || (shared && f_ == Frontier::Matched) ||
                    (shared && f_ == Frontier::MatmulOutputs && matrixProducts_.count(number)) ||
                    (shared && f_ == Frontier::ThroughProducts && !matrixProducts_.count(number)) ||
                    (shared && f_ == Frontier::ThroughViews && !matrixProducts_.count(number) &&
                     !isIndexMap(v->producer->op));
    if (frontier) return tc_.read(number, idx, v->type.dtype);
    std::string key = std::to_string(v->id) + "@" + std::to_string(reinterpret_cast<uintptr_t>(v)) + ":";
    for (const auto &e : idx) key += e.key() + ",";
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const Node &n = *v->producer;
    sem::TermPtr t = sem::opTerm(tc_, n, v->outputIndex, idx, [&](int k, const std::vector<sem::IndexExpr> &at) {
      const Value *operand = n.inputs.at(k);
      if (!operand) throw sem::Unsupported(n.op + ": operand " + std::to_string(k) + " is None");
      return termOf(operand, at, false);
    });
    if (m_ == RegionMode::Bitwise && t->height > 0) t = tc_.read(number, idx, v->type.dtype);
    // A widened region of a deep model can grow past what the normal form and
    // memory bear (Note [Widening the frontier]): give up on it, saying so.
    if (maxTerms_ && tc_.size() > maxTerms_)
      throw sem::Unsupported(std::string(f_ == Frontier::Matched ? "the region" : "the widened region") +
                             " grew past " + std::to_string(maxTerms_) + " terms");
    memo_.emplace(key, t);
    return t;
  }

private:
  sem::TermContext &tc_;
  const RegionInputs &in_;
  Frontier f_;
  RegionMode m_;
  size_t maxTerms_;
  std::unordered_set<int> matrixProducts_;
  std::map<std::string, sem::TermPtr> memo_;
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
    line += "{" + std::to_string(t->num) + "," + std::to_string(t->inum) + ",";
    for (const auto &e : t->index) line += e.str(tc_.vars) + ";";
    if (sem::isReduction(t->op)) line += tc_.vars.name(t->binder) + "<" + t->extent.str() + ">" + t->origin;
    line += "}";
    int id = static_cast<int>(local_.size());
    local_.emplace(t->id, id);
    out_ += std::to_string(id) + "=" + line + "\n";
    return id;
  }
  const std::string &text() const { return out_; }

private:
  const sem::TermContext &tc_;
  std::map<int, int> local_;
  std::map<int, int> slots_;
  std::string out_;
};

}  // namespace

Region buildRegion(sem::TermContext &tc, const RegionInputs &in, const Value *a, const Value *b, Frontier frontier,
                   RegionMode mode, size_t maxTerms) {
  // Output coordinates are canonical variables (family 2, by position), so
  // repeated layers produce identical keys.
  std::vector<sem::IndexExpr> idx;
  for (size_t d = 0; d < a->type.shape.size(); ++d)
    idx.push_back(sem::IndexExpr::var(tc.vars.canonical(2, static_cast<int>(d), a->type.shape[d])));
  Builder builder(tc, in, frontier, mode, maxTerms);
  Region r;
  r.reference = builder.termOf(a, idx, true);
  r.production = builder.termOf(b, idx, true);
  KeyWriter w(tc);
  int x = w.visit(r.reference), y = w.visit(r.production);
  r.key = std::string(mode == RegionMode::Bitwise ? "B" : "R") + std::to_string(x) + "/" + std::to_string(y) + "\n" +
          w.text();
  return r;
}

}  // namespace torchtv
