// Note [Bounded widening]: a widened proof through a residual stream expands
// only the last accumulations, the same ones on both sides.
#include <doctest/doctest.h>

#include <string>

#include "tests/unit/region_fixture.h"
#include "src/verify/prover.h"

namespace torchtv {

namespace {

// A residual stream x3 = x0 + m0 + m1 + m2 on both sides; the reference scales
// the row sums of x3^2 by g, production sums x3^2 * g (the sum a norm's
// backward takes). Equal only once the shared row sums are expanded (production
// computes them too, as its forward would, and value numbering counts dead nodes).
const std::string kSignature = "(%x0: f32[4,4], %w: f32[4,4], %g: f32[4,1]) -> (f32[4,1]) {";
const std::string kStream = R"(
  %m0: f32[4,4] = aten::mm(%x0, %w)
  %x1: f32[4,4] = aten::add.Tensor(%x0, %m0) {alpha=1}
  %m1: f32[4,4] = aten::mm(%x1, %w)
  %x2: f32[4,4] = aten::add.Tensor(%x1, %m1) {alpha=1}
  %m2: f32[4,4] = aten::mm(%x2, %w)
  %x3: f32[4,4] = aten::add.Tensor(%x2, %m2) {alpha=1}
  %s: f32[4,4] = aten::mul.Tensor(%x3, %x3)
  %r: f32[4,1] = aten::sum.dim_IntList(%s) {dim=[-1], keepdim=true})";
const std::string kResidualPair = "graph @reference" + kSignature + kStream + R"(
  %y: f32[4,1] = aten::mul.Tensor(%r, %g)
  return %y
}
graph @production)" + kSignature + kStream + R"(
  %sg: f32[4,4] = aten::mul.Tensor(%s, %g)
  %y: f32[4,1] = aten::sum.dim_IntList(%sg) {dim=[-1], keepdim=true}
  return %y
}
)";

}  // namespace

TEST_CASE("a widened proof through a residual stream is found with the bound, reading the same values on both sides") {
  RegionFixture f(kResidualPair, "residual.tvir");
  const Graph &ref = f.ref, &prod = f.prod;
  const ValueNumbering &vn = f.vn;
  const RegionInputs &in = f.in;
  Prover prover(in, ProverLimits{});
  ProofOutcome proof = prover.prove(ref.outputs().at(0), prod.outputs().at(0));
  REQUIRE(proof.proven);
  CHECK(proof.level == Level::Real);
  CHECK(proof.provenAt == Frontier::MatmulOutputs);
  CHECK(proof.provenExpansions == 2);  // the bounded rung, not the unbounded one after it

  // With the bound, x3 and x2 are expanded and x1 is read, on both sides.
  sem::TermContext tc;
  Region bounded = buildRegion(tc, in, ref.outputs().at(0), prod.outputs().at(0), Frontier::MatmulOutputs,
                               RegionMode::Real, 0, 2);
  sem::TermContext tc2;
  Region unbounded = buildRegion(tc2, in, ref.outputs().at(0), prod.outputs().at(0), Frontier::MatmulOutputs,
                                 RegionMode::Real, 0, 0);
  auto reads = [](const sem::TermContext &c, sem::TermPtr t, int slot) {
    return c.str(t).find("t" + std::to_string(slot) + "[") != std::string::npos;
  };
  const Value *x1 = nullptr;
  for (const auto &n : ref.nodes())
    if (n->outputs.at(0)->name == "x1") x1 = n->outputs.at(0);
  REQUIRE(x1);
  CHECK(reads(tc, bounded.reference, vn.number(x1)));
  CHECK(reads(tc, bounded.production, vn.number(x1)));
  CHECK_FALSE(reads(tc2, unbounded.reference, vn.number(x1)));
  CHECK_FALSE(reads(tc2, unbounded.production, vn.number(x1)));
}

TEST_CASE("shared zeros are read as zeros, not as a frontier tensor") {
  // Note [Constants are no frontier]: both graphs build %z, so its number is shared; production
  // adds it to the first term, which over any values of a frontier %z would not be tanh(a*b).
  RegionFixture f(R"(graph @reference(%a: f32[4,4], %b: f32[4,4]) -> (f32[4,4], f32[4,4]) {
  %z: f32[4,4] = aten::full() {size=[4, 4], fill_value=0.0, dtype=f32}
  %m: f32[4,4] = aten::mul.Tensor(%a, %b)
  %y: f32[4,4] = aten::tanh(%m)
  %w: f32[4,4] = aten::add.Tensor(%z, %a)
  return %y, %w
}
graph @production(%a: f32[4,4], %b: f32[4,4]) -> (f32[4,4], f32[4,4]) {
  %z: f32[4,4] = aten::full() {size=[4, 4], fill_value=0.0, dtype=f32}
  %m: f32[4,4] = aten::mul.Tensor(%a, %b)
  %s: f32[4,4] = aten::add.Tensor(%z, %m)
  %y: f32[4,4] = aten::tanh(%s)
  %w: f32[4,4] = aten::add.Tensor(%z, %a)
  return %y, %w
}
)",
                  "zeros.tvir");
  addConstantValues(f.ref, f.constants);
  addConstantValues(f.prod, f.constants);
  const Value *z = f.ref.nodes().at(0)->output();
  REQUIRE(f.shared.count(f.vn.number(z)));
  sem::TermContext tc;
  Region r = buildRegion(tc, f.in, f.ref.outputs().at(0), f.prod.outputs().at(0), Frontier::Matched, RegionMode::Real);
  CHECK(tc.str(r.production).find("t" + std::to_string(f.vn.number(z)) + "[") == std::string::npos);
  Prover prover(f.in, ProverLimits{});
  ProofOutcome proof = prover.prove(f.ref.outputs().at(0), f.prod.outputs().at(0));
  CHECK(proof.proven);
  CHECK(proof.provenAt == Frontier::Matched);
}

}  // namespace torchtv
