// Residual regions: the terms of two differing outputs over a frontier.
#pragma once

#include <map>
#include <string>
#include <unordered_set>

#include "ir/graph.h"
#include "src/match/value_numbering.h"
#include "src/sem/term.h"
#include "src/verify/input_domains.h"

namespace torchtv {

// Where term building stops. Matched: at values both graphs compute (same
// value number), the smallest residual region; MatmulOutputs: at shared values
// that a matrix product computes (Note [Widening the frontier]); Inputs: only
// at graph inputs.
// ThroughProducts: at shared values except those a matrix product computes,
// which are expanded; ThroughViews: also expanding what an index map (view,
// permute, slice, ...) computes (both for Note [Cut points]).
// ThroughIndices: at shared values, except those computed from integer graph
// inputs and constants alone (Note [Frontier through index values]).
enum class Frontier { Matched, MatmulOutputs, ThroughProducts, ThroughViews, Inputs, ThroughIndices };

// Note [Constants are no frontier]
// A value that reads no graph input (zeros, an identity matrix, a causal mask) is read as its
// definition, never as a frontier tensor: read as one, `state = zeros + k v^T` would add any
// values to the state. Its terms are closed and small.

// Note [Frontier through index values]
// A one-hot mask, a target compared against an arange, a causal mask: values
// computed from integer inputs and constants only. Read as frontier tensors
// they are any bools or reals, and what makes a proof hold is lost: a one-hot
// of a target in range has exactly one 1 per row, and nll_loss reads the same
// target directly (Note [Index inputs in range] in input_domains.h). Widening
// to the graph inputs shows it, but expands the float computation too (a
// log-softmax and its max, unrolled), and Z3 over the reals then timed out on
// a cross-entropy of 8 classes that it proves in a second when only the
// index values are expanded. So the first widening of a region keeps the
// smallest frontier for every float computation and expands only the shared
// values whose cone reads no floating graph input.

// Note [Widening the frontier]
// A shared value read as a frontier symbol loses what its definition implies:
// a causal softmax's probabilities are 0 under the mask, which is why a
// hand-derived attention backward need not mask its gradient again while
// autograd's does. Expanding every shared value up to the graph inputs shows
// that, but for a model the terms grow with its depth. The middle ground stops
// only at shared outputs of matrix products (mm, bmm, matmul, linear, addmm):
// the elementwise, reduction and layout ops between them, such as a softmax
// and its mask, are expanded, and every layer's region stays the same size.
// "Output of a matrix product" is a property of the value number: a shared
// value that one graph computes by a product and the other by a view of one
// (a 4-d matmul against a view of a 3-d bmm) is a frontier on both sides.

// Note [Bounded widening]
// A widened frontier expands shared values, and in a deep model a shared value
// leads to the one before it through every layer: the residual stream (and
// the gradient accumulated over layers) is a chain of additions, none a matrix
// product. A region widened through it grows with the depth, and its normal
// form with the square of it (x^2 of a sum of 2N products); the cut search,
// which widens every candidate it fails to prove, becomes quadratic or worse.
// What a proof needs from its shared values is local (the mask under a causal
// softmax, the rsqrt under a norm's backward), so each widening is first tried
// bounded: the level of a shared number is the fewest accumulations (an
// add or sub of two non-constant, non-scalar tensors) on a path from either
// output down to it, found by one 0-1 breadth-first search before the terms
// are built; a number deeper than the bound is a frontier tensor. The level
// is per number, not per path or side, so both sides read the same values
// (with one side expanding x and the other reading it, the normal form would
// see two different polynomials). A bound only moves the frontier to other
// shared values: what it proves holds, and what it fails to prove is no
// refutation. The prover tries bound 2 before the unbounded widening; the cut
// search never goes unbounded.

// Note [Bitwise regions]
// At level bitwise a reduction's result depends on its order of accumulation,
// which only the op itself fixes (a different op, layout or kernel may add in
// another order). So for the bitwise query every value produced by an op whose
// semantics contains a reduction (sum, mean, mm, softmax, ...) is an opaque
// tensor named by its value number: equal only to itself, which is exactly
// what value numbering proves about deterministic ops. So is every value of an
// op whose semantics is not bit-exact against ATen's kernel (Note
// [Bitwise-faithful semantics] in ir/bitwise_faithful.h).
enum class RegionMode { Real, Bitwise };

struct Region {
  sem::TermPtr reference = nullptr;
  sem::TermPtr production = nullptr;
  // Canonical structure of both terms with frontier tensors renumbered by first
  // use: equal keys mean the same proof obligation (memoization).
  std::string key;
  // The frontier tensors (by slot) that hold indices into a dim, with their
  // range (Note [Index inputs in range] in src/verify/input_domains.h).
  std::map<int, IndexAssumption> indexDomains;
};

// Note [Oversized definitions]
// One check builds the smallest region of output after output; in a deep
// training graph many of them contain the same unmatched attention backward,
// whose terms run to the term budget (Note [Term budget] in src/sem/term.cpp),
// so each output rebuilt hundreds of thousands of terms only to give up (BERT
// and T5 training: past 120 s). A value whose own definition built more than
// `minTerms` terms before its region gave up is recorded, by the kind of
// region (frontier, mode, bound); a later region of the same kind that reaches
// it gives up at once, saying so. The set of shared numbers, and so each
// value's definition at a frontier, is fixed for the record's lifetime (one
// proof stage). Only ever turns work into `unknown`, never into a proof.
struct OversizedDefinitions {
  std::unordered_set<std::string> keys;
  size_t minTerms = 100000;  // a third of the term budget
};

struct RegionInputs {
  const Graph &reference;
  const Graph &production;
  const ValueNumbering &vn;
  const std::unordered_set<int> &shared;  // numbers computed by both graphs
  // Numbers that either graph computes by a matrix product (the widened
  // frontiers stop at or expand them); addMatrixProductNumbers() makes the set.
  const std::unordered_set<int> &matrixProducts;
  // Values that read no graph input (a causal mask, a bias constant): adding
  // one is no accumulation (Note [Bounded widening]); addConstantValues()
  // makes the set.
  const std::unordered_set<const Value *> &constants;
  // Values that hold a graph input's indices, by number (Note [Index inputs
  // in range]); null: none known.
  const IndexDomains *indexDomains = nullptr;
  // Note [Oversized definitions]; null: none recorded.
  OversizedDefinitions *oversized = nullptr;
};

bool isMatrixProduct(const std::string &op);
// The numbers of values that a matrix product computes in g (insert into out).
void addMatrixProductNumbers(const Graph &g, const ValueNumbering &vn, std::unordered_set<int> &out);
// The values of g that read no graph input (insert into out).
void addConstantValues(const Graph &g, std::unordered_set<const Value *> &out);

// Terms for element `index` of outputs a (reference) and b (production). Slot
// of a frontier read = the value's number. Throws sem::Unsupported, also when
// the terms grow past `maxTerms` (0: 20,000 for a widened frontier, the term
// budget for the smallest one). `maxExpansions` (0: no bound) bounds a widened
// frontier: a shared value more than that many accumulations deep is read, not
// expanded (Note [Bounded widening]).
Region buildRegion(sem::TermContext &tc, const RegionInputs &in, const Value *a, const Value *b, Frontier frontier,
                   RegionMode mode, size_t maxTerms = 0, size_t maxExpansions = 0);

// Note [Frontier reads on one side]
// A frontier tensor stands for any values, so a region proves something only about the values
// both sides read: where one side reads a shared value and the other computes the same thing
// from what lies below it, the forms differ though the graphs agree. A cut makes this common
// (Note [Cut points]): a chunked recurrence's state, merged with the reference's, is what the
// reference's output reads at the chunk's last step, while production computes that output
// within the chunk from the inputs; at the next chunk's steps both read it. So it is decided per
// element (Note [Normal forms element by element]): where the forms of an element differ, each
// tensor that only one side's form reads is read as its definition, index maps first (a view of
// the state is the state), and again for what that reads, until both read the same tensors.
// Sound as any expansion (a frontier read stands for exactly what its definition computes); a
// proof that expanded is memoized by the whole cone's graph key (Frontier::Inputs), as a
// widened one is (Note [Memo of widened proofs] in src/verify/prover.cpp), since it rests on
// more than the region's terms.
// The definition of frontier tensor `number` at the concrete `index`, built in `tc` as a region
// of kind `frontier` builds terms (its operands read where that region reads them); null when
// no graph computes the number, or, with `indexMapsOnly`, when its op is no index map.
sem::TermPtr frontierDefinition(sem::TermContext &tc, const RegionInputs &in, Frontier frontier, int number,
                                const std::vector<sem::IndexExpr> &index, bool indexMapsOnly);

// Note [Region keys from the graph]
// A region's terms are a function of what it expands and what it reads: for
// each expanded value its op, attributes, result types and operands (a
// semantics handler sees nothing else of the graph, sem::OpEnv), and for each
// frontier value its number and type. The number of a frontier value matters
// only as an identity (which reads are the same tensor), so numbers are
// renumbered by first use, and two layers of a model give one key. Values
// that are equal in structure have equal numbers (value numbering), so
// nothing the terms depend on is lost. The key is written by walking the
// graph with the same frontier decisions as buildRegion, without building a
// term: the prover memoizes and caches by it (Note [Proof cache]), and a
// region seen before (another layer; the unchanged layers of an edited model
// in the proof cache) costs one walk of its nodes instead of its terms, which
// were about half of a 64-layer decide. The key is finer than the terms' own
// (a view chain and the view it folds into differ), so the memo also answers
// by the terms' key once they are built.
std::string regionGraphKey(const RegionInputs &in, const Value *a, const Value *b, Frontier frontier,
                           RegionMode mode, size_t maxExpansions = 0);

}  // namespace torchtv
