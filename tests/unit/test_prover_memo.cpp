// Memoization of residual regions: an N-layer pair proves each distinct region once.
#include <doctest/doctest.h>

#include <string>

#include "ir/text_format.h"
#include "src/verify/check.h"

namespace torchtv {

namespace {

// Each layer: h' = tanh(h @ w) on both sides (matched), and an output that
// differs in spelling: relu(h') in the reference, clamp_min(h', 0) in production.
std::string layeredPair(int layers) {
  std::string inputs = "%x: f32[4,8]";
  for (int i = 0; i < layers; ++i) inputs += ", %w" + std::to_string(i) + ": f32[8,8]";
  std::string results;
  for (int i = 0; i < layers; ++i) results += std::string(i ? ", " : "") + "f32[4,8]";
  std::string text;
  for (const char *side : {"reference", "production"}) {
    text += std::string("graph @") + side + "(" + inputs + ") -> (" + results + ") {\n";
    std::string h = "%x", ret;
    for (int i = 0; i < layers; ++i) {
      std::string n = std::to_string(i);
      text += "  %m" + n + ": f32[4,8] = aten::mm(" + h + ", %w" + n + ")\n";
      text += "  %h" + n + ": f32[4,8] = aten::tanh(%m" + n + ")\n";
      if (std::string(side) == "reference") text += "  %o" + n + ": f32[4,8] = aten::relu(%h" + n + ")\n";
      else text += "  %o" + n + ": f32[4,8] = aten::clamp_min(%h" + n + ") {min=0}\n";
      ret += std::string(i ? ", " : "") + "%o" + n;
      h = "%h" + n;
    }
    text += "  return " + ret + "\n}\n";
  }
  return text;
}

CheckStats statsFor(int layers) {
  Module m = parseModule(layeredPair(layers), "layers.tvir");
  CheckResult r = checkGraphs(*m.find("reference"), *m.find("production"), CheckOptions{});
  CHECK(r.verdict == Verdict::Equivalent);
  CHECK(r.level == Level::Bitwise);
  return r.stats;
}

}  // namespace

TEST_CASE("repeated layers are proven once (memoized by region structure)") {
  CheckStats two = statsFor(2), eight = statsFor(8);
  CHECK(two.distinctProofs == 1);
  CHECK(eight.distinctProofs == 1);
  CHECK(two.cacheHits == 1);
  CHECK(eight.cacheHits == 7);
}

}  // namespace torchtv
