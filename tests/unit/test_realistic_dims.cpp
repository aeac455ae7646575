// Train steps at realistic dims (issue 18, item 2; tools/metamorphic's `_real` seeds): shapes
// past the evaluation budget, so no seeded evaluation offers cut points, and reductions longer
// than Z3 unrolls. What the small-dim goldens prove through evaluation and unrolling must be
// proven here by normalization and the real normal form alone. No self-check (the golden runner
// would evaluate these graphs: minutes).
#include <doctest/doctest.h>

#include <string>

#include "ir/text_format.h"
#include "src/verify/check.h"

namespace torchtv {

namespace {

CheckResult check(const std::string &text) {
  Module m = parseModule(text, "realistic.tvir");
  return checkGraphs(*m.find("reference"), *m.find("production"), CheckOptions{});
}

// A ReLU MLP's input gradient: autograd compares relu's saved result (threshold_backward),
// the hand-derived backward the pre-activation (h > 0); both gate the sum over F = 11008.
const char *const kReluBackward = R"(
graph @reference(%x: f32[2048,4096], %w1: f32[4096,11008], %b1: f32[11008], %gh: f32[2048,11008]) -> (f32[2048,4096]) {
  %mm: f32[2048,11008] = aten::mm(%x, %w1)
  %add: f32[2048,11008] = aten::add.Tensor(%mm, %b1)
  %relu: f32[2048,11008] = aten::relu(%add)
  %detach: f32[2048,11008] = aten::detach(%relu)
  %tb: f32[2048,11008] = aten::threshold_backward(%gh, %detach) {threshold=0}
  %t: f32[11008,4096] = aten::t(%w1)
  %gx: f32[2048,4096] = aten::mm(%tb, %t)
  return %gx
}
graph @production(%x: f32[2048,4096], %w1: f32[4096,11008], %b1: f32[11008], %gh: f32[2048,11008]) -> (f32[2048,4096]) {
  %mm: f32[2048,11008] = aten::mm(%x, %w1)
  %add: f32[2048,11008] = aten::add.Tensor(%mm, %b1)
  %gt: bool[2048,11008] = aten::gt.Scalar(%add) {other=0}
  %mask: f32[2048,11008] = aten::_to_copy(%gt) {dtype=f32}
  %g: f32[2048,11008] = aten::mul.Tensor(%gh, %mask)
  %t: f32[11008,4096] = aten::t(%w1)
  %gx: f32[2048,4096] = aten::mm(%g, %t)
  return %gx
}
)";

// The same gate as relu(h) > 0 in the reference: no rule relates it to h > 0 yet, so the output
// stays unknown, and Z3's model sets the two sums over F (uninterpreted) apart.
std::string reluGtBackward() {
  std::string s = kReluBackward;
  const std::string from = "  %detach: f32[2048,11008] = aten::detach(%relu)\n"
                           "  %tb: f32[2048,11008] = aten::threshold_backward(%gh, %detach) {threshold=0}\n";
  const std::string to = "  %gt: bool[2048,11008] = aten::gt.Scalar(%relu) {other=0}\n"
                         "  %mask: f32[2048,11008] = aten::_to_copy(%gt) {dtype=f32}\n"
                         "  %tb: f32[2048,11008] = aten::mul.Tensor(%gh, %mask)\n";
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// Cross-entropy with integer targets at V=32000 (issue 18, items 6-7): autograd's nll_loss and
// log-softmax backward against the loss picked by an eq/arange one-hot mask and the gradient
// softmax - one_hot. Past 128 classes the gather is a pick (Note [Reads at data-dependent
// positions] in src/sem/index_ops.cpp) and the one-hot v == value(c) (Note [Positions as values in
// terms] in src/sem/term.h); with the targets in range the normal forms meet.
const char *const kIntegerTargetXent = R"(
graph @reference(%x: f32[2048,32000], %y: i64[2048]) -> (f32[], f32[2048,32000]) {
  %ls: f32[2048,32000] = aten::_log_softmax(%x) {dim=1, half_to_float=false}
  %loss: f32[], %tw: f32[] = aten::nll_loss_forward(%ls, %y, none) {reduction=1, ignore_index=-100}
  %g: f32[] = aten::ones_like(%loss)
  %gi: f32[2048,32000] = aten::nll_loss_backward(%g, %ls, %y, none, %tw) {reduction=1, ignore_index=-100}
  %gx: f32[2048,32000] = aten::_log_softmax_backward_data(%gi, %ls) {dim=1, input_dtype=f32}
  return %loss, %gx
}
graph @production(%x: f32[2048,32000], %y: i64[2048]) -> (f32[], f32[2048,32000]) {
  %mx: f32[2048,1], %ix: i64[2048,1] = aten::max.dim(%x) {dim=-1, keepdim=true}
  %z: f32[2048,32000] = aten::sub.Tensor(%x, %mx)
  %e: f32[2048,32000] = aten::exp(%z)
  %se: f32[2048,1] = aten::sum.dim_IntList(%e) {dim=[-1], keepdim=true}
  %lse: f32[2048,1] = aten::log(%se)
  %ls: f32[2048,32000] = aten::sub.Tensor(%z, %lse)
  %u: i64[2048,1] = aten::unsqueeze(%y) {dim=1}
  %a: i64[32000] = aten::arange() {end=32000}
  %eq: bool[2048,32000] = aten::eq.Tensor(%u, %a)
  %m: f32[2048,32000] = aten::_to_copy(%eq) {dtype=f32}
  %p: f32[2048,32000] = aten::mul.Tensor(%ls, %m)
  %s: f32[] = aten::sum(%p)
  %n: f32[] = aten::neg(%s)
  %loss: f32[] = aten::div.Scalar(%n) {other=2048}
  %sm: f32[2048,32000] = aten::exp(%ls)
  %d: f32[2048,32000] = aten::sub.Tensor(%sm, %m)
  %gx: f32[2048,32000] = aten::div.Scalar(%d) {other=2048}
  return %loss, %gx
}
)";

}  // namespace

// The reference's nll_loss also accepts ignore_index (-100), which the eq/arange production does not
// skip: in range only by the user's word (Note [Declared input domains]), and never equivalent without it.
TEST_CASE("cross-entropy with integer targets is proven at V=32000, with the targets declared in range") {
  Module m = parseModule(kIntegerTargetXent, "realistic.tvir");
  CheckOptions declared;
  declared.declaredDomains = {"y in [0, 32000)"};
  CheckResult r = checkGraphs(*m.find("reference"), *m.find("production"), declared);
  CHECK(r.verdict == Verdict::Equivalent);
  CHECK(r.level == Level::Real);
  bool named = false;
  for (const std::string &a : r.assumptions) named = named || a.find("[0, 32000)") != std::string::npos;
  CHECK(named);
  CHECK(check(kIntegerTargetXent).verdict != Verdict::Equivalent);
}

TEST_CASE("a real-level model that sets long sums apart is no counterexample, and says so") {
  CheckResult r = check(reluGtBackward());
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].verdict == Verdict::Unknown);
  CHECK(r.outputs[0].reason.find(reasons::kLongSumsUninterpreted) != std::string::npos);
}

TEST_CASE("a ReLU backward gated by the saved result or by the pre-activation is proven at D=4096") {
  // rules/arithmetic.rules, where-le-of-relu: both comparisons become x <= 0.
  CheckResult r = check(kReluBackward);
  CHECK(r.verdict == Verdict::Equivalent);
  CHECK(r.level == Level::Real);
}

}  // namespace torchtv
