// Every rule, for every dtype it is tagged with: its two sides as graphs,
// checked by torchtv's own checker with normalization off.
//
// Every instance must prove: a rule the prover leaves unknown fails the test,
// as does an outright not_equivalent. A bitwise rule's instance must be proven
// bit for bit (Z3 over IEEE values, with no resource limit but the query's
// wall-clock guard), except where the reason it is bitwise is not arithmetic
// Z3 can check in that budget (bitwiseByOtherMeans); those are proven at level
// real, are never refuted, and are listed here with their reason.
#include <doctest/doctest.h>

#include "ir/diagnostic.h"
#include "src/normalize/normalize.h"
#include "src/normalize/rule_matcher.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {
// Why an instance of a bitwise rule is not proven bit for bit here, or "" when it must be.
std::string bitwiseByOtherMeans(const Rule &r, DType t) {
  if (r.name == "pow-one")
    return "pow is uninterpreted at IEEE level; ATen computes exponent 1 as a copy (aten/src/ATen/native/Pow.cpp)";
  if (r.name == "softmax-int-is-softmax" || r.name == "log-softmax-int-is-log-softmax")
    return "one kernel: the .int overload calls the underscore op (ATen's code, not arithmetic)";
  if (t == DType::F64) return "Z3 bit-blasts a 53-bit multiplier or divider past its budget";
  if (t == DType::F32 && r.name == "div-by-power-of-two")
    return "Z3 bit-blasts an f32 divider past the query's 10 s guard";
  return "";
}
}  // namespace

TEST_CASE("every rule instantiates and is proven at its class's level") {
  const RuleSet &rules = bundledRules();
  REQUIRE(rules.rules().size() >= 10);
  for (const Rule &r : rules.rules()) {
    size_t instances = 0;
    for (DType t : r.dtypes) {
      const bool mustBeBitwise = r.cls == RuleClass::Bitwise && bitwiseByOtherMeans(r, t).empty();
      for (RuleInstance &inst : instantiateRule(r, t)) {
        ++instances;
        CheckOptions off;
        off.normalization = Normalization::Off;
        off.cutPoints = CutPointSearch::Off;  // one op a side: a cut's abstract frontier only loses bitwise proofs
        if (mustBeBitwise) off.rlimit = 0;
        CheckResult res = checkGraphs(*inst.lhs, *inst.rhs, off);
        CHECK_MESSAGE(res.verdict != Verdict::NotEquivalent, inst.label << " refuted: " << res.reason);
        CHECK_MESSAGE(res.verdict == Verdict::Equivalent, inst.label << " is not proven: " << res.reason);
        if (mustBeBitwise)
          CHECK_MESSAGE(res.level == Level::Bitwise, inst.label << " (a bitwise rule) is proven only at level "
                                                                << levelName(res.level) << ": "
                                                                << (res.outputs.empty() ? res.reason : res.outputs[0].reason));
      }
    }
    CHECK_MESSAGE(instances > 0, "rule " << r.name << " has no instance to test");
  }
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
