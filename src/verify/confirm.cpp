#include "src/verify/confirm.h"

#include <algorithm>
#include <cmath>

namespace torchtv {

namespace {

class EvaluatorConfirmer : public CounterexampleConfirmer {
public:
  std::optional<ConfirmedDifference> confirm(const Graph &ref, const Graph &prod,
                                             const std::vector<eval::EvalTensor> &inputs,
                                             const std::vector<size_t> &outputs) override {
    using eval::Precision;
    std::vector<eval::EvalTensor> rn, pn, rd, pd, rw, pw;
    try {
      rn = eval::evaluateGraph(ref, inputs, Precision::Native);
      pn = eval::evaluateGraph(prod, inputs, Precision::Native);
      rd = eval::evaluateGraph(ref, inputs, Precision::Double);
      pd = eval::evaluateGraph(prod, inputs, Precision::Double);
      rw = eval::evaluateGraph(ref, inputs, Precision::Wide);
      pw = eval::evaluateGraph(prod, inputs, Precision::Wide);
    } catch (const eval::EvalError &) {
      return std::nullopt;
    }
    for (size_t o : outputs) {
      for (size_t i = 0; i < rn[o].values.size(); ++i) {
        long double a = rn[o].values[i], b = pn[o].values[i];
        if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
        long double dd = rd[o].values[i] - pd[o].values[i], dw = rw[o].values[i] - pw[o].values[i];
        if (!std::isfinite(dd) || !std::isfinite(dw) || dw == 0) continue;
        long double scale = std::max<long double>({1e-30L, std::fabs(rw[o].values[i]), std::fabs(pw[o].values[i])});
        if (std::fabs(dw) <= 1e-14L * scale) continue;
        if (std::fabs(dd - dw) > 1e-3L * std::fabs(dw)) continue;
        ConfirmedDifference c;
        c.output = o;
        c.index = eval::unflatten(rn[o].type.shape, i);
        c.referenceValue = static_cast<double>(a);
        c.productionValue = static_cast<double>(b);
        return c;
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<CounterexampleConfirmer> makeEvaluatorConfirmer() { return std::make_unique<EvaluatorConfirmer>(); }

}  // namespace torchtv
