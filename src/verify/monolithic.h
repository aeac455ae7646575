// The monolithic baseline (`--monolithic`): what deciding costs without
// structural matching.
//
// Note [Monolithic baseline]
// For benchmarks only (bench/run.py's "monolithic" column; issue 7). After
// normalization and fusion expansion, exactly as torchtv's own check, each
// output of the reference and its production counterpart are encoded whole,
// down to the graph inputs, and handed to Z3 over the reals as one query: no
// value numbering of inner values, no residual regions, no normal form, no
// memoization across outputs (each query gets a fresh term context). Every
// query shares the global deadline (--timeout); an output it does not reach,
// or whose query runs past it, is unknown. A Z3 model over the reals is
// returned for the caller to confirm and replay, as the prover's are; only a
// replayed model makes an output not_equivalent.
#pragma once

#include <chrono>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"
#include "src/smt/query.h"
#include "src/verify/verdict.h"

namespace torchtv {

struct MonolithicOutcome {
  bool proven = false;  // at level real (the verdict table makes it equivalent)
  std::string reason;
  std::vector<smt::ModelRead> realModel;  // when Z3 found the outputs differ
  bool queried = false;                   // Z3 was asked (not stopped before by the deadline or an op)
};

// Decides output `i` of `ref` against output `i` of `prod` (normalized graphs
// with the same inputs); `vn` numbers both, and only its numbers of the graph
// inputs are used (the slots of the terms' reads). rlimit 0: no resource
// limit, only the deadline.
MonolithicOutcome decideMonolithic(const Graph &ref, const Graph &prod, const ValueNumbering &vn, size_t i,
                                   unsigned rlimit, unsigned memoryMB, std::chrono::steady_clock::time_point deadline);

}  // namespace torchtv
