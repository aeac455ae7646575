// Cut points (Note [Cut points]): intermediate values proven equal are merged,
// candidates that only agree on the sampled input are not.
#include <doctest/doctest.h>

#include <string>

#include "ir/text_format.h"
#include "src/match/graph_structure.h"
#include "src/verify/check.h"
#include "src/verify/cut_points.h"

namespace torchtv {

namespace {

// The reference's softmax probabilities and production's recomputation of them
// from the log-sum-exp (as a fused attention backward does), each followed by
// the same product with v and the same tail; production's last op is `tail`.
// `rows` sets the size: 4 evaluates, 2048 is past the evaluation budget.
std::string softmaxPair(const std::string &tail, int rows = 4) {
  const std::string n = std::to_string(rows);
  const std::string sq = "f32[2," + n + "," + n + "]", col = "f32[2," + n + ",1]";
  // Both sides start alike: the max-shifted exponentials and their row sums.
  const std::string shifted = "\n  %m: " + col + " = aten::amax(%x) {dim=[-1], keepdim=true}" +
                              "\n  %nm: " + col + " = aten::neg(%m)" +
                              "\n  %d: " + sq + " = aten::add.Tensor(%x, %nm)" +
                              "\n  %e: " + sq + " = aten::exp(%d)" +
                              "\n  %z: " + col + " = aten::sum.dim_IntList(%e) {dim=[-1], keepdim=true}";
  const std::string signature = "(%x: " + sq + ", %v: " + sq + ") -> (" + sq + ") {";
  return "graph @reference" + signature + shifted +
         "\n  %p: " + sq + " = aten::div.Tensor(%e, %z)" +
         "\n  %o: " + sq + " = aten::bmm(%p, %v)" +
         "\n  %y: " + sq + " = aten::tanh(%o)" +
         "\n  return %y\n}\ngraph @production" + signature + shifted +
         "\n  %lz: " + col + " = aten::log(%z)" +
         "\n  %l: " + col + " = aten::add.Tensor(%m, %lz)" +
         "\n  %nl: " + col + " = aten::neg(%l)" +
         "\n  %s: " + sq + " = aten::add.Tensor(%x, %nl)" +
         "\n  %p: " + sq + " = aten::exp(%s)" +
         "\n  %o: " + sq + " = aten::bmm(%p, %v)" +
         "\n  %y: " + sq + " = " + tail +
         "\n  return %y\n}\n";
}

struct Checked {
  Module module;
  CutPoints cuts;
  CheckResult result;
};

Checked check(const std::string &text, CutPointSearch search = CutPointSearch::On) {
  Checked c{parseModule(text, "cut_points.tvir"), {}, {}};
  const Graph &ref = *c.module.find("reference"), &prod = *c.module.find("production");
  c.cuts = findCutPoints(ref, prod, ProverLimits{});
  CheckOptions options;
  options.normalization = Normalization::Off;
  options.cutPoints = search;
  c.result = checkGraphs(ref, prod, options);
  return c;
}

}  // namespace

TEST_CASE("a proven cut merges the recomputed probabilities; what follows matches structurally") {
  Checked c = check(softmaxPair("aten::tanh(%o)"));
  REQUIRE(c.cuts.cuts.size() >= 1);
  const CutPoint &first = c.cuts.cuts.front();
  CHECK(first.reference->name == "p");
  CHECK(first.production->name == "p");
  CHECK(first.level == Level::Real);  // exp(x - lse) = softmax(x) holds over the reals only
  CHECK(c.result.verdict == Verdict::Equivalent);
  CHECK(c.result.level == Level::Real);
  CHECK(c.result.stats.cutPoints >= 1);
  CHECK(c.result.outputs.at(0).reason.find(reasons::kThroughCutPoints) != std::string::npos);
}

TEST_CASE("graphs too large to evaluate get their cut points from structure alone") {
  Checked c = check(softmaxPair("aten::tanh(%o)", 2048));
  REQUIRE(c.cuts.cuts.size() >= 1);
  CHECK(c.cuts.cuts.front().production->name == "p");
  CHECK(c.result.verdict == Verdict::Equivalent);
  // and a wrong tail still is not equivalent (nothing refutes it at this size)
  CHECK(check(softmaxPair("aten::sigmoid(%o)", 2048)).result.verdict != Verdict::Equivalent);
}

TEST_CASE("an output that differs after a proven cut is not merged with the reference") {
  // sigmoid instead of tanh: the probabilities still cut, the output must not.
  Checked c = check(softmaxPair("aten::sigmoid(%o)"));
  CHECK(c.cuts.cuts.size() >= 1);
  for (const CutPoint &cut : c.cuts.cuts) CHECK(cut.production->name != "y");
  CHECK(c.result.verdict != Verdict::Equivalent);
}

TEST_CASE("a candidate that agrees on the sampled input but is not equal is dropped") {
  // max(x, -1e6) equals x on every sampled input, not on all of them.
  const char *text = R"(
graph @reference(%x: f32[4,8]) -> (f32[4,8]) {
  %t: f32[4,8] = aten::tanh(%x)
  %y: f32[4,8] = aten::mul.Scalar(%t) {other=2.0}
  return %y
}
graph @production(%x: f32[4,8]) -> (f32[4,8]) {
  %c: f32[4,8] = aten::clamp_min(%x) {min=-1000000.0}
  %t: f32[4,8] = aten::tanh(%c)
  %y: f32[4,8] = aten::mul.Scalar(%t) {other=2.0}
  return %y
}
)";
  Checked c = check(text);
  CHECK(c.cuts.cuts.empty());
  CHECK(c.cuts.attempts >= 1);
  CHECK(c.result.verdict != Verdict::Equivalent);
}

