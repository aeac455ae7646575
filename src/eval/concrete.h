// Concrete evaluation of a graph through the per-element semantics (src/sem):
// the evaluator that confirms counterexamples and runs the self-check on the
// compared graphs; LibTorch (src/torch/replay.h) then reruns a counterexample on
// the original graphs (Note [Replaying counterexamples], src/verify/counterexample_replay.h).
#pragma once

#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "ir/graph.h"

namespace torchtv::eval {

// Note [Evaluation precisions]
// Native: every op computes in its dtype with IEEE round-to-nearest-even (f16
//   and bf16 through float, as PyTorch's CPU kernels do); reductions add in
//   index order; transcendentals are libm's double results rounded to the dtype.
//   Bit-exact against PyTorch for elementwise arithmetic; reductions and
//   transcendentals may differ from PyTorch's vectorized kernels in the last bits.
// Double / Wide: floating ops compute in double / long double without rounding
//   to the tensor's dtype: approximations of the real-number semantics, used to
//   tell a real difference from rounding noise. Integers wrap in every precision.
enum class Precision { Native, Double, Wide };

struct EvalTensor {
  TensorType type;
  std::vector<long double> values;  // row-major
};

class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};
// The graph raises on these inputs as its ATen kernel would (an index out of
// range: Note [Data-dependent indices] in src/sem/index_ops.cpp).
class EvalRaised : public EvalError {
public:
  using EvalError::EvalError;
};

// Evaluates every output of `g`. Throws EvalError (symbolic shapes, an op
// without semantics) — callers turn that into "could not evaluate".
// `outputs` (positions): when given, only the nodes in those outputs' cones are
// evaluated (a deep model's forward-only output costs a third of the graph) and
// the other outputs come back without values (their type only).
std::vector<EvalTensor> evaluateGraph(const Graph &g, const std::vector<EvalTensor> &inputs, Precision precision,
                                      std::map<const Value *, EvalTensor> *trace = nullptr,
                                      const std::vector<size_t> *outputs = nullptr);

// Note [Non-finite floats converted to integers]
// Converting a NaN or an infinity to an integer type is undefined in C++, and
// ATen's kernel gives whatever the CPU gives (x86: the type's smallest value).
// The evaluator refuses it (an EvalError), so that no refutation rests on it.
// T5's relative-position buckets convert log(0) = -inf before a where drops
// it, so nothing after them was evaluated for the cut search, which then
// proposed no candidate by evaluation for the whole model (T5 inference stayed
// unknown). The cut search's evaluation only proposes candidates (Note [Cut
// points] in src/verify/cut_points.h): there such an element becomes the
// smallest value of the integer type.
enum class NonFiniteToInteger { Raise, Smallest };

// Every value of `g` that can be evaluated: a node whose op has no semantics
// here, or that reads such a value, is left out (the cut-point search uses
// what it gets). Throws EvalError only for unusable inputs.
std::map<const Value *, EvalTensor> evaluateWhatCan(const Graph &g, const std::vector<EvalTensor> &inputs,
                                                    Precision precision,
                                                    NonFiniteToInteger nonFinite = NonFiniteToInteger::Raise);

// Row-major multi-index of a flat offset.
std::vector<long long> unflatten(const Shape &shape, size_t flat);

// The same value bit for bit, as far as a tensor element can tell: equal with
// the same sign (0.0 is not -0.0), or both NaN.
inline bool bitEqual(long double a, long double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace torchtv::eval
