// "The values differ": every comparison that decides it, in one place.
#pragma once

#include "ir/dtype.h"

namespace torchtv::differ {

// Note [When values differ]
// Seven comparisons decide that two computed values differ (or may differ by rounding only), each
// where a verdict rests on it.
// They differ on purpose (each compares values computed in a different precision, for a
// different claim); each is defined here and nowhere else.
//
//  who                          precision                 differ when                       why
//  1 evaluator confirmation     the graphs' dtypes, then  native values differ, and the     rounding noise shrinks ~2^11 from
//    (counterexample_confirm)   double and long double    double and long-double            double to long double, a real
//                               without rounding          differences agree within          difference does not; below 1e-14
//                                                         kEvaluatorAgreement and exceed    of the scale nothing is told apart
//                                                         kEvaluatorFloor of the scale      from cancellation
//  2 exact replay               LibTorch, the graphs'     any difference of values (every   the evaluator confirmed a real
//    (replayOnOriginals)        dtypes                    NaN equals every NaN; -0 == 0)    difference already; the replay
//                                                                                           shows it happens in the kernels
//  3 replay confirmer           LibTorch, the graphs'     beyond replayTolerance(dtype) of  no evaluator to rule rounding out:
//    (makeReplayConfirmer)      dtypes                    the output's scale (absolute      1e-4 is far above float32's
//                                                         below a scale of 1)               rounding, 1e-2 above 16-bit floats'
//  4 self-check (--self-check)  long double (evaluator)   beyond kSelfCheckRelative of the  real-level claims: both graphs in
//                                                         scale (at least 1)                long double round far below 1e-9
//  5 eager cross-check          float64 eager runs of     beyond the float64 rounding       a difference that stays in float64
//    (capture/eager.py)         the user's functions      bound measured from the graph     is not float32 rounding; the bound
//                                                         dtype's error (x ROUNDING_SAFETY, is measured, not guessed (Note
//                                                         at least ROUNDING_FLOOR of the    [Eager cross-check]); Python computes
//                                                         scale; BEYOND_ROUNDING when it    it, the decision reads its verdict
//                                                         cannot be measured)               (EagerOutputCheck::beyondRounding)
//  6 rounding gate before       the evaluator's values    within kRoundingsBeforeRefuting   never refute from rounding: such a
//    refuting (couldBeRounding  in the output's dtype     roundings (2u each) of the        difference is first offered to the
//    in check.cpp)                                        output's dtype, relative to its   rounding prover (the normal form, on
//                                                         magnitude: may be a rounding      the matched region); past it the
//                                                         (mayBeRounding)                   normal form of a real bug grew past
//                                                                                           memory (session 14, layers3_eps)
//  7 a refutation run on the    the user's functions      beyond sqrt(eps) of the output's  the code's own rounding at any
//    code (capture/code_runs.py eagerly, the inputs'      dtype times its scale; else, when ordinary depth stays far below half
//    Note [A refutation          own dtypes, then         every op ran in float64, the      its digits; a bug on a chosen input
//    reproduces on the code])    float64                  float64 runs differ as in 5       does not (code_runs.h says the rest)
// Bitwise claims compare bits (eval::bitEqual: +0 and -0 differ) and are no "values differ".
constexpr long double kEvaluatorAgreement = 1e-3L;
constexpr long double kEvaluatorFloor = 1e-14L;
constexpr double kReplayRelative = 1e-4;
constexpr double kReplayRelative16 = 1e-2;
constexpr long double kSelfCheckRelative = 1e-9L;
constexpr double kRoundingsBeforeRefuting = 100;

// 1: the evaluator's values of one element: native (the dtypes), double and long double (wide).
bool evaluatorConfirms(long double refNative, long double prodNative, long double refDouble, long double prodDouble,
                       long double refWide, long double prodWide);
// 2: LibTorch's values of one element, exactly.
bool replayedDiffer(double reference, double production);
// 3: the fraction of the output's scale beyond which replayed values differ (0 for integers).
double replayTolerance(DType dt);
// 4: two long-double values of a real-level output.
bool selfCheckDiffer(long double reference, long double production);
// 6: two finite values of an output of dtype `dt` close enough to differ by rounding only.
bool mayBeRounding(double reference, double production, DType dt);

}  // namespace torchtv::differ
