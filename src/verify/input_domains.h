// Where random refutation draws each graph input from (Note [Input domains]).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "src/sem/assumption.h"
#include "src/sem/index_range.h"
#include "src/match/value_numbering.h"

namespace torchtv {

// Note [Input domains]
// Random refutation (refute.h) draws inputs from a few fixed distributions.
// An integer input that indexes a dim (gather's index, nll_loss's target, an
// embedding's ids: the registry's `indexes` column) is out of range under them
// whenever the dim has fewer than 4 entries ("small integers" draw [0, 4)), and
// the evaluator skips an input with an index out of range: a cross-entropy
// over 3 classes was never evaluated at all, and classes past 3 never drawn.
// One more distribution therefore draws each such input in [0, size of the
// dim), the smallest size over all its index uses, and draws a float input
// that a log, sqrt or rsqrt reads (the `positiveArg` column) positive. The walk
// from an input to its uses passes through ops that only move elements (the
// `elements` column: view, permute, slice, ...) and dtype conversions, and
// through ops that gather its elements (a buffer of ids read by gather: Note
// [Computed indices in range]).
//
// Masks are inputs too, and the bugs around them sit in rows that random
// values never make: a row with every key masked (1 in 65536 random bool rows
// of 16), or an additive mask row all large negative. A mask distribution
// draws every bool input as rows all true, all false, one true and random,
// and every float input that is an additive mask (added into the input of a
// softmax, logsumexp or amax, the `masks` column, or attention's float
// attn_mask) as 0 or -1e9 (f16: its finfo.min, -65504), in rows the same way.
// Not -inf: a difference that needs an infinite (or NaN) input is one that
// level real does not see (Note [Masked -inf]; goldens
// edge/inf_times_zero_where, edge/logsumexp_vs_unguarded_shift), and the
// search runs before the prover, so an input outside the reals could turn a
// pair equal over the reals into not_equivalent (the confirmer drops most
// such differences, non-finite in double, not all: isnan, where). Not f32's
// finfo.min either: near it a value absorbs anything below about 1e-19 of it
// in double and long double alike (x + 0.7 == x in both), so the confirmer
// (Note [Confirming counterexamples]) cannot tell rounding from a difference
// there; softmax(s + m) against a formula that cancels m first would come
// out refuted on a fully masked row though equal over the reals. -1e9 masks
// alike in every dtype but f16 (exp(-1e9) is 0 even in long double) and
// double resolves it. For the same reasons the edge distribution (refute.h)
// draws only finite values: +-0, subnormals, ties, and values near the
// largest finite only in f16 (edgeValue in refute.cpp: log_softmax(x) against
// x - logsumexp(x) came out refuted on a row near f32's largest).
struct InputDomain {
  std::optional<int64_t> indexBound;  // indices into a dim of this size
  std::string inputName;
  std::string indexedBy;              // the op whose use gave indexBound
  // Points outside [0, indexBound) the reference's kernel also accepts (ignore_index,
  // padding_idx): the domain distribution draws them too (Note [Reference kernel domains]).
  std::vector<int64_t> alsoDrawn;
  bool positive = false;              // read by an op real-valued only for positive values
  bool additiveMask = false;          // a float added into a softmax's input, or attention's attn_mask
};

// Note [Index inputs in range]
// An op that indexes a dim with an integer tensor (the `indexes` column:
// gather, index_select, embedding, scatter, one_hot, nll_loss's target)
// raises for an index outside [0, size) (Note [Data-dependent indices] in
// src/sem/index_ops.cpp), so a program that indexes with a graph input is
// only ever run with that input in range. The same program written without
// the op need not raise there: a one-hot by `eq`/`arange` is all zeros where a
// scatter raises, and a hand-written cross-entropy differs from nll_loss at a
// target out of range and at nll_loss's ignore_index (-100). Such a pair is
// equal exactly on the in-range inputs, which Z3 over all integers does not
// see. So the prover (Prover::query, src/verify/prover.cpp) asks a Z3 query
// that failed once more, with every element of such an input in [0, size):
// of the input itself and of the values that only move its elements (views,
// slices, permutations, integer conversions that keep the value), by value
// number. A proof that needed it reports it, once per kind with a count
// ("assumes %y is an index in [0, 8) (aten::nll_loss_forward raises outside
// it; its ignore_index -100 is assumed absent)"), in every format; a proof
// that holds without it reports nothing. Only the reference's uses count (the
// smallest dim that the reference indexes with the input): the reference's
// domain is the contract (docs/architecture.md, "The reference's domain"),
// and a production that raises where the reference computes a value is never
// equivalent (golden prover/index/index_put_negative_index_wraps).
//
// Note [Computed indices in range]
// The same holds of a computed integer value that the reference indexes with:
// every run of the reference that does not raise has it in range. BERT's
// token-type ids are `gather(token_type_ids_buffer, 1, position_ids)`, read by
// the embedding of 2 rows; T5's relative-position buckets are arithmetic on
// positions, read by the embedding of 32 buckets. Their embedding's gradient
// (ATen's masked sum over one_hot(ids)) against torch._decomp's index_put
// (which takes ids in [-K, 0) as counting from the end) is equal only for ids
// in range, and with the bound only on graph inputs the gathered ids (the
// region's frontier, or the buffer behind a gather) had none: the last output
// of both training pairs stayed unknown (tests/corpus/RESULTS.md). So a value
// of the reference computed by an op that does not only move elements gets a
// bound from its own uses, as an input does ("%gather is an index in [0, 2)
// (aten::embedding raises outside it)"), and the values that only move its
// elements share it, in both graphs, by value number. Not a bound on what it
// is computed from: `arange(N) * C + target` in [0, N * C) says nothing of
// `target`, and a gathered buffer's elements that no position reads may be
// anything (golden prover/index/gathered_ids_embedding_backward_vs_decomposition).
// Random refutation, which only draws, does draw a buffer whose gathered
// elements index a dim within that dim (Note [Input domains]): a planted bug
// behind a gathered index is refuted then, where draws over [0, 4) left it
// unknown (its __mask_real_row twin).
//
// Note [Reference kernel domains]
// Only the reference as it runs justifies an assumption: the ATen kernels of
// the reference as captured, before normalization expands any of them through
// a definition (whose internal ops, a one_hot in embedding_dense_backward's,
// a gather in nll_loss's, are torchtv's writing, not what runs), and never
// production's ops. referenceKernelDomains reads them off the captured graph
// (the registry's `indexes` column says which argument indexes which dim, and
// kAlsoAccepted in input_domains.cpp the points outside the dim the kernel
// accepts); the normalized graph keeps the same Value objects where it did not
// replace them (values are never freed), so the domain follows them there. A
// value normalization replaced loses its domain: fewer assumptions, never a
// wrong one. Measured on /usr/bin/python3's torch 1.13 (CPU):
//   - nll_loss_forward/backward, nll_loss2d_forward/backward: a target equal
//     to ignore_index (-100 by default) is skipped (weight 0, gradient row 0);
//     any other target outside [0, C), -1 included, raises "Target -1 is out
//     of bounds". Domain [0, C) plus ignore_index.
//   - embedding (forward) raises on every index outside [0, N), padding_idx
//     or not ("index out of range in self"). Domain [0, N).
//   - embedding_dense_backward, scale_grad_by_freq=false: raises nowhere. An
//     index equal to padding_idx (-1 when the module has none) contributes
//     nothing, and so does every index outside [0, N), -1 and N included (the
//     kernel bins rows by range and drops the rest). No domain: torch's
//     decomposition (index_put, which counts -1 from the end) differs there.
//     With scale_grad_by_freq=true the kernel reads its counts out of bounds
//     (the process aborted, free(): invalid pointer): domain [0, N).
//     A train step still gets [0, N) for its ids from embedding's forward.
//   - gather, index_select, scatter, scatter_add, one_hot: raise outside
//     [0, size). Domain [0, size).
// Where a value has several uses, its domain is their intersection (every
// kernel must accept it). A user who wants a narrower domain declares it
// (Note [Declared input domains]).
//
// Note [Declared input domains]
// `--assume 'x1 in [0,5)'` (check, verify, the ci manifest's "assume") and a
// pair file's ASSUME = {"target": "in [0, 5)"} name a graph input and a range
// (optionally `or -100`, points it also takes). The declared range replaces
// what torchtv derives for that input; a proof that used it says so apart
// ("as you declared: %x1 is in [0, 5)"), since it rests on the user's word,
// not on the reference's kernels. A declared input the graphs do not have is
// an error (exit 3).
// An index input's range: Kind::IndexInRange, or Kind::DeclaredRange for the user's
// (Note [Assumptions as data] in src/sem/assumption.h).
using IndexAssumption = sem::Assumption;
// By value number (Note [Index inputs in range]).
using IndexDomains = std::unordered_map<int, IndexAssumption>;
// The reference's values as captured (inputs and computed integer values), with
// the domain its ATen kernels give each (Note [Reference kernel domains]).
using ReferenceDomains = std::unordered_map<const Value *, IndexAssumption>;
ReferenceDomains referenceKernelDomains(const Graph &refAsCaptured);

// A range the user declared for a graph input (Note [Declared input domains]).
struct DeclaredDomain {
  std::string input;  // without '%'
  sem::IndexRange range;
};
// Parses "x1 in [0, 5)" or "x1 in [0,5) or -100"; throws InputError with the text otherwise.
DeclaredDomain parseDeclaredDomain(const std::string &text);
// Replaces the domains of the declared inputs of `ref` (by name) with the declared ones;
// throws InputError naming a declared input `ref` does not have.
void applyDeclaredDomains(const Graph &ref, const std::vector<DeclaredDomain> &declared, ReferenceDomains &domains);

IndexDomains indexDomainsByNumber(const Graph &ref, const Graph &prod, const ValueNumbering &vn,
                                  const ReferenceDomains &referenceDomains);

// One domain per graph input, in order; with `referenceDomains` (of g's values), an input's
// kernel domain sets its bound and the points drawn besides (Note [Reference kernel domains]).
std::vector<InputDomain> inputDomains(const Graph &g, const ReferenceDomains *referenceDomains = nullptr);


// Whether any input has a domain the fixed distributions do not draw from.
bool anyDomain(const std::vector<InputDomain> &domains);
// Whether any input is a mask: a bool, or an additive mask.
bool anyMask(const Graph &g, const std::vector<InputDomain> &domains);

}  // namespace torchtv
