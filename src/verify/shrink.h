// A refuting input made small while it still refutes (Note [Shrinking
// counterexamples]); where the two graphs first differ on it is
// src/verify/localize.h's concern.
#pragma once

#include <string>

#include "ir/graph.h"
#include "src/verify/counterexample_confirm.h"
#include "src/verify/refute.h"

namespace torchtv {

// Note [Shrinking counterexamples]
// A confirmed refuting input is simplified while the confirmer still finds the
// same output differing on it. Delta debugging first sets whole floating inputs
// to zero (halves of the list, then quarters, ...: a deep model's difference
// needs few of its hundreds of weights),
// then chunks of each input's nonzero entries (halves, then quarters, ...:
// floating inputs first, then integer and boolean ones, whose zero is in range
// as an index into any dim), then rounds each floating
// input's values to integers, else to two significant digits. The confirmer
// evaluates only the refuted output's cone; a candidate whose evaluation fails
// does not refute. At most kShrinkEvaluations candidates are
// confirmed, within kShrinkSeconds of CPU (graphs near the evaluation budget
// take long to evaluate; CPU, not wall, so that a loaded machine shrinks as far
// as an idle one). Only the pair's reported counterexample is shrunk, before it is
// replayed through LibTorch; a shrunk input that does not replay gives way to
// the input found (recordRefutation, src/verify/counterexample.cpp).
constexpr int kShrinkEvaluations = 96;
constexpr double kShrinkSeconds = 5.0;  // of CPU

// Shrinks `r` in place (its inputs, and the difference confirmed on them);
// returns a phrase saying what shrinking did, "" when nothing smaller refutes.
std::string shrinkRefutation(const Graph &ref, const Graph &prod, Refutation &r, CounterexampleConfirmer &confirmer);

// `v` rounded to `digits` significant digits (0, inf and NaN stay); also how
// localization compares values (src/verify/localize.cpp).
long double roundSignificant(long double v, int digits);

}  // namespace torchtv
