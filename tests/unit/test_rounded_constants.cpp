// Constants rounded from one real and the assumption summary (issue 18, items 3 and 4):
// Note [Rounded constants], summarizeRealAssumptions.
#include <doctest/doctest.h>

#include "src/sem/normal_form.h"
#include "src/verify/rounded_constants.h"
#include "src/verify/verdict.h"

using namespace torchtv;

TEST_CASE("rounded constants: keys that differ only by one rounding are named, in the user's spelling") {
  std::string inv = sem::exactRational(0.35355339059327373);       // 1/sqrt(8) as a double
  std::string recip = sem::exactRational(2.8284271247461903);      // sqrt(8) as a double
  auto slash = recip.find('/');
  std::string oneOver = recip.substr(slash + 1) + "/" + recip.substr(0, slash);  // 1 / double(sqrt 8)
  auto pairs = roundedConstantsOnly("exp(" + inv + "*t0[n0_4]);", "exp(" + oneOver + "*t0[n0_4]);");
  REQUIRE(pairs);
  REQUIRE(pairs->size() == 1);
  CHECK((*pairs)[0].reference == "0.35355339059327373");
  CHECK((*pairs)[0].production == "1/2.8284271247461903");
  CHECK(describeRoundedConstants(*pairs) ==
        "equal up to the rounding of constants 0.35355339059327373 and 1/2.8284271247461903");
}

TEST_CASE("rounded constants: anything else is no rounding") {
  std::string a = sem::exactRational(0.3), b = sem::exactRational(0.3 * (1 + 1e-6));
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", b + "*t0[n0_4];"));          // a planted 1e-6 nudge
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t1[n0_4];"));          // another tensor
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t0[n0_5];"));          // another index
  CHECK_FALSE(roundedConstantsOnly(a + "*t0[n0_4];", a + "*t0[n0_4];"));          // equal: nothing to say
  CHECK_FALSE(roundedConstantsOnly(a + "*t0;", a + "*t0;1*t1;"));                 // a term more
  std::string c = sem::exactRational(0.1 * 3);                                     // 0.30000000000000004
  auto pairs = roundedConstantsOnly(a + "*t0;", c + "*t0;");
  REQUIRE(pairs);
  CHECK((*pairs)[0].production == "0.30000000000000004");
}

TEST_CASE("assumptions: one line per kind with the count of places") {
  AssumptionCounts many = {{"(a0) > 0", 1}, {"(a1) > 0", 1}, {"(a2) > 0", 1}, {"b != 0", 1},
                           {"some element of m is not masked to -inf", 1}, {"something else", 1}};
  std::vector<std::string> lines = summarizeRealAssumptions(many);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == std::string(reasons::kRealAssumptionPrefix) + "something else");
  CHECK(lines[1].find("3 values are positive") != std::string::npos);
  CHECK(lines[1].find("e.g. (a0) > 0") != std::string::npos);
  CHECK(lines[2] == std::string(reasons::kRealAssumptionPrefix) + "b != 0");
  CHECK(lines[3] == std::string(reasons::kRealAssumptionPrefix) + "some element of m is not masked to -inf");
  // A proof reused at 63 more places (a memo hit names the first place's values) counts at each.
  AssumptionCounts reused = {{"(a0) > 0", 64}, {"(a1) > 0", 1}};
  CHECK(summarizeRealAssumptions(reused)[0].find("65 values are positive") != std::string::npos);
}

TEST_CASE("assumptions: index inputs in range are one kind of every level") {
  // Note [Index inputs in range]: not "level real assumes", and counted by input, not by the
  // proofs that read it.
  std::string y = indexAssumption("y", sem::IndexRange{8, {-100}}, "aten::nll_loss_forward");
  CHECK(y == "%y is an index in [0, 8) or -100 (aten::nll_loss_forward raises elsewhere)");
  std::vector<std::string> one = summarizeRealAssumptions({{y, 3}});
  REQUIRE(one.size() == 1);
  CHECK(one[0] == y);
  std::string ids = indexAssumption("ids", sem::IndexRange{50, {}}, "aten::embedding");
  CHECK(ids == "%ids is an index in [0, 50) (aten::embedding raises outside it)");
  std::vector<std::string> two = summarizeRealAssumptions({{y, 5}, {ids, 1}, {"(a0) > 0", 1}});
  REQUIRE(two.size() == 2);
  CHECK(two[0] == std::string(reasons::kRealAssumptionPrefix) + "(a0) > 0");
  CHECK(two[1].rfind("2 index values (inputs, or values computed from them) lie in the range of the dim they index", 0) == 0);
  // Note [Declared input domains]: the user's ranges are a kind of their own.
  std::string declared = std::string(reasons::kAsYouDeclared) + "t" + reasons::kDeclaredIsIn + "5)";
  std::vector<std::string> three = summarizeRealAssumptions({{y, 1}, {declared, 1}});
  REQUIRE(three.size() == 2);
  CHECK(three[1] == declared);
}
