#include "src/verify/counterexample_confirm.h"

#include <algorithm>
#include <cmath>

#include "src/verify/value_difference.h"

namespace torchtv {

namespace {

bool sameValues(const std::vector<eval::EvalTensor> &a, const std::vector<eval::EvalTensor> &b) {
  if (a.size() != b.size()) return false;
  for (size_t t = 0; t < a.size(); ++t) {
    if (!(a[t].type == b[t].type) || a[t].values.size() != b[t].values.size()) return false;
    for (size_t i = 0; i < a[t].values.size(); ++i)
      if (!eval::bitEqual(a[t].values[i], b[t].values[i])) return false;
  }
  return true;
}

// Whether an attribute of a node holds inf or NaN: a constant the graph writes (masked_fill's
// -inf, full's fill value).
bool writesNonFiniteConstant(const Graph &g) {
  for (const auto &n : g.nodes())
    for (const auto &[name, attr] : n->attrs) {
      if (attr.isFloat() && !std::isfinite(attr.asFloat())) return true;
      if (attr.isFloats())
        for (double v : attr.asFloats())
          if (!std::isfinite(v)) return true;
    }
  return false;
}

// finite, +inf, -inf, NaN
int valueClass(long double v) { return std::isnan(v) ? 3 : std::isinf(v) ? (v > 0 ? 1 : 2) : 0; }

class EvaluatorConfirmer : public CounterexampleConfirmer {
public:
  std::optional<ConfirmedDifference> confirm(const Graph &ref, const Graph &prod,
                                             const std::vector<eval::EvalTensor> &inputs,
                                             const std::vector<size_t> &outputs) override {
    using eval::Precision;
    // The random search asks again with the same draws for the outputs still
    // open once one is refuted (refuteByRandomInputs): the last evaluation serves them.
    // Only the asked outputs' cones are evaluated (shrinking asks about one output).
    bool served = std::all_of(outputs.begin(), outputs.end(),
                              [&](size_t o) { return std::count(lastOutputs_.begin(), lastOutputs_.end(), o) > 0; });
    // A raising output no longer asked about: the others are evaluated afresh.
    bool raisedElsewhere = last_.productionRaises &&
                           std::find(outputs.begin(), outputs.end(), *last_.productionRaises) == outputs.end();
    if (&ref != lastRef_ || &prod != lastProd_ || !served || raisedElsewhere || !sameValues(inputs, lastInputs_)) {
      lastRef_ = &ref;
      lastProd_ = &prod;
      lastInputs_ = inputs;
      lastOutputs_ = outputs;
      last_ = {};
      last_.nonFiniteConstants = writesNonFiniteConstant(ref) || writesNonFiniteConstant(prod);
      try {
        last_.rn = eval::evaluateGraph(ref, inputs, Precision::Native, nullptr, &outputs);
        try {
          last_.pn = eval::evaluateGraph(prod, inputs, Precision::Native, nullptr, &outputs);
        } catch (const eval::EvalRaised &) {
          // Only where the whole reference is defined: a reference output outside the ones asked
          // about may raise on these inputs (its forward embedding on the ids its backward drops).
          eval::evaluateGraph(ref, inputs, Precision::Native);
          last_.productionRaises = raisingOutput(prod, inputs, outputs);
          if (!last_.productionRaises) throw;
        }
        if (last_.productionRaises) return raised(*last_.productionRaises);
        // Equal in the dtypes: no difference to tell from rounding, and the four
        // evaluations below are spared (most shrinking candidates that fail).
        if (!differsNatively(outputs)) return std::nullopt;
        last_.rd = eval::evaluateGraph(ref, inputs, Precision::Double, nullptr, &outputs);
        last_.pd = eval::evaluateGraph(prod, inputs, Precision::Double, nullptr, &outputs);
        last_.rw = eval::evaluateGraph(ref, inputs, Precision::Wide, nullptr, &outputs);
        last_.pw = eval::evaluateGraph(prod, inputs, Precision::Wide, nullptr, &outputs);
      } catch (const eval::EvalError &) {
        last_.failed = true;
      }
    }
    if (last_.failed) return std::nullopt;
    if (last_.productionRaises) return raised(*last_.productionRaises);
    const auto &rn = last_.rn, &pn = last_.pn, &rd = last_.rd, &pd = last_.pd, &rw = last_.rw, &pw = last_.pw;
    // A difference between finite values is preferred: LibTorch can replay it where a NaN or an
    // infinity from a row masked everywhere may be what only this evaluator gives (kNonFiniteNotReplayed).
    std::optional<ConfirmedDifference> nonFinite;
    for (size_t o : outputs) {
      for (size_t i = 0; i < rn[o].values.size(); ++i) {
        long double a = rn[o].values[i], b = pn[o].values[i];
        // Equal in the dtypes: the double and long-double runs may not exist (differsNatively).
        if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
        if (!std::isfinite(a) || !std::isfinite(b)) {
          // Note [Confirming counterexamples]: a non-finite difference, the same in all three.
          bool same = valueClass(rd[o].values[i]) == valueClass(a) && valueClass(pd[o].values[i]) == valueClass(b) &&
                      valueClass(rw[o].values[i]) == valueClass(a) && valueClass(pw[o].values[i]) == valueClass(b);
          if (!same || valueClass(a) == valueClass(b) || !last_.nonFiniteConstants) continue;
          if (!nonFinite) nonFinite = difference(o, i, a, b);
          continue;
        }
        // Note [When values differ], row 1.
        if (!differ::evaluatorConfirms(a, b, rd[o].values[i], pd[o].values[i], rw[o].values[i], pw[o].values[i]))
          continue;
        return difference(o, i, a, b);
      }
    }
    return nonFinite;
  }

private:
  ConfirmedDifference difference(size_t o, size_t i, long double a, long double b) const {
    ConfirmedDifference c;
    c.output = o;
    c.index = eval::unflatten(last_.rn[o].type.shape, i);
    c.referenceValue = static_cast<double>(a);
    c.productionValue = static_cast<double>(b);
    return c;
  }
  // The first of `outputs` whose evaluation raises in production (Note [Reference kernel domains]).
  static std::optional<size_t> raisingOutput(const Graph &prod, const std::vector<eval::EvalTensor> &inputs,
                                             const std::vector<size_t> &outputs) {
    for (size_t o : outputs) {
      std::vector<size_t> one{o};
      try {
        eval::evaluateGraph(prod, inputs, eval::Precision::Native, nullptr, &one);
      } catch (const eval::EvalRaised &) {
        return o;
      } catch (const eval::EvalError &) {
      }
    }
    return std::nullopt;
  }
  ConfirmedDifference raised(size_t o) const {
    ConfirmedDifference c;
    c.output = o;
    c.productionRaises = true;
    c.productionValue = std::nan("");
    if (!last_.rn[o].values.empty()) c.referenceValue = static_cast<double>(last_.rn[o].values[0]);
    return c;
  }

  bool differsNatively(const std::vector<size_t> &outputs) const {
    for (size_t o : outputs)
      for (size_t i = 0; i < last_.rn[o].values.size(); ++i) {
        long double a = last_.rn[o].values[i], b = last_.pn[o].values[i];
        if (!((std::isnan(a) && std::isnan(b)) || a == b)) return true;
      }
    return false;
  }

  struct Evaluated {
    std::vector<eval::EvalTensor> rn, pn, rd, pd, rw, pw;  // reference/production in native, double, wide
    bool failed = false;
    bool nonFiniteConstants = false;  // a graph writes inf or NaN (Note [Confirming counterexamples])
    std::optional<size_t> productionRaises;  // this output raises in production only
  };
  const Graph *lastRef_ = nullptr, *lastProd_ = nullptr;
  std::vector<eval::EvalTensor> lastInputs_;
  std::vector<size_t> lastOutputs_;
  Evaluated last_;
};

}  // namespace

std::unique_ptr<CounterexampleConfirmer> makeEvaluatorConfirmer() { return std::make_unique<EvaluatorConfirmer>(); }

}  // namespace torchtv
