// Note [Region keys from the graph]: regions of two layers share a key written
// from the graph alone; anything their terms depend on separates them.
#include <doctest/doctest.h>

#include <string>

#include "tests/unit/region_fixture.h"
#include "src/verify/region.h"
#include "src/verify/verdict.h"

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

// Note [Oversized definitions]: a value whose own definition built at least
// minTerms terms before its region gave up is recorded; a later region of the
// same kind that reaches it gives up at once, naming it. Two outputs of each
// side read one long chain, written with other constants in production (so
// nothing is shared and both regions must expand it).
std::string chainPair() {
  auto chain = [](const std::string &c) {
    std::string text = "  %c0: f32[4] = aten::exp(%x)\n";
    for (int i = 1; i <= 12; ++i)
      text += "  %c" + std::to_string(i) + ": f32[4] = aten::add.Scalar(%c" + std::to_string(i - 1) +
              ") {other=" + c + std::to_string(i) + ", alpha=1}\n";
    return text + "  %y0: f32[4] = aten::exp(%c12)\n  %y1: f32[4] = aten::sin(%c12)\n  return %y0, %y1\n}\n";
  };
  const std::string sig = "(%x: f32[4]) -> (f32[4], f32[4]) {\n";
  return "graph @reference" + sig + chain("0.5") + "graph @production" + sig + chain("0.25");
}

TEST_CASE("oversized definitions: the second region reaching a recorded value gives up at once") {
  RegionFixture f(chainPair(), "chain.tvir");
  OversizedDefinitions oversized;
  oversized.minTerms = 8;
  f.in.oversized = &oversized;
  auto build = [&](size_t output) {
    sem::TermContext tc;
    return buildRegion(tc, f.in, f.ref.outputs().at(output), f.prod.outputs().at(output), Frontier::Matched,
                       RegionMode::Real, 16);
  };
  std::string first, second;
  try { build(0); } catch (const sem::Unsupported &e) { first = e.what(); }
  CHECK(first.find("grew past 16 terms") != std::string::npos);
  REQUIRE_FALSE(oversized.keys.empty());
  try { build(1); } catch (const sem::Unsupported &e) { second = e.what(); }
  CHECK(second.rfind(reasons::kOversizedDefinition, 0) == 0);
  // Without the record the second region is built again and fails on its own.
  f.in.oversized = nullptr;
  std::string again;
  try { build(1); } catch (const sem::Unsupported &e) { again = e.what(); }
  CHECK(again.find("grew past 16 terms") != std::string::npos);
}


}  // namespace torchtv
