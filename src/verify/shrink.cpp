#include "src/verify/shrink.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

namespace torchtv {
namespace {

using eval::EvalTensor;

bool floating(const EvalTensor &t) { return isFloating(t.type.dtype); }

}  // namespace

long double roundSignificant(long double v, int digits) {
  if (v == 0 || !std::isfinite(static_cast<double>(v))) return v;
  long double scale = std::pow(10.0L, digits - 1 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

std::string shrinkRefutation(const Graph &ref, const Graph &prod, Refutation &r, CounterexampleConfirmer &confirmer) {
  int budget = kShrinkEvaluations;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(kShrinkSeconds));
  const size_t output = r.difference.output;
  std::vector<EvalTensor> &inputs = r.inputs;
  auto stillRefutes = [&](const std::vector<EvalTensor> &candidate) {
    if (budget <= 0 || std::chrono::steady_clock::now() > deadline) return false;
    --budget;
    try {
      auto d = confirmer.confirm(ref, prod, candidate, {output});
      if (!d || d->output != output) return false;
      r.difference = *d;
      return true;
    } catch (const std::exception &) {
      return false;
    }
  };
  size_t zeroed = 0, rounded = 0;
  // Delta debugging: zero chunks of nonzero entries, coarse to fine.
  for (size_t t = 0; t < inputs.size(); ++t) {
    if (!floating(inputs[t])) continue;
    for (size_t chunk = std::max<size_t>(inputs[t].values.size() / 2, 1); chunk >= 1 && budget > 0; chunk /= 2) {
      for (size_t start = 0; start < inputs[t].values.size() && budget > 0; start += chunk) {
        std::vector<EvalTensor> candidate = inputs;
        size_t changed = 0;
        for (size_t k = start; k < std::min(start + chunk, candidate[t].values.size()); ++k)
          if (candidate[t].values[k] != 0) {
            candidate[t].values[k] = 0;
            ++changed;
          }
        if (changed && stillRefutes(candidate)) {
          inputs = std::move(candidate);
          zeroed += changed;
        }
      }
    }
  }
  // Simpler numbers: integers, else two significant digits.
  for (size_t t = 0; t < inputs.size(); ++t) {
    if (!floating(inputs[t])) continue;
    for (int digits : {0, 2}) {
      std::vector<EvalTensor> candidate = inputs;
      for (long double &v : candidate[t].values) v = digits == 0 ? std::round(v) : roundSignificant(v, digits);
      if (candidate[t].values != inputs[t].values && stillRefutes(candidate)) {
        inputs = std::move(candidate);
        ++rounded;
        break;
      }
    }
  }
  std::string what;
  if (zeroed) what = std::to_string(zeroed) + " entries set to zero";
  if (rounded) what += std::string(what.empty() ? "" : ", ") + std::to_string(rounded) + " inputs rounded";
  return what.empty() ? what : "shrunk: " + what + " while it still refutes";
}

}  // namespace torchtv
