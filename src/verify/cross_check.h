// Proofs held against runs of the code (Note [Cross-checks]).
#pragma once

#include <string_view>

#include "ir/capture_evidence.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Cross-checks]
// A proof is about the graphs torchtv decided; a run is what the code does.
// Every `equivalent` output is held against each run that is at hand: the
// user's functions run eagerly by the capture (`verify`; Note [Eager
// cross-check] in src/capture/torchtv_capture/eager.py), and under
// `--self-check` both graphs run through torchtv's evaluator and LibTorch's
// kernels. A run can only weaken a verdict:
// - a `bitwise` output whose runs differ in any bit becomes `real`, saying how
//   many elements differ by how many ulp (the graph is not the code that runs,
//   or an op's semantics is not bit-exact);
// - an `unknown` output whose eager runs differ beyond rounding becomes
//   `not_equivalent`: two runs of the user's code on one input disagree,
//   which is a counterexample in itself; where the runs cannot tell (an op
//   ran below float64 in the float64 runs: Note [Float64 evidence only from
//   float64 runs] in src/capture/torchtv_capture/precision.py), its `runs`
//   says why, naming the op and the line (Note [Evidence of undecided outputs]);
// - so does an `equivalent` output whose eager runs differ beyond rounding
//   (they still differ in float64): the user's functions differ on that
//   input whatever the graphs say, and the reason names the internal
//   inconsistency (the decided graphs are not the code that runs: code that
//   checks whether it is traced, or a torchtv bug). Where the runs are of
//   the graphs, not of the user's code (--self-check: `refutes` false), such
//   an output becomes `unknown` (internal inconsistency): the graphs are
//   proven equal and run apart, so torchtv is wrong somewhere, and nothing
//   says which side the user's code is on.
// Runs at reduced shapes (a shape-only pair's small_inputs(),
// runs.reducedShapes) can only refute: a difference beyond rounding is an
// input on which the code differs (it makes `unknown` and `equivalent`
// `not_equivalent`, the shapes stated), but bits that differ at other
// shapes say nothing about a bitwise claim at the captured ones.
// `what` names the runs in reasons ("running the pair's functions eagerly");
// `bitsDiffer` is what a bit difference means for them (reasons::kRunsDifferInBits
// for the user's code, kKernelsDifferInBits for --self-check's runs of the graphs).
void applyRunEvidence(CheckResult &result, const EagerEvidence &runs, std::string_view what,
                      std::string_view bitsDiffer, bool refutes);

// The eager runs of a capture (above), and its input mutations: an output
// NAME__updated that is not equivalent, where only one side modifies NAME,
// says so first ("production modifies its input %NAME in place").
void applyCaptureEvidence(CheckResult &result, const CaptureEvidence &capture);

// Note [Evidence of undecided outputs]
// An `unknown` hides what was seen unless it is said: a user deciding
// whether to trust, fix or accept such an output needs to know whether the
// code agreed when it ran. Each unknown output with eager runs gets `runs`,
// rendered by every format: the inputs it ran on and how the two functions'
// outputs compared there (bit for bit, within rounding with the ulps, or
// apart, with the first element). It is evidence, never a verdict: agreeing
// runs do not prove, and runs that cannot tell rounding from a bug (the code
// computes in float32) do not refute.
void describeRunsOfUndecided(CheckResult &result, const EagerEvidence &runs);

}  // namespace torchtv
