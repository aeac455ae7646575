// Note [Region keys from the graph]: regions of two layers share a key written
// from the graph alone; anything their terms depend on separates them.
#include <doctest/doctest.h>

#include <string>

#include "tests/unit/region_fixture.h"
#include "src/verify/region.h"

namespace torchtv {

namespace {

// Two "layers" (outputs 0 and 1) with the same structure over different shared
// values; output 2 differs from output 0 only in the 7th digit of a
// constant; output 3 reads one shared value twice where output 0 reads two.
const std::string kSignature = "(%x: f32[4,4], %w: f32[4,4], %v: f32[4,4]) -> (f32[4,4], f32[4,4], f32[4,4], f32[4,4]) {";
const std::string kShared = R"(
  %a: f32[4,4] = aten::mm(%x, %w)
  %b: f32[4,4] = aten::mm(%x, %v))";
const std::string kPair = "graph @reference" + kSignature + kShared + R"(
  %r0: f32[4,4] = aten::add.Scalar(%a) {other=1e-05, alpha=1}
  %s0: f32[4,4] = aten::mul.Tensor(%r0, %b)
  %r1: f32[4,4] = aten::add.Scalar(%b) {other=1e-05, alpha=1}
  %s1: f32[4,4] = aten::mul.Tensor(%r1, %a)
  %r2: f32[4,4] = aten::add.Scalar(%a) {other=1.0000001e-05, alpha=1}
  %s2: f32[4,4] = aten::mul.Tensor(%r2, %b)
  %r3: f32[4,4] = aten::add.Scalar(%a) {other=1e-05, alpha=1}
  %s3: f32[4,4] = aten::mul.Tensor(%r3, %a)
  return %s0, %s1, %s2, %s3
}
graph @production)" + kSignature + kShared + R"(
  %p0: f32[4,4] = aten::mul.Tensor(%a, %b)
  %q0: f32[4,4] = aten::mul.Scalar(%b) {other=1e-05}
  %s0: f32[4,4] = aten::add.Tensor(%p0, %q0) {alpha=1}
  %p1: f32[4,4] = aten::mul.Tensor(%b, %a)
  %q1: f32[4,4] = aten::mul.Scalar(%a) {other=1e-05}
  %s1: f32[4,4] = aten::add.Tensor(%p1, %q1) {alpha=1}
  return %s0, %s1, %s0, %s0
}
)";

}  // namespace

TEST_CASE("region keys from the graph: layers share one, a constant or a shared read separates them") {
  RegionFixture f(kPair, "layers.tvir");
  const Graph &ref = f.ref, &prod = f.prod;
  const RegionInputs &in = f.in;
  auto graphKey = [&](size_t o, RegionMode mode = RegionMode::Real) {
    return regionGraphKey(in, ref.outputs().at(o), prod.outputs().at(o), Frontier::Matched, mode);
  };
  auto termKey = [&](size_t o) {
    sem::TermContext tc;
    return buildRegion(tc, in, ref.outputs().at(o), prod.outputs().at(o), Frontier::Matched, RegionMode::Real).key;
  };

  CHECK(graphKey(0) == graphKey(1));
  CHECK(termKey(0) == termKey(1));  // what the graph key stands for
  CHECK(graphKey(0) != graphKey(2));
  CHECK(termKey(0) != termKey(2));
  CHECK(graphKey(0) != graphKey(3));
  CHECK(termKey(0) != termKey(3));
  CHECK(graphKey(0) != graphKey(0, RegionMode::Bitwise));
  // A wider frontier expands the products: another key.
  CHECK(graphKey(0) != regionGraphKey(in, ref.outputs().at(0), prod.outputs().at(0), Frontier::Inputs,
                                      RegionMode::Real));
}

}  // namespace torchtv
