#include "src/verify/shrink.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>

#include <spdlog/spdlog.h>

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
  // CPU seconds, not wall: a loaded machine shrinks as far as an idle one.
  const std::clock_t started = std::clock();
  auto cpuSeconds = [&] { return static_cast<double>(std::clock() - started) / CLOCKS_PER_SEC; };
  auto exhausted = [&] { return budget <= 0 || cpuSeconds() > kShrinkSeconds; };
  const size_t output = r.difference.output;
  std::vector<EvalTensor> &inputs = r.inputs;
  // Candidates are made in place and undone when they do not refute: a deep
  // model's inputs are megabytes, copied once per candidate only by the confirmer.
  // A difference between finite values stays one: shrinking it into a row masked everywhere would
  // trade a counterexample LibTorch replays for one only the evaluator may give (kNonFiniteNotReplayed).
  auto finite = [](const ConfirmedDifference &d) {
    return std::isfinite(d.referenceValue) && std::isfinite(d.productionValue);
  };
  const bool wasFinite = finite(r.difference);
  auto stillRefutes = [&]() {
    if (exhausted()) return false;
    --budget;
    try {
      auto d = confirmer.confirm(ref, prod, inputs, {output});
      if (!d || d->output != output || (wasFinite && !finite(*d))) return false;
      r.difference = *d;
      return true;
    } catch (const std::exception &) {
      return false;
    }
  };
  // Sets entries [start, end) of input t to zero; returns the old values (empty: none was nonzero).
  auto zero = [&](size_t t, size_t start, size_t end) {
    std::vector<std::pair<size_t, long double>> old;
    for (size_t k = start; k < std::min(end, inputs[t].values.size()); ++k)
      if (inputs[t].values[k] != 0) {
        old.emplace_back(k, inputs[t].values[k]);
        inputs[t].values[k] = 0;
      }
    return old;
  };
  auto undo = [&](size_t t, const std::vector<std::pair<size_t, long double>> &old) {
    for (const auto &[k, v] : old) inputs[t].values[k] = v;
  };
  std::vector<size_t> floats;
  for (size_t t = 0; t < inputs.size(); ++t)
    if (floating(inputs[t])) floats.push_back(t);
  size_t zeroed = 0, zeroedInputs = 0, rounded = 0;
  // Sets the floating inputs [from, to) to zero; kept when it still refutes.
  auto zeroInputs = [&](size_t from, size_t to) {
    std::vector<std::pair<size_t, std::vector<std::pair<size_t, long double>>>> group;
    size_t entries = 0;
    for (size_t k = from; k < to; ++k) {
      group.emplace_back(floats[k], zero(floats[k], 0, inputs[floats[k]].values.size()));
      entries += group.back().second.size();
    }
    if (!entries) return false;
    if (stillRefutes()) {
      zeroed += entries;
      for (const auto &g : group) zeroedInputs += !g.second.empty();
      return true;
    }
    for (const auto &[t, old] : group) undo(t, old);
    return false;
  };
  // Delta debugging over whole inputs first (halves of the floating inputs,
  // then quarters, ...): a deep model's difference needs few of its hundreds
  // of weights, and an input set to zero costs one evaluation, not one per chunk.
  if (floats.size() > 1) {
    for (size_t chunk = std::max<size_t>(floats.size() / 2, 1); chunk >= 1 && !exhausted(); chunk /= 2) {
      for (size_t start = 0; start < floats.size() && !exhausted(); start += chunk)
        zeroInputs(start, std::min(start + chunk, floats.size()));
      if (chunk == 1) break;
    }
  }
  // Then chunks of each input's nonzero entries, coarse to fine: the floating inputs, then the
  // integer and boolean ones (zero is in range as an index into any dim; a candidate whose
  // evaluation fails does not refute).
  std::vector<size_t> chunked = floats;
  for (size_t t = 0; t < inputs.size(); ++t)
    if (!floating(inputs[t])) chunked.push_back(t);
  for (size_t t : chunked) {
    for (size_t chunk = std::max<size_t>(inputs[t].values.size() / 2, 1); chunk >= 1 && !exhausted(); chunk /= 2) {
      for (size_t start = 0; start < inputs[t].values.size() && !exhausted(); start += chunk) {
        auto old = zero(t, start, start + chunk);
        if (old.empty()) continue;
        if (stillRefutes()) zeroed += old.size();
        else undo(t, old);
      }
      if (chunk == 1) break;
    }
  }
  // Simpler numbers: integers, else two significant digits.
  for (size_t t : floats) {
    for (int digits : {0, 2}) {
      if (exhausted()) break;
      std::vector<long double> before = inputs[t].values;
      for (long double &v : inputs[t].values) v = digits == 0 ? std::round(v) : roundSignificant(v, digits);
      if (inputs[t].values != before && stillRefutes()) {
        ++rounded;
        break;
      }
      inputs[t].values = std::move(before);
    }
  }
  spdlog::debug("shrinking: {} candidates confirmed in {:.2f} s of CPU", kShrinkEvaluations - budget, cpuSeconds());
  std::string what;
  if (zeroed) what = std::to_string(zeroed) + " entries set to zero";
  if (zeroedInputs) what += " (" + std::to_string(zeroedInputs) + " whole inputs)";
  if (rounded) what += std::string(what.empty() ? "" : ", ") + std::to_string(rounded) + " inputs rounded";
  return what.empty() ? what : "shrunk: " + what + " while it still refutes";
}

}  // namespace torchtv
