// Note [Input domains]: which inputs random refutation draws in range, positive, as masks; the edge values.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ir/text_format.h"
#include "ir/diagnostic.h"
#include "ir/rewrite.h"
#include "src/normalize/normalize.h"
#include "src/verify/input_domains.h"
#include "src/verify/refute.h"

namespace torchtv {

TEST_CASE("input domains: indices in range through views, the smallest bound, positive arguments") {
  Module m = parseModule(R"(
graph @g(%x: f32[6,3], %t: i64[6], %i: i64[2,5], %e: f32[10,4], %v: f32[6], %n: f32[6]) -> (f32[], f32[2,5,4], f32[2,5], f32[6], f32[6]) {
  %l: f32[6,3] = aten::_log_softmax(%x) {dim=1, half_to_float=false}
  %loss: f32[], %w: f32[] = aten::nll_loss_forward(%l, %t, none) {reduction=1, ignore_index=-100}
  %emb: f32[2,5,4] = aten::embedding(%e, %i)
  %flat: i64[10] = aten::view(%i) {size=[10]}
  %row: i64[1,10] = aten::unsqueeze(%flat) {dim=0}
  %g: f32[1,10] = aten::gather(%e, %row) {dim=1}
  %r: f32[6] = aten::rsqrt(%v)
  %s: f32[6] = aten::sqrt(%n)
  %z: f32[6] = aten::neg(%s)
  %g2: f32[2,5] = aten::view(%g) {size=[2,5]}
  return %loss, %emb, %g2, %r, %z
}
)", "domains.tvir");
  const Graph &g = *m.graphs.at(0);
  std::vector<InputDomain> d = inputDomains(g);
  REQUIRE(d.size() == 6);
  CHECK(!d[0].indexBound);
  CHECK(!d[0].positive);
  CHECK(d[1].indexBound == 3);           // nll_loss target: the class dim
  CHECK(d[2].indexBound == 4);           // embedding: 10 rows; gather along dim 1 of [10,4]: 4
  CHECK(!d[3].indexBound);
  CHECK(d[4].positive);                  // rsqrt's operand
  CHECK(d[5].positive);                  // sqrt's operand, though its result is negated
  CHECK(anyDomain(d));

  std::vector<eval::EvalTensor> in = randomInputs(g, kRefuteSeed, kDomainKind, &d);
  // nll_loss's ignore_index -100 is drawn too (Note [Reference kernel domains]).
  for (long double v : in[1].values) CHECK(((v >= 0 && v < 3) || v == -100));
  for (long double v : in[2].values) CHECK((v >= 0 && v < 4));
  for (long double v : in[4].values) CHECK(v > 0);
  CHECK(std::string(inputKindName(kDomainKind)) == "indices and arguments in their domains");
}

TEST_CASE("input domains: none where nothing indexes or needs positive values") {
  Module m = parseModule(R"(
graph @g(%x: f32[4], %k: i64[4]) -> (f32[4], i64[4]) {
  %y: f32[4] = aten::exp(%x)
  %j: i64[4] = aten::add.Tensor(%k, %k) {alpha=1}
  return %y, %j
}
)", "plain.tvir");
  CHECK(!anyDomain(inputDomains(*m.graphs.at(0))));
}

}  // namespace torchtv

