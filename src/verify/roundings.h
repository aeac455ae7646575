// Equivalence up to rounding (issue 34, items 2 and 3): the sites a level-rounded proof rests on.
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/dtype.h"
#include "src/verify/verdict.h"

namespace torchtv {

class Graph;
class Value;
struct CutPoint;

// Note [Equivalence up to rounding]
// Level `rounded`, weaker than `real` (bitwise > real > rounded): the outputs are equal over the
// reals once each of these sites is read as exact, and the report names every site with a bound
// on the perturbation it introduces there.
//  (a) Constants rounded from one real (Note [Rounded constants] in rounded_constants.h): the two
//      normal forms differ only in numbers, each pair within one rounding of the dtype the
//      constants compute in (two roundings of one real r both lie within u|r| of it, so they are
//      at most 2u apart, u the unit roundoff). Further apart, the constants differ and nothing is
//      proven: Megatron's bias-GELU backward writes 0.1070322243 where the forward's constants
//      give 0.10703222430124 (1.1e-11 apart: rounded in f32, a real difference in f64, which the
//      normal path refutes with a Z3 model replayed on the graphs). Bound: |a - b| / |a|.
//  (b) Casts that narrow a floating value on one side only (x.to(bf16) where the other side keeps
//      x in f32): the real semantics reads every floating cast as the identity (TOp::Cast in
//      src/sem/normal_form.cpp), so such a pair is equal over the reals, but the cast rounds far
//      more than the working precision does, on purpose. Found on the graphs (the cones of the two
//      outputs): the narrowing casts of one side that the other side does not make as well (the
//      same dtypes, counted), to a dtype coarser than any the other side computes in (an f32
//      upcast cast back to the bf16 the reference computes in rounds no more than the reference
//      does). Bound: the unit roundoff of the dtype cast to.
// Each bound is of the perturbation at that site, not of the outputs: how far it carries through
// the ops after it (a sum of many, a subtraction of near-equal values) is not propagated.
// Nothing is ever refuted from rounding: a site within these bounds is this level or, with
// `--require real`, unknown; only values that differ beyond it reach the refutation path.

// The unit roundoff of a floating dtype (2^-53 for f64, 2^-24 for f32, 2^-11 for f16, 2^-8 for
// bf16); 0 for the others.
double unitRoundoff(DType d);

// Narrowing floating casts in the cone of one output, on one side and not the other, each with
// its line ((b) above). Empty when the two sides narrow alike, or not at all.
std::vector<Rounding> narrowingCastsOnOneSide(const Value *reference, const Value *production);

// The one place an equivalent output becomes `rounded` for what its cone holds (after the
// levels of Note [Levels of rewrites]): an output at level real or rounded whose cone holds a
// rounded cut point, or a narrowing cast on one side only, is rounded and lists those sites;
// a bitwise one stays (its proof reads neither). Its reason names the sites it did not name yet.
void settleRoundedLevels(const Graph &reference, const Graph &production, const std::vector<CutPoint> &cuts,
                         std::vector<OutputResult> &outputs);

// Whether the cone of either output holds a cut point proven at level rounded.
bool roundedCutInCone(const std::vector<CutPoint> &cuts, const Value *reference, const Value *production);

// Adds the sites of `from` not in `into` yet, in order.
void addRoundings(std::vector<Rounding> &into, const std::vector<Rounding> &from);

// One site as a line, for every format: "constants 0.35355339059327373 (reference) and
// 1/2.8284271247461903 (production), f32, model.py:12, differ by 1.6e-16 (relative)", "a cast
// f32 -> bf16 in production, model.py:30, rounds by at most 3.9e-03 (relative)".
std::string describeRounding(const Rounding &r);
// "equal over the reals up to the rounding of <site>; <site>; ..." (at most `shown` sites).
std::string describeRoundings(const std::vector<Rounding> &rs, size_t shown = 3);

// Stored and read back (the proof cache, the result cache, --format json).
nlohmann::json roundingsJson(const std::vector<Rounding> &rs);
std::vector<Rounding> roundingsFromJson(const nlohmann::json &j);

}  // namespace torchtv
