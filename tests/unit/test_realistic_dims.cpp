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

}  // namespace

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
