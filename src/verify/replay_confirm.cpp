#include "src/verify/replay_confirm.h"

#include <cmath>

#include "src/replay/replay.h"

namespace torchtv {

namespace {

std::vector<ConcreteTensor> toConcrete(const std::vector<eval::EvalTensor> &inputs) {
  std::vector<ConcreteTensor> out;
  for (const eval::EvalTensor &t : inputs) {
    ConcreteTensor c{t.type, {}};
    for (long double v : t.values) c.values.push_back(static_cast<double>(v));
    out.push_back(std::move(c));
  }
  return out;
}

// Every NaN equals every NaN (DESIGN.md, verdicts); -0.0 and 0.0 differ only
// bitwise, and a counterexample shows a difference of values.
bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

size_t flatten(const Shape &shape, const std::vector<long long> &index) {
  size_t flat = 0;
  for (size_t k = 0; k < index.size() && k < shape.size(); ++k)
    flat = flat * static_cast<size_t>(shape[k].size()) + static_cast<size_t>(index[k]);
  return flat;
}

}  // namespace

ReplayOutcome replayOnOriginals(const Graph &reference, const Graph &production,
                                const std::vector<eval::EvalTensor> &inputs, size_t output,
                                const std::vector<long long> &preferredIndex) {
  ReplayOutcome r;
  std::vector<ConcreteTensor> ref, prod;
  try {
    auto concrete = toConcrete(inputs);
    ref = replayGraph(reference, concrete);
    prod = replayGraph(production, concrete);
  } catch (const ReplayUnavailable &e) {
    r.kind = ReplayOutcome::Kind::Unavailable;
    r.detail = e.what();
    return r;
  } catch (const std::exception &e) {
    r.detail = e.what();
    return r;
  }
  const ConcreteTensor &a = ref.at(output), &b = prod.at(output);
  if (a.values.size() != b.values.size()) {
    r.detail = "LibTorch results of different sizes";
    return r;
  }
  size_t preferred = flatten(a.type.shape, preferredIndex);
  auto report = [&](size_t flat) {
    r.kind = ReplayOutcome::Kind::Replayed;
    r.index = eval::unflatten(a.type.shape, flat);
    r.referenceValue = a.values[flat];
    r.productionValue = b.values[flat];
    return r;
  };
  if (preferred < a.values.size() && !sameValue(a.values[preferred], b.values[preferred])) return report(preferred);
  for (size_t i = 0; i < a.values.size(); ++i)
    if (!sameValue(a.values[i], b.values[i])) return report(i);
  r.kind = ReplayOutcome::Kind::DidNotReplay;
  r.detail = "LibTorch computes equal values for this output on these inputs";
  return r;
}

}  // namespace torchtv
