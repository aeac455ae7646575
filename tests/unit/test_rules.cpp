// Every rule, for every dtype it is tagged with: its two sides as graphs,
// checked by torchtv's own checker with normalization off.
//
// Every instance must prove (kRequireProof): a rule the prover leaves unknown
// fails the test, as does an outright not_equivalent.
#include <doctest/doctest.h>

#include "ir/diagnostic.h"
#include "src/normalize/normalize.h"
#include "src/normalize/rule_matcher.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {
constexpr bool kRequireProof = true;
}

TEST_CASE("every rule instantiates, and the checker does not refute it") {
  const RuleSet &rules = bundledRules();
  REQUIRE(rules.rules().size() >= 10);
  int unproven = 0;
  for (const Rule &r : rules.rules()) {
    size_t instances = 0;
    for (DType t : r.dtypes) {
      for (RuleInstance &inst : instantiateRule(r, t)) {
        ++instances;
        CheckOptions off;
        off.normalization = Normalization::Off;
        CheckResult res = checkGraphs(*inst.lhs, *inst.rhs, off);
        CHECK_MESSAGE(res.verdict != Verdict::NotEquivalent, inst.label << " refuted: " << res.reason);
        if (res.verdict == Verdict::Equivalent) continue;
        ++unproven;
        MESSAGE(inst.label << ": UNPROVEN: " << res.reason);
        if (kRequireProof) CHECK_MESSAGE(false, inst.label << " is not proven");
      }
    }
    CHECK_MESSAGE(instances > 0, "rule " << r.name << " has no instance to test");
  }
  CHECK(unproven == 0);
}

TEST_CASE("the normalizer applies every bitwise rule to its own left side") {
  const RuleSet &rules = bundledRules();
  FusionLibrary none;
  for (const Rule &r : rules.rules()) {
    if (r.cls != RuleClass::Bitwise) continue;
    for (DType t : r.dtypes)
      for (RuleInstance &inst : instantiateRule(r, t)) {
        NormalizeOptions opts;
        opts.rules = &rules;
        opts.fusions = FusionExpansion::Off;
        normalizeGraph(*inst.lhs, none, opts);
        normalizeGraph(*inst.rhs, none, opts);
        CheckOptions off;
        off.normalization = Normalization::Off;
        CheckResult res = checkGraphs(*inst.lhs, *inst.rhs, off);
        CHECK_MESSAGE(res.verdict == Verdict::Equivalent, inst.label << ": sides differ after normalization");
      }
  }
}

TEST_CASE("rule files reject malformed rules with a position") {
  auto errorOf = [](const std::string &text) {
    try {
      RuleSet s;
      s.addText(text, "t.rules");
    } catch (const InputError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(errorOf("rule r : maybe [f32] aten::neg(%x) => %x").find("bitwise or real") != std::string::npos);
  CHECK(errorOf("rule r : bitwise [f32] aten::nope(%x) => %x").find("unknown op") != std::string::npos);
  CHECK(errorOf("rule r : bitwise [f32] aten::neg(%x) => %y").find("%y is not bound") != std::string::npos);
  CHECK(errorOf("rule r : bitwise [f32] if frob($c) aten::mul.Scalar(%x) {other=$c} => %x")
            .find("unknown rule function") != std::string::npos);
  CHECK(errorOf("rule r : bitwise [f32] aten::neg(%x) => %x\nrule r : bitwise [f32] aten::neg(%x) => %x")
            .find("defined twice") != std::string::npos);
  CHECK(errorOf("rule r : bitwise [f32] aten::neg(%x) => %x").empty());
  CHECK(errorOf("rule r : bitwise [f32] aten::neg(%x) => %x").empty());
  CHECK(errorOf("rule r : bitwise [f32]\n  aten::neg(%x, %y) => %x").find("t.rules:2") != std::string::npos);
  // The lexer is the .tvir one (ir/lexer.h): kebab-case names, and the same words for tokens.
  CHECK(errorOf("rule neg-neg-is-id : bitwise [f32] aten::neg(aten::neg(%x)) => %x").empty());
  CHECK(errorOf("rule r : bitwise [f32").find("t.rules:1:22: expected ',', got end of file") == 0);
  CHECK(errorOf("rule r : bitwise [f32] aten::neg(%x) => %x ~").find("t.rules:1:44: unexpected character '~'") == 0);
  // Folders load through ir's one loadDirectory.
  RuleSet missing;
  CHECK_THROWS_WITH_AS(missing.loadDirectory("/nonexistent-rules"), "/nonexistent-rules: rules folder does not exist",
                       InputError);
}
