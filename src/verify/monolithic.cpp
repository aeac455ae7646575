#include "src/verify/monolithic.h"

#include <algorithm>

#include "src/verify/region.h"

namespace torchtv {

// Note [Monolithic baseline]
MonolithicOutcome decideMonolithic(const Graph &ref, const Graph &prod, const ValueNumbering &vn, size_t i,
                                   unsigned rlimit, unsigned memoryMB, std::chrono::steady_clock::time_point deadline) {
  MonolithicOutcome out;
  double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  if (left <= 0) {
    out.reason = std::string(reasons::kMonolithicPrefix) + reasons::kTimeLimit;
    return out;
  }
  // Frontier::Inputs: terms stop only at graph inputs, no inner value is shared.
  const std::unordered_set<int> noShared, noProducts;
  const std::unordered_set<const Value *> noConstants;
  RegionInputs in{ref, prod, vn, noShared, noProducts, noConstants};
  sem::TermContext tc;
  Region r;
  try {
    r = buildRegion(tc, in, ref.outputs()[i], prod.outputs()[i], Frontier::Inputs, RegionMode::Real);
  } catch (const sem::Unsupported &e) {
    out.reason = std::string(reasons::kMonolithicPrefix) + reasons::kNotProven + ": " + e.what();
    return out;
  }
  smt::QueryOptions o;
  o.rlimit = rlimit;
  o.memoryMB = memoryMB;
  o.deadlineSeconds = std::min(left, 1e6);  // no --timeout: time_point::max()
  out.queried = true;
  smt::QueryResult q = smt::proveEqual(tc, r.reference, r.production, smt::Arith::Real, o);
  switch (q.answer) {
  case smt::Answer::Equal:
    out.proven = true;
    out.reason = std::string(reasons::kMonolithicPrefix) + reasons::kRealZ3;
    break;
  case smt::Answer::Differ:
    out.reason = std::string(reasons::kMonolithicPrefix) + reasons::kNotProven +
                 ": Z3 finds the outputs differ over the reals for some values of the inputs";
    out.realModel = q.reads;
    break;
  case smt::Answer::Unknown:
  case smt::Answer::Crash:
    out.reason = std::string(reasons::kMonolithicPrefix) + reasons::kNotProven + ": Z3: " + q.detail;
    break;
  }
  return out;
}

}  // namespace torchtv
