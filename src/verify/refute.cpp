#include "src/verify/refute.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <unordered_set>

#include "src/sem/term.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

// Elements computed evaluating `g` (only the cones of `outputs`, when given).
size_t graphElements(const Graph &g, const std::vector<size_t> *outputs) {
  std::vector<bool> wanted(g.outputs().size(), outputs == nullptr);
  if (outputs)
    for (size_t o : *outputs)
      if (o < wanted.size()) wanted[o] = true;
  std::unordered_set<const Node *> live = liveNodes(g, wanted);
  size_t total = 0;
  for (const auto &n : g.nodes()) {
    if (!live.count(n.get())) continue;
    for (const Value *v : n->outputs) total += static_cast<size_t>(numel(v->type.shape).value_or(kEvalBudget));
  }
  return total;
}

enum class IntegerRange { Small, Index, Wide };

long double integerIn(std::mt19937_64 &rng, DType d, IntegerRange range) {
  if (d == DType::Bool) return static_cast<long double>(rng() & 1);
  if (range == IntegerRange::Small) return static_cast<long double>(static_cast<int64_t>(rng() % 11) - 5);
  // In range as an index into any dim of 4 or more (gather, one_hot, scatter,
  // index_put: an index out of range raises, and the evaluator then skips the
  // input, Note [Data-dependent indices]).
  if (range == IntegerRange::Index) return static_cast<long double>(rng() % 4);
  // The full range of the dtype, its boundaries half of the time: integer
  // overflow is PyTorch semantics (it wraps).
  if (rng() % 2 == 0) {
    int bits = dtypeBits(d);
    int64_t hi = bits >= 64 ? INT64_MAX : (d == DType::U8 ? 255 : (int64_t(1) << (bits - 1)) - 1);
    int64_t lo = d == DType::U8 ? 0 : (bits >= 64 ? INT64_MIN : -hi - 1);
    const int64_t picks[] = {lo, hi, hi - 1, lo + 1, 0, 1, -1};
    return static_cast<long double>(sem::wrapToDType(picks[rng() % 7], d));
  }
  return static_cast<long double>(sem::wrapToDType(static_cast<int64_t>(rng()), d));
}

constexpr double kF16Largest = 65504.0;

// The smallest normal value of a floating dtype.
double smallestNormalOf(DType d) {
  switch (d) {
  case DType::F16: return 6.103515625e-05;
  case DType::BF16:
  case DType::F32: return std::numeric_limits<float>::min();
  default: return std::numeric_limits<double>::min();
  }
}

// What an additive mask holds where it masks (Note [Input domains]): -1e9,
// f16's finfo.min in f16.
double maskedValue(DType d) { return sem::roundToDType(d == DType::F16 ? -kF16Largest : -1e9, d); }

// The mask distribution's rows (Note [Input domains]): all kept, all masked,
// exactly one kept, random; which row starts the cycle varies per tensor.
class MaskRows {
public:
  MaskRows(std::mt19937_64 &rng, int64_t row) : rng_(rng), row_(row), phase_(rng() % 4) {}
  bool kept(int64_t i) {
    if (i % row_ == 0) {
      pattern_ = (i / row_ + phase_) % 4;
      one_ = static_cast<int64_t>(rng_() % static_cast<uint64_t>(row_));
    }
    switch (pattern_) {
    case 0: return true;
    case 1: return false;
    case 2: return i % row_ == one_;
    default: return (rng_() & 1) != 0;
    }
  }

private:
  std::mt19937_64 &rng_;
  int64_t row_;
  uint64_t phase_;
  uint64_t pattern_ = 0;
  int64_t one_ = 0;
};

// One value of the edge distribution (Note [Input domains]): +-0, a
// subnormal, near the largest finite value (f16 only: near f32's largest the
// confirmer cannot tell rounding from a difference), the row's previous value
// (a tie), else normal. Never inf or NaN.
double edgeValue(std::mt19937_64 &rng, std::normal_distribution<double> &normal, DType d, double previous) {
  double sign = rng() % 2 ? -1.0 : 1.0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  switch (rng() % 8) {
  case 0: return sign * 0.0;
  case 1: return sign * smallestNormalOf(d) * unit(rng);
  case 2: return d == DType::F16 ? sign * kF16Largest * (1.0 - 0.5 * unit(rng)) : normal(rng);
  case 3: return previous;
  default: return normal(rng);
  }
}

}  // namespace

