// Constants rounded from one real and the assumption summary (issue 18, items 3 and 4):
// Note [Rounded constants], summarizeRealAssumptions.
#include <doctest/doctest.h>

#include <cmath>

#include "src/sem/normal_form.h"
#include "src/verify/rounded_constants.h"
#include "src/verify/roundings.h"
#include "src/verify/verdict.h"

using namespace torchtv;

TEST_CASE("rounded constants: keys that differ only by one rounding are named, in the user's spelling") {
  std::string inv = sem::exactRational(0.35355339059327373);       // 1/sqrt(8) as a double
  std::string recip = sem::exactRational(2.8284271247461903);      // sqrt(8) as a double
  auto slash = recip.find('/');
  std::string oneOver = recip.substr(slash + 1) + "/" + recip.substr(0, slash);  // 1 / double(sqrt 8)
  auto pairs = roundedConstantsOnly("exp(" + inv + "*t0[n0_4]);", "exp(" + oneOver + "*t0[n0_4]);",
                                    roundedConstantsTolerance(DType::F64));
  REQUIRE(pairs);
  REQUIRE(pairs->size() == 1);
  CHECK((*pairs)[0].reference == "0.35355339059327373");
  CHECK((*pairs)[0].production == "1/2.8284271247461903");
  std::vector<Rounding> sites = roundingSites(*pairs, DType::F32, nullptr, nullptr);
  REQUIRE(sites.size() == 1);
  CHECK(describeRoundings(sites).rfind("equal over the reals up to the rounding of constants 0.35355339059327373 "
                                       "(reference) and 1/2.8284271247461903 (production), computed in f32, ",
                                       0) == 0);
}

TEST_CASE("rounded constants: anything else is no rounding") {
  const double kF64 = roundedConstantsTolerance(DType::F64);
  std::string a = sem::exactRational(0.3), b = sem::exactRational(0.3 * (1 + 1e-6));
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", b + "*t0[n0_4];", roundedConstantsTolerance(DType::F32)));  // a planted 1e-6 nudge
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t1[n0_4];", kF64));          // another tensor
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t0[n0_5];", kF64));          // another index
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t0[n0_4];", kF64));          // equal: nothing to say
  CHECK_FALSE(roundedConstantsOnly(a + "*t0;", a + "*t0;1*t1;", kF64));                 // a term more
  std::string c = sem::exactRational(0.1 * 3);                                     // 0.30000000000000004
  auto pairs = roundedConstantsOnly(a + "*t0;", c + "*t0;", kF64);
  REQUIRE(pairs);
  CHECK((*pairs)[0].production == "0.30000000000000004");
}

// Note [Assumptions as data]: grouped by kind, never by their wording.
TEST_CASE("assumptions: one line per kind with the count of places") {
  using sem::Assumption;
  using Kind = Assumption::Kind;
  AssumptionCounts many = {{Assumption::about(Kind::Positive, "(a0)"), 1}, {Assumption::about(Kind::Positive, "(a1)"), 1},
                           {Assumption::about(Kind::Positive, "(a2)"), 1}, {Assumption::about(Kind::Nonzero, "b"), 1},
                           {Assumption::about(Kind::KeepsElement, "m"), 1}};
  std::vector<std::string> lines = summarizeRealAssumptions(many);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind(std::string(reasons::kRealAssumptionPrefix) + "3 values are positive", 0) == 0);
  CHECK(lines[0].find("e.g. (a0) > 0") != std::string::npos);
  CHECK(lines[1] == std::string(reasons::kRealAssumptionPrefix) + "b != 0");
  CHECK(lines[2] == std::string(reasons::kRealAssumptionPrefix) + "some element of m is not masked to -inf");
  // A proof reused at 63 more places (a memo hit names the first place's values) counts at each.
  AssumptionCounts reused = {{Assumption::about(Kind::Positive, "(a0)"), 64}, {Assumption::about(Kind::Positive, "(a1)"), 1}};
  CHECK(summarizeRealAssumptions(reused)[0].find("65 values are positive") != std::string::npos);
}

