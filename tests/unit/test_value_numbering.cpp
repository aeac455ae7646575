#include <doctest/doctest.h>

#include "ir/text_format.h"
#include "src/match/divergence.h"
#include "src/match/value_numbering.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {
CheckResult check(const std::string &text) {
  Module m = parseModule(text, "t.tvir");
  return checkGraphs(*m.find("reference"), *m.find("production"), CheckOptions{});
}
}  // namespace

TEST_CASE("equal computations share a number, also across graphs") {
  Module m = parseModule(R"(graph @reference(%a: f32[3], %b: f32[3]) -> (f32[3]) {
  %x: f32[3] = aten::mul.Tensor(%a, %b)
  %y: f32[3] = aten::mul.Tensor(%b, %a)
  %z: f32[3] = aten::sub.Tensor(%a, %b)
  %w: f32[3] = aten::sub.Tensor(%b, %a)
  return %x
}
graph @production(%p: f32[3], %q: f32[3]) -> (f32[3]) {
  %x: f32[3] = aten::mul.Tensor(%q, %p)
  return %x
}
)",
                         "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  const auto &n = ref.nodes();
  CHECK(vn.number(n[0]->output()) == vn.number(n[1]->output()));  // mul commutes
  CHECK(vn.number(n[2]->output()) != vn.number(n[3]->output()));  // sub does not
  CHECK(vn.number(n[0]->output()) == vn.number(prod.nodes()[0]->output()));
  CHECK(vn.number(ref.inputs()[1]) == vn.number(prod.inputs()[1]));
}

TEST_CASE("a view of a value merged with a view is numbered as a view of what that view reads") {
  // Note [Views of merged values]: production's %s takes the number of the reference's %f (a cut);
  // viewing it back to %x's type is %x, another view of it is the reference's view of %x.
  Module m = parseModule(R"(graph @reference(%x: f32[1,1,4,4], %y: f32[1,4,4]) -> (f32[1,4,4]) {
  %f: f32[1,4,4] = aten::view(%x) {size=[1, 4, 4]}
  %g: f32[16] = aten::view(%x) {size=[16]}
  return %f
}
graph @production(%x: f32[1,1,4,4], %y: f32[1,4,4]) -> (f32[1,4,4]) {
  %s: f32[1,4,4] = aten::exp(%y)
  %back: f32[1,1,4,4] = aten::view(%s) {size=[1, 1, 4, 4]}
  %flat: f32[16] = aten::view(%s) {size=[16]}
  return %s
}
)",
                         "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  ValueNumbering vn;
  vn.addGraph(ref);
  vn.bindInputs(prod);
  const auto &p = prod.nodes();
  vn.numberNode(*p[0]);
  CHECK(vn.number(p[0]->output()) != vn.number(ref.nodes()[0]->output()));
  vn.renumber(p[0]->output(), vn.number(ref.nodes()[0]->output()));
  vn.numberNode(*p[1]);
  vn.numberNode(*p[2]);
  CHECK(vn.number(p[1]->output()) == vn.number(ref.inputs()[0]));
  CHECK(vn.number(p[2]->output()) == vn.number(ref.nodes()[1]->output()));
}

TEST_CASE("the divergence site is the first production node without a counterpart") {
  CheckResult r = check(R"(graph @reference(%a: f32[3]) -> (f32[3]) {
  %x: f32[3] = aten::exp(%a)
  %y: f32[3] = aten::neg(%x)
  %z: f32[3] = aten::tanh(%y)
  return %z
}
graph @production(%a: f32[3]) -> (f32[3]) {
  %x: f32[3] = aten::exp(%a)
  %y: f32[3] = aten::abs(%x) loc("prod.py":9)
  %z: f32[3] = aten::tanh(%y)
  return %z
}
)");
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.verdict == Verdict::NotEquivalent);  // abs and neg differ (the prover refutes it)
  REQUIRE(r.outputs[0].productionSite);
  CHECK(r.outputs[0].productionSite->op == "aten::abs");
  CHECK(r.outputs[0].productionSite->loc == "prod.py:9");
  REQUIRE(r.outputs[0].referenceSite);
  CHECK(r.outputs[0].referenceSite->op == "aten::neg");
}

TEST_CASE("a mask whose product is proven equal is no divergence") {
  // Note [Divergence through unmatched values]: production's ReLU backward multiplies by the mask
  // u > 0, the reference's keeps relu(u); the product is merged with the reference's value (a cut
  // point, done here by hand). The output diverges at the wrong scale after it (prod.py:13), not
  // at the mask (prod.py:5), which the output reaches only through the matched product.
  Module m = parseModule(R"(graph @reference(%u: f32[4]) -> (f32[4]) {
  %r: f32[4] = aten::relu(%u) loc("ref.py":4)
  %o: f32[4] = aten::mul.Scalar(%r) {other=0.25} loc("ref.py":5)
  return %o
}
graph @production(%u: f32[4]) -> (f32[4]) {
  %m: bool[4] = aten::gt.Scalar(%u) {other=0} loc("prod.py":5)
  %r: f32[4] = aten::mul.Tensor(%u, %m) loc("prod.py":6)
  %o: f32[4] = aten::mul.Scalar(%r) {other=0.0625} loc("prod.py":13)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  vn.renumber(prod.nodes()[1]->output(), vn.number(ref.nodes()[0]->output()));
  std::vector<const Node *> first = firstUnmatchedNodes(prod, vn, numbersOf(ref, vn));
  REQUIRE(first.size() == 1);
  REQUIRE(first[0]);
  CHECK(first[0]->loc.str() == "prod.py:13");
}

TEST_CASE("verdicts combine to the worst; --require bitwise rejects real-only proofs") {
  CheckResult r;
  r.outputs = {{"a", Verdict::Equivalent, Level::Bitwise, ReasonCode::None, "", {}, {}},
               {"b", Verdict::Equivalent, Level::Real, ReasonCode::None, "", {}, {}}};
  summarize(r);
  CHECK(r.verdict == Verdict::Equivalent);
  CHECK(r.level == Level::Real);
  applyRequirement(r, RequiredLevel::Bitwise);
  CHECK(r.verdict == Verdict::Unknown);
  CHECK(exitCode(r.verdict) == 2);
  // The outputs say so too (every format reports outputs, not only the total).
  CHECK(r.outputs[0].verdict == Verdict::Equivalent);
  CHECK(r.outputs[1].verdict == Verdict::Unknown);
  CHECK(r.outputs[1].reason.find("--require bitwise") != std::string::npos);

  CheckResult s;
  s.outputs = {{"a", Verdict::Unknown, Level::None, ReasonCode::None, "", {}, {}},
               {"b", Verdict::NotEquivalent, Level::None, ReasonCode::None, "", {}, {}}};
  summarize(s);
  CHECK(s.verdict == Verdict::NotEquivalent);
  CHECK(s.level == Level::None);
}