const char *inputKindName(int kind) {
  static const char *names[] = {"normal",
                                "small integers, indices in range",
                                "tiny values",
                                "large values",
                                "rows of equal values",
                                "special values",
                                "indices and arguments in their domains",
                                "masks (rows all kept, all masked, one kept; additive as 0 or -1e9)",
                                "edge values (+-0, subnormals, ties, f16 near its largest)"};
  return kind >= 0 && kind <= kEdgeKind ? names[kind] : "?";
}

size_t evaluatedElements(const Graph &ref, const Graph &prod, const std::vector<size_t> *outputs) {
  return graphElements(ref, outputs) + graphElements(prod, outputs);
}

bool withinEvalBudget(const Graph &ref, const Graph &prod, const std::vector<size_t> *outputs, size_t budget) {
  return evaluatedElements(ref, prod, outputs) <= budget;
}

std::vector<eval::EvalTensor> randomInputs(const Graph &g, unsigned seed, int kind,
                                           const std::vector<InputDomain> *domains) {
  std::mt19937_64 rng(seed * 7919u + static_cast<unsigned>(kind));
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<eval::EvalTensor> inputs;
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
  for (size_t slot = 0; slot < g.inputs().size(); ++slot) {
    const Value *v = g.inputs()[slot];
    const InputDomain *domain = kind >= kDomainKind && domains ? &domains->at(slot) : nullptr;
    eval::EvalTensor t{v->type, {}};
    auto n = numel(v->type.shape);
    if (!n) throw eval::EvalError("symbolic input shape");
    int64_t row = v->type.shape.empty() || !v->type.shape.back().isConcrete() ? 1 : std::max<int64_t>(v->type.shape.back().size(), 1);
    double rowValue = 0;
    // Constructed for masks only: it draws, and the other kinds' draws stay as they were.
    std::optional<MaskRows> masks;
    if (kind == kMaskKind && (v->type.dtype == DType::Bool || (domain && domain->additiveMask))) masks.emplace(rng, row);
    for (int64_t i = 0; i < *n; ++i) {
      long double x;
      if (masks) {
        bool kept = masks->kept(i);
        x = v->type.dtype == DType::Bool ? (kept ? 1 : 0) : (kept ? 0.0 : maskedValue(v->type.dtype));
      } else if (kind == kEdgeKind && isFloating(v->type.dtype)) {
        double e = edgeValue(rng, normal, v->type.dtype, i % row == 0 ? normal(rng) : rowValue);
        if (domain && domain->positive) e = std::fabs(e);
        rowValue = sem::roundToDType(e, v->type.dtype);
        x = rowValue;
      } else if (domain && domain->indexBound && !isFloating(v->type.dtype)) {
        x = static_cast<long double>(rng() % static_cast<uint64_t>(*domain->indexBound));
        // One element in four at a point the kernel also accepts (ignore_index, padding_idx).
        if (!domain->alsoDrawn.empty() && rng() % 4 == 0)
          x = static_cast<long double>(domain->alsoDrawn[rng() % domain->alsoDrawn.size()]);
      } else if (domain && domain->positive && isFloating(v->type.dtype)) {
        x = sem::roundToDType(std::fabs(normal(rng)) + 1e-2, v->type.dtype);
      } else if (!isFloating(v->type.dtype)) {
        x = integerIn(rng, v->type.dtype,
                      kind == 3 || kind == 5 || kind == kEdgeKind ? IntegerRange::Wide : kind == 1 ? IntegerRange::Index : IntegerRange::Small);
      } else {
        switch (kind) {
        case 1: x = static_cast<double>(static_cast<int64_t>(rng() % 7) - 3); break;
        case 2: x = 1e-3 * normal(rng); break;
        case 3: x = 30 * normal(rng); break;
        case 4:
          if (i % row == 0) rowValue = normal(rng);
          x = rowValue;
          break;
        case 5: x = rng() % 3 == 0 ? specials[rng() % 7] : normal(rng); break;
        default: x = normal(rng); break;
        }
        x = sem::roundToDType(static_cast<double>(x), v->type.dtype);
      }
      t.values.push_back(x);
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

namespace {

// Note [Declared input domains]: an input the user declared a range for is only ever that range;
// a draw (or a model's value) outside it is no counterexample, so it is folded into the range.
// Returns whether an element was outside.
bool foldIntoDeclaredDomains(const Graph &ref, const ReferenceDomains *referenceDomains,
                             std::vector<eval::EvalTensor> &inputs) {
  if (!referenceDomains) return false;
  bool folded = false;
  for (size_t slot = 0; slot < ref.inputs().size() && slot < inputs.size(); ++slot) {
    auto it = referenceDomains->find(ref.inputs()[slot]);
    if (it == referenceDomains->end() || !it->second.declared()) continue;
    const sem::IndexRange &range = it->second.range;
    for (long double &x : inputs[slot].values) {
      auto v = static_cast<int64_t>(x);
      if (range.contains(v)) continue;
      x = static_cast<long double>(((v % range.bound) + range.bound) % range.bound);
      folded = true;
    }
  }
  return folded;
}

}  // namespace

std::vector<Refutation> refuteByRandomInputs(const Graph &ref, const Graph &prod, const std::vector<size_t> &outputs,
                                             CounterexampleConfirmer &confirmer, size_t budget,
                                             const ReferenceDomains *referenceDomains) {
  if (!withinEvalBudget(ref, prod, &outputs, budget)) return {};
  // The domain distribution right after the normal one, where it differs
  // from it; masks and edges last, where there are masks and floats
  // (Note [Input domains]).
  std::vector<InputDomain> domains = inputDomains(ref, referenceDomains);
  std::vector<int> order = {0};
  if (anyDomain(domains)) order.push_back(kDomainKind);
  order.insert(order.end(), {1, 2, 3, 4});
  if (anyMask(ref, domains)) order.push_back(kMaskKind);
  if (std::any_of(ref.inputs().begin(), ref.inputs().end(), [](const Value *v) { return isFloating(v->type.dtype); }))
    order.push_back(kEdgeKind);
  std::vector<Refutation> found;
  std::vector<size_t> open = outputs;
  for (unsigned seed = 0; seed < 2; ++seed) {
    for (int kind : order) {
      std::vector<eval::EvalTensor> inputs;
      try {
        inputs = randomInputs(ref, kRefuteSeed + seed, kind, &domains);
      } catch (const eval::EvalError &) {
        return found;
      }
      foldIntoDeclaredDomains(ref, referenceDomains, inputs);
      // Every output these inputs refute (the confirmer evaluates the graphs once for them all).
      while (auto d = confirmer.confirm(ref, prod, inputs, open)) {
        auto it = std::find(open.begin(), open.end(), d->output);
        if (it == open.end()) return found;  // not one asked about: a confirmer bug, stop searching
        open.erase(it);
        found.push_back(Refutation{*d, inputs, "seeded random inputs (seed " + std::to_string(kRefuteSeed + seed) +
                                                   ", " + inputKindName(kind) + ")"});
        if (open.empty()) return found;
      }
    }
  }
  return found;
}

std::optional<Refutation> refuteByModel(const Graph &ref, const Graph &prod, const std::vector<size_t> &outputs,
                                        const std::vector<smt::ModelRead> &model, CounterexampleConfirmer &confirmer,
                                        const ReferenceDomains *referenceDomains) {
  std::vector<eval::EvalTensor> inputs;
  try {
    inputs = randomInputs(ref, kRefuteSeed, 0);
  } catch (const eval::EvalError &) {
    return std::nullopt;
  }
  for (const smt::ModelRead &m : model) {
    if (m.slot < 0 || static_cast<size_t>(m.slot) >= inputs.size()) return std::nullopt;  // not an input
    eval::EvalTensor &t = inputs[static_cast<size_t>(m.slot)];
    size_t flat = 0;
    if (m.index.size() != t.type.shape.size()) return std::nullopt;
    for (size_t d = 0; d < m.index.size(); ++d) {
      int64_t n = t.type.shape[d].size();
      if (m.index[d] < 0 || m.index[d] >= n) return std::nullopt;
      flat = flat * static_cast<size_t>(n) + static_cast<size_t>(m.index[d]);
    }
    double v = isFloating(t.type.dtype) ? sem::roundToDType(m.value, t.type.dtype) : m.value;
    t.values[flat] = v;
  }
  if (foldIntoDeclaredDomains(ref, referenceDomains, inputs)) return std::nullopt;  // the model is outside
  if (auto d = confirmer.confirm(ref, prod, inputs, outputs)) return Refutation{*d, inputs, "a Z3 model over the reals"};
  return std::nullopt;
}

}  // namespace torchtv