TEST_CASE("assumptions: index inputs in range are one kind of every level") {
  // Note [Index inputs in range]: not "level real assumes", and counted by input, not by the
  // proofs that read it.
  using sem::Assumption;
  Assumption y = Assumption::indexInRange("y", sem::IndexRange{8, {-100}}, "aten::nll_loss_forward");
  CHECK(y.text() == "%y is an index in [0, 8) or -100 (aten::nll_loss_forward raises elsewhere)");
  std::vector<std::string> one = summarizeRealAssumptions({{y, 3}});
  REQUIRE(one.size() == 1);
  CHECK(one[0] == y.text());
  Assumption ids = Assumption::indexInRange("ids", sem::IndexRange{50, {}}, "aten::embedding");
  CHECK(ids.text() == "%ids is an index in [0, 50) (aten::embedding raises outside it)");
  std::vector<std::string> two =
      summarizeRealAssumptions({{y, 5}, {ids, 1}, {Assumption::about(Assumption::Kind::Positive, "(a0)"), 1}});
  REQUIRE(two.size() == 2);
  CHECK(two[0] == std::string(reasons::kRealAssumptionPrefix) + "(a0) > 0");
  CHECK(two[1].rfind("2 index values (inputs, or values computed from them) lie in the range of the dim they index", 0) == 0);
  // Note [Declared input domains]: the user's ranges are a kind of their own, with the points they
  // also take (a wording the summary once failed to recognise, when it sorted lines by their text).
  Assumption declared = Assumption::declaredRange("t", sem::IndexRange{5, {-100}});
  CHECK(declared.text() == "as you declared: %t is in [0, 5) or -100");
  std::vector<std::string> three = summarizeRealAssumptions({{y, 1}, {declared, 1}});
  REQUIRE(three.size() == 2);
  CHECK(three[1] == declared.text());
}

// Note [Equivalence up to rounding] (issue 34, items 2 and 3).
TEST_CASE("rounded constants: the tolerance is one rounding of the dtype the constants compute in") {
  // Megatron's bias-GELU backward: 0.1070322243 written, 0.044715 * 3 * sqrt(2/pi) computed in
  // the forward; 1.1e-11 apart: within one rounding in f32, two different constants in f64.
  double written = 0.1070322243, computed = 0.044715 * 3 * 0.7978845608028654;
  std::string a = sem::exactRational(written) + "*t0[n0_4];", b = sem::exactRational(computed) + "*t0[n0_4];";
  auto f32 = roundedConstantsOnly(a, b, roundedConstantsTolerance(DType::F32));
  REQUIRE(f32);
  CHECK((*f32)[0].relative == doctest::Approx(std::fabs(written - computed) / written));
  CHECK_FALSE(roundedConstantsOnly(a, b, roundedConstantsTolerance(DType::F64)));
  CHECK(roundedConstantsTolerance(DType::F64) == std::ldexp(1.0, -52));
  CHECK(roundedConstantsTolerance(DType::BF16) == std::ldexp(1.0, -7));
  // 1/24 against the double 0.041666666666666664: one rounding in f64 too.
  auto f64 = roundedConstantsOnly("1/24*t0;", sem::exactRational(1.0 / 24) + "*t0;", roundedConstantsTolerance(DType::F64));
  REQUIRE(f64);
  CHECK((*f64)[0].production == "0.041666666666666664");
}

TEST_CASE("levels: rounded is the weakest, and --require real rejects it") {
  CHECK(weakerLevel(Level::Bitwise, Level::Real) == Level::Real);
  CHECK(weakerLevel(Level::Rounded, Level::Real) == Level::Rounded);
  CHECK(weakerLevel(Level::None, Level::Bitwise) == Level::Bitwise);
  CHECK(levelName(Level::Rounded) == "rounded");
  Rounding site;
  site.reference = "1/24";
  site.production = "0.041666666666666664";
  site.dtype = "f64";
  site.bound = 1e-17;
  CheckResult r;
  r.outputs = {{"a", Verdict::Equivalent, Level::Bitwise, ReasonCode::ProvenBitwise, "", {}, {}, {}},
               {"b", Verdict::Equivalent, Level::Rounded, ReasonCode::ProvenRounded, "equal over the reals", {}, {}, {site}}};
  summarize(r);
  CHECK(r.level == Level::Rounded);
  REQUIRE(r.roundings.size() == 1);
  CheckResult byDefault = r;
  applyRequirement(byDefault, RequiredLevel::Rounded);
  CHECK(byDefault.verdict == Verdict::Equivalent);
  CheckResult real = r;
  applyRequirement(real, RequiredLevel::Real);
  CHECK(real.verdict == Verdict::Unknown);
  CHECK(real.reason == reasons::kRoundedOnlyButRealRequired);
  CHECK(real.outputs[0].verdict == Verdict::Equivalent);
  CHECK(real.outputs[1].verdict == Verdict::Unknown);
  CHECK(real.roundings.size() == 1);  // still named: they say why
  CheckResult bitwise = r;
  applyRequirement(bitwise, RequiredLevel::Bitwise);
  CHECK(bitwise.outputs[1].reason.find("--require bitwise") != std::string::npos);
  // A real output under --require real stays.
  CheckResult realOnly;
  realOnly.outputs = {{"a", Verdict::Equivalent, Level::Real, ReasonCode::ProvenReal, "", {}, {}, {}}};
  summarize(realOnly);
  applyRequirement(realOnly, RequiredLevel::Real);
  CHECK(realOnly.verdict == Verdict::Equivalent);
}