namespace torchtv {

TEST_CASE("input domains: additive masks added into a softmax's input or attention's attn_mask, not the scores") {
  Module m = parseModule(R"(
graph @g(%q: f32[4,4], %k: f32[4,4], %am: f32[4,4], %bias: f32[4,4], %keep: bool[4,4], %x: f32[4,4]) -> (f32[4,4], f32[4,4], f32[4,4], f32[4,4]) {
  %kt: f32[4,4] = aten::t(%k)
  %s: f32[4,4] = aten::mm(%q, %kt)
  %m: f32[4,4] = aten::view(%am) {size=[4,4]}
  %sm: f32[4,4] = aten::add.Tensor(%s, %m) {alpha=1}
  %p: f32[4,4] = aten::_softmax(%sm) {dim=-1, half_to_float=false}
  %xb: f32[4,4] = aten::add.Tensor(%x, %bias) {alpha=1}
  %p2: f32[4,4] = aten::_softmax(%xb) {dim=-1, half_to_float=false}
  %lo: f32[] = aten::scalar_tensor() {s=-3.4028234663852886e+38, dtype=f32}
  %f: f32[4,4] = aten::where.self(%keep, %x, %lo)
  %e: f32[4,4] = aten::add.Tensor(%s, %x) {alpha=1}
  return %p, %p2, %f, %e
}
)", "masks.tvir");
  const Graph &g = *m.graphs.at(0);
  std::vector<InputDomain> d = inputDomains(g);
  REQUIRE(d.size() == 6);
  CHECK(d[2].additiveMask);   // added (through a view) to computed scores, then a softmax
  CHECK(!d[0].additiveMask);  // feeds the scores
  CHECK(!d[3].additiveMask);  // added to another input: which one is the mask is not known
  CHECK(!d[5].additiveMask);  // added to the scores, but no softmax follows
  CHECK(!anyDomain(d));       // masks are not drawn by the domain distribution
  CHECK(anyMask(g, d));

  std::vector<eval::EvalTensor> in = randomInputs(g, kRefuteSeed, kMaskKind, &d);
  const long double lowest = -1e9L;  // not f32's finfo.min (Note [Input domains])
  // Four rows or more: one all kept, one all masked, one with one key kept.
  int maskedRows = 0, keptRows = 0, oneKeptRows = 0, falseRows = 0, trueRows = 0;
  for (int r = 0; r < 4; ++r) {
    int masked = 0, kept = 0;
    for (int c = 0; c < 4; ++c) {
      long double v = in[2].values[r * 4 + c];
      CHECK((v == 0 || v == lowest));
      masked += v == lowest;
      long double b = in[4].values[r * 4 + c];
      CHECK((b == 0 || b == 1));
      kept += b == 1;
    }
    maskedRows += masked == 4;
    keptRows += masked == 0;
    oneKeptRows += masked == 3;
    falseRows += kept == 0;
    trueRows += kept == 4;
  }
  CHECK(maskedRows > 0);
  CHECK(keptRows > 0);
  CHECK(oneKeptRows > 0);
  CHECK(falseRows > 0);
  CHECK(trueRows > 0);
  for (long double v : in[5].values) CHECK(std::isfinite(v));  // not a mask: normal
  CHECK(std::string(inputKindName(kMaskKind)).rfind("masks", 0) == 0);
}

TEST_CASE("input domains: the edge distribution draws finite edges: +-0, subnormals, ties, f16 near its largest") {
  Module m = parseModule(R"(
graph @g(%x: f32[64,16], %h: f16[64,16], %v: f32[64]) -> (f32[64,16], f16[64,16], f32[64]) {
  %r: f32[64] = aten::rsqrt(%v)
  return %x, %h, %r
}
)", "edges.tvir");
  const Graph &g = *m.graphs.at(0);
  std::vector<InputDomain> d = inputDomains(g);
  std::vector<eval::EvalTensor> in = randomInputs(g, kRefuteSeed, kEdgeKind, &d);
  int zeros = 0, negZeros = 0, subnormals = 0, huge = 0, ties = 0;  // ties of nonzero values
  for (size_t i = 0; i < in[0].values.size(); ++i) {
    long double v = in[0].values[i];
    REQUIRE(std::isfinite(v));
    zeros += v == 0;
    negZeros += v == 0 && std::signbit(v);
    subnormals += v != 0 && std::fabs(v) < std::numeric_limits<float>::min();
    huge += std::fabs(v) > 1e38L;
    ties += i % 16 != 0 && v != 0 && v == in[0].values[i - 1];
  }
  CHECK(negZeros > 0);
  CHECK(zeros > negZeros);
  CHECK(subnormals > 0);
  CHECK(huge == 0);  // near f32's largest, double cannot tell rounding from a difference
  CHECK(ties > 0);
  for (long double v : in[1].values) CHECK((std::isfinite(v) && std::fabs(v) <= 65504));
  bool halfSubnormal = false, halfHuge = false;
  for (long double v : in[1].values) {
    halfSubnormal = halfSubnormal || (v != 0 && std::fabs(v) < 6.103515625e-05L);
    halfHuge = halfHuge || std::fabs(v) >= 32752;
  }
  CHECK(halfSubnormal);
  CHECK(halfHuge);
  for (long double v : in[2].values) CHECK(!std::signbit(v));  // rsqrt's operand stays in its domain
}

// Note [Computed indices in range]: the prover bounds the gathered ids (a computed value the
// reference indexes with) and what only moves them, in both graphs; never the buffer they are
// gathered from, nor arithmetic on them. Refutation draws the buffer within the embedding's rows.
TEST_CASE("input domains: a computed index is bounded by its own uses, the buffer it is gathered from only drawn") {
  Module m = parseModule(R"(
graph @reference(%buf: i64[1,4], %pos: i64[2,4], %w: f32[2,3]) -> (f32[2,4,3], i64[2,4]) {
  %bx: i64[2,4] = aten::expand(%buf) {size=[2, 4]}
  %ids: i64[2,4] = aten::gather(%bx, %pos) {dim=1}
  %e: f32[2,4,3] = aten::embedding(%w, %ids)
  %next: i64[2,4] = aten::add.Scalar(%ids) {other=1, alpha=1}
  return %e, %next
}
graph @production(%buf: i64[1,4], %pos: i64[2,4], %w: f32[2,3]) -> (f32[2,4,3], i64[2,4]) {
  %bx: i64[2,4] = aten::expand(%buf) {size=[2, 4]}
  %ids: i64[2,4] = aten::gather(%bx, %pos) {dim=1}
  %flat: i64[8] = aten::view(%ids) {size=[8]}
  %r: f32[8,3] = aten::index_select(%w, %flat) {dim=0}
  %e: f32[2,4,3] = aten::view(%r) {size=[2, 4, 3]}
  %next: i64[2,4] = aten::add.Scalar(%ids) {other=1, alpha=1}
  return %e, %next
}
)", "computed.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<InputDomain> drawn = inputDomains(ref);
  CHECK(drawn[0].indexBound == 2);  // the buffer: drawn within the embedding's 2 rows
  CHECK(drawn[1].indexBound == 4);  // the positions: gather's dim
  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  IndexDomains bounds = indexDomainsByNumber(ref, prod, vn, referenceKernelDomains(ref));
  const auto &rn = ref.nodes();
  auto ids = bounds.find(vn.number(rn[1]->output()));
  REQUIRE(ids != bounds.end());
  CHECK(ids->second.range.bound == 2);
  CHECK(ids->second.text().find("aten::embedding raises") != std::string::npos);
  auto flat = bounds.find(vn.number(prod.nodes()[2]->output()));  // a view of the ids
  REQUIRE(flat != bounds.end());
  CHECK(flat->second.range.bound == 2);
  CHECK(!bounds.count(vn.number(ref.inputs()[0])));   // not the buffer
  CHECK(!bounds.count(vn.number(rn[0]->output())));   // nor its expansion
  CHECK(!bounds.count(vn.number(rn[3]->output())));   // nor arithmetic on the ids
  CHECK(bounds.at(vn.number(ref.inputs()[1])).range.bound == 4);
}

// Note [Reference kernel domains]: only the reference's kernels as captured give a domain. An op
// inside the definition torchtv expands a kernel through (embedding_dense_backward's one_hot) and
// production's ops never do; nll_loss's ignore_index is part of its domain, and
// embedding_dense_backward (which drops what is out of range) has none.
TEST_CASE("input domains: only the reference's own kernels, before expansion, give a domain") {
  Module m = parseModule(R"(
graph @reference(%g: f32[4,3], %i: i64[4], %x: f32[4,5], %t: i64[4], %k: i64[4]) -> (f32[6,3], f32[], f32[]) {
  %gw: f32[6,3] = aten::embedding_dense_backward(%g, %i) {num_weights=6, padding_idx=-1, scale_grad_by_freq=false}
  %l: f32[], %tw: f32[] = aten::nll_loss_forward(%x, %t, none) {reduction=1, ignore_index=-100}
  %s: f32[] = aten::sum(%x)
  return %gw, %l, %s
}
graph @production(%g: f32[4,3], %i: i64[4], %x: f32[4,5], %t: i64[4], %k: i64[4]) -> (f32[6,3], f32[], f32[]) {
  %gw: f32[6,3] = aten::embedding_dense_backward(%g, %i) {num_weights=6, padding_idx=-1, scale_grad_by_freq=false}
  %l: f32[], %tw: f32[] = aten::nll_loss_forward(%x, %t, none) {reduction=1, ignore_index=-100}
  %u: i64[4,1] = aten::unsqueeze(%k) {dim=1}
  %r: f32[4,1] = aten::gather(%x, %u) {dim=1, sparse_grad=false}
  %s: f32[] = aten::sum(%r)
  return %gw, %l, %s
}
)", "kernels.tvir");
  Graph &ref = *m.find("reference");
  const Graph &prod = *m.find("production");
  ReferenceDomains domains = referenceKernelDomains(ref);
  const Value *i = ref.inputs()[1], *t = ref.inputs()[3], *k = ref.inputs()[4];
  CHECK(!domains.count(i));  // ATen's kernel raises nowhere
  REQUIRE(domains.count(t));
  CHECK(domains.at(t).range.bound == 5);
  CHECK(domains.at(t).range.alsoDefined == std::vector<int64_t>{-100});  // ignore_index
  CHECK(domains.at(t).range.contains(-100));
  CHECK(!domains.at(t).range.contains(-1));
  CHECK(!domains.count(k));  // production's gather justifies nothing

  // Expanded through the bundled definitions (a one_hot for the embedding's gradient, a gather for
  // nll_loss), the reference's own domains stay what its kernels accept, and none comes from the
  // definitions' internal ops.
  std::shared_ptr<Graph> expanded = cloneGraph(ref);
  ReferenceDomains before = referenceKernelDomains(*expanded);
  normalizeGraph(*expanded, bundledFusions(), NormalizeOptions{});
  bool oneHot = false;
  for (const auto &n : expanded->nodes()) oneHot = oneHot || n->op == "aten::one_hot";
  REQUIRE(oneHot);  // the definition is expanded
  ValueNumbering vn;
  vn.addGraph(*expanded);
  vn.addGraph(prod);
  IndexDomains bounds = indexDomainsByNumber(*expanded, prod, vn, before);
  auto at = [&](const Value *v) { return bounds.find(vn.number(v)); };
  CHECK(at(expanded->inputs()[1]) == bounds.end());
  REQUIRE(at(expanded->inputs()[3]) != bounds.end());
  CHECK(at(expanded->inputs()[3])->second.range.alsoDefined == std::vector<int64_t>{-100});
  CHECK(at(expanded->inputs()[4]) == bounds.end());
}

// Note [Declared input domains]
TEST_CASE("input domains: a declared range replaces the derived one and reads as the user's") {
  DeclaredDomain d = parseDeclaredDomain("target in [0, 5) or -100");
  CHECK(d.input == "target");
  CHECK(d.range.bound == 5);
  CHECK(d.range.alsoDefined == std::vector<int64_t>{-100});
  CHECK(parseDeclaredDomain("%x1 in [0,5)").range.alsoDefined.empty());
  CHECK_THROWS_AS(parseDeclaredDomain("x1 in (0, 5]"), InputError);
  CHECK_THROWS_AS(parseDeclaredDomain("x1 < 5"), InputError);
  Module m = parseModule(R"(
graph @reference(%x: f32[4,5], %t: i64[4]) -> (f32[], f32[]) {
  %l: f32[], %tw: f32[] = aten::nll_loss_forward(%x, %t, none) {reduction=1, ignore_index=-100}
  return %l, %tw
}
)", "declared.tvir");
  const Graph &ref = *m.find("reference");
  ReferenceDomains domains = referenceKernelDomains(ref);
  applyDeclaredDomains(ref, {parseDeclaredDomain("t in [0, 5)")}, domains);
  CHECK(domains.at(ref.inputs()[1]).range.alsoDefined.empty());
  CHECK(domains.at(ref.inputs()[1]).text() == "as you declared: %t is in [0, 5)");
  CHECK(domains.at(ref.inputs()[1]).declared());
  CHECK_THROWS_AS(applyDeclaredDomains(ref, {parseDeclaredDomain("y in [0, 5)")}, domains), InputError);
  CHECK_THROWS_AS(applyDeclaredDomains(ref, {parseDeclaredDomain("x in [0, 5)")}, domains), InputError);
}

}  // namespace torchtv