namespace {

// Note [Cut candidates from structure]: the reference's %a = x*w is interior
// to %b = a + x (its only way to the outputs), and %b reaches them along two
// paths; production computes %b as x*(w+1), where %p reaches them along two. Both
// %a and %b are reached from p's leaves x and w, and %a comes first in the
// reference, so only the post-dominators put %b first. 4096 x 512: past the
// evaluation budget, structure alone.
const char *kPositionPair = R"(
graph @reference(%x: f32[4096,512], %w: f32[4096,512]) -> (f32[4096,512], f32[4096,512]) {
  %a: f32[4096,512] = aten::mul.Tensor(%x, %w)
  %b: f32[4096,512] = aten::add.Tensor(%a, %x)
  %y1: f32[4096,512] = aten::tanh(%b)
  %y2: f32[4096,512] = aten::sigmoid(%b)
  return %y1, %y2
}
graph @production(%x: f32[4096,512], %w: f32[4096,512]) -> (f32[4096,512], f32[4096,512]) {
  %w1: f32[4096,512] = aten::add.Scalar(%w) {other=1.0}
  %p: f32[4096,512] = aten::mul.Tensor(%x, %w1)
  %y1: f32[4096,512] = aten::tanh(%p)
  %y2: f32[4096,512] = aten::sigmoid(%p)
  return %y1, %y2
}
)";

const Value *valueNamed(const Graph &g, const std::string &name) {
  for (const Value *v : g.inputs())
    if (v->name == name) return v;
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs)
      if (v->name == name) return v;
  FAIL("no value %" << name);
  return nullptr;
}

}  // namespace

