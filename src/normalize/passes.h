// The normalization passes, one per file, each with one entry function that
// returns whether it changed the graph. normalize.cpp runs them in order.
#pragma once

#include <map>
#include <string>

#include "src/normalize/rewriter.h"

namespace torchtv {

class FusionLibrary;
class RuleSet;

// Complex values become pairs of reals (Note [Complex values as pairs of reals]); run once, first.
bool lowerComplex(Rewriter &rw);                           // lower_complex.cpp
// detach, alias, clone, contiguous, lift_fresh_copy, and views, expands,
// copies and permutations that leave type and element order unchanged.
bool dropNoOps(Rewriter &rw);                              // drop_no_ops.cpp
// Factories (ones_like, zeros, scalar_tensor, ...) become aten::full; shape
// ops on a full constant become a full constant of the new shape.
bool foldConstants(Rewriter &rw);                          // fold_constants.cpp
// Tensor overloads with a 0-d constant operand become Scalar overloads; int
// Scalar arguments of ops on floating tensors become floats.
bool unifyScalarOverloads(Rewriter &rw);                   // unify_overloads.cpp
// One spelling of each layout op: view sizes, transposes, splits (Note
// [Canonical layout ops]).
bool canonicalizeLayout(Rewriter &rw);                     // canonical_layout.cpp
// Mixed-dtype operands of promoting ops get an explicit _to_copy.
bool makePromotionExplicit(Rewriter &rw);                  // explicit_promotion.cpp
// Inlines the definition of every op the library defines; `expanded` gets each op it inlined,
// with its definition's file:line.
bool expandFusions(Rewriter &rw, const FusionLibrary &lib, std::map<std::string, std::string> &misfits,
                   bool exactOnly, std::map<std::string, std::string> &expanded);  // expand_fusions.cpp
bool applyRules(Rewriter &rw, const RuleSet &rules);       // apply_rules.cpp
bool eliminateCommonSubexpressions(Rewriter &rw);          // eliminate_common_subexpressions.cpp
bool eliminateDeadCode(Graph &g);                          // eliminate_dead_code.cpp

}  // namespace torchtv
