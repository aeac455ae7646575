// The level ladder for one differing output: bitwise first, then real.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/smt/query.h"
#include "src/verify/region.h"
#include "src/verify/verdict.h"

namespace torchtv {

struct ProverLimits {
  unsigned rlimit = smt::kDefaultRlimit;
  unsigned memoryMB = smt::kDefaultSolverMemoryMB;  // per query (Note [Solver memory cap])
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// What a proof attempt concluded for one output.
struct ProofOutcome {
  bool proven = false;
  Level level = Level::None;
  std::string reason;  // why real and not bitwise, or why not proven
  std::set<std::string> assumptions;
  // A real-level model over frontier tensors, when Z3 found the outputs differ.
  std::vector<smt::ModelRead> realModel;
  bool realModelOverInputs = false;
};

class Prover {
public:
  Prover(const RegionInputs &in, ProverLimits limits) : in_(in), limits_(limits) {}

  ProofOutcome prove(const Value *reference, const Value *production);

  size_t distinctProofs() const { return proofs_; }
  size_t cacheHits() const { return hits_; }
  size_t solverQueries() const { return queries_; }

private:
  ProofOutcome proveUncached(sem::TermContext &tc, const Region &real, const Value *a, const Value *b);
  std::optional<std::string> bitwiseFailure(const Value *a, const Value *b);
  smt::QueryResult query(const sem::TermContext &tc, const Region &r, smt::Arith arith);

  const RegionInputs &in_;
  ProverLimits limits_;
  std::map<std::string, ProofOutcome> cache_;
  size_t proofs_ = 0, hits_ = 0, queries_ = 0;
};

}  // namespace torchtv
