#include "src/verify/refute.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "src/sem/term.h"

namespace torchtv {

namespace {

// Elements evaluated per run above which the random search is skipped.
constexpr size_t kEvalBudget = 2000000;

size_t graphElements(const Graph &g) {
  size_t total = 0;
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) total += static_cast<size_t>(numel(v->type.shape).value_or(kEvalBudget));
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

}  // namespace

const char *inputKindName(int kind) {
  static const char *names[] = {"normal", "small integers, indices in range", "tiny values", "large values",
                                "rows of equal values", "special values", "indices and arguments in their domains"};
  return kind >= 0 && kind <= kDomainKind ? names[kind] : "?";
}

bool withinEvalBudget(const Graph &ref, const Graph &prod) {
  return graphElements(ref) + graphElements(prod) <= kEvalBudget;
}

std::vector<eval::EvalTensor> randomInputs(const Graph &g, unsigned seed, int kind,
                                           const std::vector<InputDomain> *domains) {
  std::mt19937_64 rng(seed * 7919u + static_cast<unsigned>(kind));
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<eval::EvalTensor> inputs;
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
  for (size_t slot = 0; slot < g.inputs().size(); ++slot) {
    const Value *v = g.inputs()[slot];
    const InputDomain *domain = kind == kDomainKind && domains ? &domains->at(slot) : nullptr;
    eval::EvalTensor t{v->type, {}};
    auto n = numel(v->type.shape);
    if (!n) throw eval::EvalError("symbolic input shape");
    int64_t row = v->type.shape.empty() || !v->type.shape.back().isConcrete() ? 1 : std::max<int64_t>(v->type.shape.back().size(), 1);
    double rowValue = 0;
    for (int64_t i = 0; i < *n; ++i) {
      long double x;
      if (domain && domain->indexBound && !isFloating(v->type.dtype)) {
        x = static_cast<long double>(rng() % static_cast<uint64_t>(*domain->indexBound));
      } else if (domain && domain->positive && isFloating(v->type.dtype)) {
        x = sem::roundToDType(std::fabs(normal(rng)) + 1e-2, v->type.dtype);
      } else if (!isFloating(v->type.dtype)) {
        x = integerIn(rng, v->type.dtype,
                      kind == 3 || kind == 5 ? IntegerRange::Wide : kind == 1 ? IntegerRange::Index : IntegerRange::Small);
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

std::vector<Refutation> refuteByRandomInputs(const Graph &ref, const Graph &prod, const std::vector<size_t> &outputs,
                                             CounterexampleConfirmer &confirmer) {
  if (!withinEvalBudget(ref, prod)) return {};
  // The domain distribution right after the normal one, where it differs from it (Note [Input domains]).
  std::vector<InputDomain> domains = inputDomains(ref);
  std::vector<int> order = {0, kDomainKind, 1, 2, 3, 4};
  if (!anyDomain(domains)) order.erase(order.begin() + 1);
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
                                        const std::vector<smt::ModelRead> &model, CounterexampleConfirmer &confirmer) {
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
  if (auto d = confirmer.confirm(ref, prod, inputs, outputs)) return Refutation{*d, inputs, "a Z3 model over the reals"};
  return std::nullopt;
}

}  // namespace torchtv
