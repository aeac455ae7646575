// Terms of one concrete element, with their short sums written out
// (Note [Normal forms element by element]).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "src/sem/assumption.h"
#include "src/sem/index_range.h"
#include "src/sem/term.h"

namespace torchtv::sem {

// Note [Normal forms element by element]
// The real normal form (Note [Real normal form]) compares two terms at a
// symbolic index, for any size of the dims: a sum stays a sum atom. Code that
// computes one sum another way (a chunked linear attention: a cumulative sum
// of per-chunk matrix products, against a recurrence that adds one outer
// product per step; a loop unrolled by hand against a reduction) writes sums
// over different ranges, whose atoms never meet, and Z3 over the reals runs out
// of time on the polynomial identity. At the captured sizes the question is
// finite: for each element of the output, substitute its coordinates, write
// out every sum over a concrete range of at most `maxUnroll` elements as
// additions, and compare the normal forms of the two closed terms. Each step is
// an identity over the reals (a sum over [0, n) is its n summands; a read at
// concrete coordinates is a value), so equal forms at every element prove the
// outputs equal over the reals at these sizes, under the normal forms'
// assumptions. Other reductions (max, min, product) stay reductions over their
// instantiated bodies. It decides polynomial and exp-log identities the
// symbolic form misses; it does not replace it (it is exhaustive over the
// elements, so it is bounded: Limits).
struct ElementLimits {
  int64_t maxElements = 4096;  // output elements compared
  int64_t maxUnroll = 64;      // a longer sum stays a sum atom
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct ElementComparison {
  bool equal = false;
  Assumptions assumptions;  // of the normal forms, when equal
  // When not equal: the first element whose forms differ, as "[i,j,...]", and the two forms
  // there (normal-form keys, for -vv).
  std::string differingElement, formA, formB;
  bool expanded = false;  // some element was decided with frontier tensors read as their definitions
};

// Whether two different normal-form keys of one element are to be taken as
// equal at the caller's level (constants within one rounding: Note [Rounded
// constants] in src/verify/rounded_constants.h); the caller records why.
using KeysMatch = std::function<bool(const std::string &a, const std::string &b)>;

// The definition of frontier tensor `slot` at concrete `index`, built in the given context, or
// null (Note [Frontier reads on one side] in src/verify/region.h); `indexMapsOnly`: only where
// the tensor is an index map of another.
using ExpandRead = std::function<TermPtr(TermContext &, int slot, const std::vector<IndexExpr> &index,
                                         bool indexMapsOnly)>;

// Compares a and b element by element over the concrete extents of their free
// variables (the output's coordinates). Throws Unsupported when an extent is
// symbolic, the limits are passed, or a normal form cannot be built.
// `inRange`: the index ranges the region assumes (Note [Normal form with indices in range] in
// src/verify/prover.cpp), or null; each element's closed terms are rewritten with them (Note
// [Terms with indices in range] in src/sem/index_ranges.h) and their normal forms use them (Note
// [Indicators that cover a range] in src/sem/normal_form.h).
// `expand`: where an element's forms differ, the tensors one side reads alone are read as their
// definitions (Note [Frontier reads on one side]); `expanded` is then set.
ElementComparison compareElementByElement(TermContext &tc, TermPtr a, TermPtr b, const ElementLimits &limits,
                                          const KeysMatch &alsoMatch = nullptr,
                                          const IndexRanges *inRange = nullptr, const ExpandRead &expand = nullptr);

}  // namespace torchtv::sem