TEST_CASE("graph structure: post-dominators and bounded reachability over the IR (Note [Graph structure])") {
  Module m = parseModule(kPositionPair, "cut_points.tvir");
  const Graph &ref = *m.find("reference");
  GraphStructure s(ref);
  auto v = [&](const char *name) { return valueNamed(ref, name); };
  CHECK(s.postDominator(v("a")) == v("b"));
  CHECK(s.postDominator(v("x")) == v("b"));  // x -> a -> b and x -> b meet at b
  CHECK(s.postDominator(v("w")) == v("a"));
  CHECK(s.postDominator(v("b")) == nullptr);  // two paths, to two outputs
  CHECK(s.postDominator(v("y1")) == nullptr);  // an output
  std::vector<std::string> seen;
  auto all = [](const Value *) { return true; };
  auto record = [&](const Value *x) { seen.push_back(x->name); };
  CHECK(s.reach({v("w")}, GraphStructure::Direction::Users, all, 100, record));
  CHECK(seen == std::vector<std::string>{"w", "a", "b", "y1", "y2"});
  seen.clear();
  // Not on past a: a is reached, nothing after it.
  CHECK(s.reach({v("w")}, GraphStructure::Direction::Users, [&](const Value *x) { return x != v("a"); }, 100, record));
  CHECK(seen == std::vector<std::string>{"w", "a"});
  seen.clear();
  CHECK_FALSE(s.reach({v("y2")}, GraphStructure::Direction::Operands, all, 3, record));
  CHECK(seen.size() == 3);
}

TEST_CASE("the cut candidate at the same post-dominator position is tried first, and proven") {
  Checked c = check(kPositionPair);
  REQUIRE(c.cuts.cuts.size() == 1);
  CHECK(c.cuts.cuts.front().reference->name == "b");
  CHECK(c.cuts.cuts.front().production->name == "p");
  // %w1 (w + 1, no counterpart) tries its 3 candidates in vain; then %p tries %b first (from %p's
  // leaves %a comes first: without the post-dominator ranking this is 5).
  CHECK(c.cuts.attempts == 4);
  CHECK(c.result.verdict == Verdict::Equivalent);
}

TEST_CASE("the search serves only the outputs asked for; past the evaluation budget, not those the runs refute") {
  // Two outputs: y, after the recomputed probabilities (a cut), and z, computed alike on both sides.
  std::string text = softmaxPair("aten::tanh(%o)", 2048);
  for (const char *side : {"graph @reference", "graph @production"}) {
    size_t at = text.find(side);
    size_t sig = text.find("-> (f32[2,2048,2048])", at);
    text.replace(sig, 21, "-> (f32[2,2048,2048], f32[2,2048,2048])");
    size_t ret = text.find("  return %y", at);
    text.replace(ret, 11, "  %zz: f32[2,2048,2048] = aten::neg(%v)\n  return %y, %zz");
  }
  Module m = parseModule(text, "served.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  CHECK(findCutPoints(ref, prod, ProverLimits{}, {true, false}).cuts.size() >= 1);
  CutPoints none = findCutPoints(ref, prod, ProverLimits{}, {false, true});
  CHECK(none.cuts.empty());
  CHECK(none.attempts == 0);

  // Running the code refuted y (Note [Cross-checks]): no cut is searched for it, and it ends
  // not_equivalent by the runs; without that evidence the same search proves it.
  CaptureEvidence capture;
  capture.eager = EagerEvidence{};
  capture.eager->ran = true;
  capture.eager->reducedShapes = true;
  EagerOutputCheck y;
  y.output = "y";
  y.draws = 1;
  y.bitwiseEqual = false;
  y.elementsDiffer = 1;
  y.beyondRounding = "small_inputs(): differs by 1";
  capture.eager->outputs = {y};
  CheckOptions options;
  options.normalization = Normalization::Off;
  options.capture = &capture;
  CheckResult refuted = checkGraphs(ref, prod, options);
  CHECK(refuted.stats.cutPointAttempts == 0);
  CHECK(refuted.outputs.at(0).verdict == Verdict::NotEquivalent);
  CHECK(refuted.outputs.at(1).verdict == Verdict::Equivalent);
  options.capture = nullptr;
  CheckResult proven = checkGraphs(ref, prod, options);
  CHECK(proven.stats.cutPointAttempts > 0);
  CHECK(proven.outputs.at(0).verdict == Verdict::Equivalent);
}

TEST_CASE("without the search the same pair is decided as before, with no cut") {
  Checked c = check(softmaxPair("aten::tanh(%o)"), CutPointSearch::Off);
  CHECK(c.result.stats.cutPoints == 0);
  CHECK(c.result.stats.cutPointAttempts == 0);
}

}  // namespace torchtv
