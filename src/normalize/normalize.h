// Brings a graph to torchtv's canonical vocabulary (Core-ATen-like ops,
// explicit promotion, fused ops expanded) so that the matcher and the prover
// compare like with like. Entry point of src/normalize.
#pragma once

#include <map>
#include <string>
#include <unordered_set>

#include "ir/graph.h"
#include "src/fusion/fusion_library.h"
#include "src/normalize/rule.h"

namespace torchtv {

// ExactOnly: only definitions whose expansion is exact (custom ops, ATen ops
// marked `# FAITHFUL: bitwise`, Note [Exact expansions]); every other call stays
// as written, so the result holds no real-level value (Note [Bitwise through
// composites] in src/verify/check.cpp).
enum class FusionExpansion { On, Off, ExactOnly };

struct NormalizeOptions {
  FusionExpansion fusions = FusionExpansion::On;
  const RuleSet *rules = nullptr;  // nullptr: no rewrite rules
  int maxIterations = 32;
};

struct NormalizeResult {
  // Note [Levels of rewrites]: values only known equal to the original at
  // level real. They belong to the normalized graph.
  std::unordered_set<const Value *> realValues;
  int iterations = 0;
  bool fixedPoint = true;  // false: stopped at maxIterations
  std::map<std::string, int> passChanges;  // pass name -> rounds in which it changed the graph
  // Ops with a definition that does not fit a call of theirs (which stays
  // uninterpreted): op -> why, for the reason of an output decided through it.
  std::map<std::string, std::string> misfitDefinitions;
};

// Runs, in this order and repeatedly until nothing changes (at most
// opts.maxIterations rounds):
//   expandFusions, dropNoOps, foldConstants, unifyScalarOverloads,
//   applyRules, makePromotionExplicit, eliminateCommonSubexpressions,
//   eliminateDeadCode.
// Fusions first, so that what a definition expands to is normalized like the
// rest; dead code last, so that every pass sees only live nodes next round.
// Throws InputError when a definition is malformed or expands without end.
NormalizeResult normalizeGraph(Graph &g, const FusionLibrary &fusions, const NormalizeOptions &opts);

// The bundled fusions and rules, loaded once (InputError if they are broken).
const FusionLibrary &bundledFusions();
const RuleSet &bundledRules();

// Note [Kernel definitions by default]
// What a check expands unless told otherwise: the bundled fusions and the
// definitions of PyTorch's own fused kernels in fusions/inductor/ (sdpa's
// flash, memory-efficient and CPU-flash variants and their backwards,
// prims::fma, ...), which torch.export and torch.compile write into the graphs
// users make. The latter are not in bundledFusions(): they are checked against
// PyTorch's math form (ctest inductor/math_reference), not against op
// semantics in src/sem, and expanding them is level `real` (no FAITHFUL mark).
// `--no-kernel-definitions` leaves them out (the kernels are then
// uninterpreted, and what depends on them `unknown` naming the op).
const FusionLibrary &defaultFusions();
std::string kernelDefinitionsDirectory();

}  // namespace torchtv
