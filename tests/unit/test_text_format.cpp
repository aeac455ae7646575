#include <doctest/doctest.h>

#include "ir/diagnostic.h"
#include "ir/text_format.h"

using namespace torchtv;

namespace {
const char *kRmsNorm = R"(# RMSNorm forward
graph @reference(%x: f32[4,16], %w: f32[16]) -> (f32[4,16]) {
  %sq: f32[4,16] = aten::mul.Tensor(%x, %x)
  %ms: f32[4,1] = aten::mean.dim(%sq) {dim=[-1], keepdim=true}
  %e: f32[4,1] = aten::add.Scalar(%ms) {other=1e-06}
  %r: f32[4,1] = aten::rsqrt(%e) loc("model.py":7)
  %xn: f32[4,16] = aten::mul.Tensor(%x, %r)
  %y: f32[4,16] = aten::mul.Tensor(%xn, %w)
  return %y
}
)";

std::string errorOf(const std::string &text) {
  try {
    parseModule(text, "t.tvir");
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("print(parse(text)) is a fixed point") {
  Module m = parseModule(kRmsNorm, "t.tvir");
  std::string once = printModule(m);
  Module again = parseModule(once, "t2.tvir");
  CHECK(printModule(again) == once);
  const Graph &g = *m.graphs.at(0);
  CHECK(g.nodes().size() == 6);
  CHECK(g.nodes()[3]->loc.str() == "model.py:7");
  CHECK(g.nodes()[2]->attr("other").asFloat() == doctest::Approx(1e-6));
  // Defaults are filled in even when not written.
  CHECK(g.nodes()[2]->attr("alpha").asInt() == 1);
}

TEST_CASE("attributes round-trip exactly, including special floats") {
  const char *text = R"(graph @g(%x: f32[2]) -> (f32[2]) {
  %a: f32[2] = aten::mul.Scalar(%x) {other=-0.0}
  %b: f32[2] = aten::add.Scalar(%a) {other=inf}
  %c: f32[2] = aten::add.Scalar(%b) {other=nan}
  %d: f32[2] = aten::mul.Scalar(%c) {other=0.1}
  %e: f32[2] = aten::clamp(%d) {min=-inf, max=3}
  return %e
}
)";
  Module m = parseModule(text, "t.tvir");
  std::string printed = printModule(m);
  CHECK(printed.find("other=-0.0") != std::string::npos);
  CHECK(printed.find("other=inf") != std::string::npos);
  CHECK(printed.find("other=nan") != std::string::npos);
  CHECK(printed.find("other=0.1}") != std::string::npos);
  CHECK(printed.find("min=-inf, max=3") != std::string::npos);
  CHECK(printModule(parseModule(printed, "p.tvir")) == printed);
}

TEST_CASE("multi-output ops, optional operands and custom ops") {
  const char *text = R"(op my::fused(Tensor x, Tensor? b=None) -> Tensor
graph @g(%x: f32[2,8], %w: f32[8]) -> (f32[2,8], f32[2,1], f32[2,8]) {
  %y: f32[2,8], %mean: f32[2,1], %rstd: f32[2,1] = aten::native_layer_norm(%x, %w, none) {normalized_shape=[8], eps=1e-05}
  %z: f32[2,8] = my::fused(%y, none)
  return %y, %mean, %z
}
)";
  Module m = parseModule(text, "t.tvir");
  CHECK(m.customOps.count("my::fused") == 1);
  std::string printed = printModule(m);
  CHECK(printModule(parseModule(printed, "p.tvir")) == printed);
  CHECK(m.graphs[0]->nodes()[0]->outputs.size() == 3);
}

TEST_CASE("parse errors name file, line and column") {
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = aten::nope(%x)\n  return %y\n}\n")
            .rfind("t.tvir:2:16: aten::nope: unknown op", 0) == 0);
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = aten::neg(%z)\n  return %y\n}\n")
            .rfind("t.tvir:2:26: use of undefined value '%z'", 0) == 0);
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[3] = aten::neg(%x)\n  return %y\n}\n")
            .find("declared f32[3] but the op computes f32[2]") != std::string::npos);
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = aten::add.Tensor(%x)\n  return %y\n}\n")
            .find("expects 2 tensor operand(s), got 1") != std::string::npos);
  CHECK(errorOf("").find("no graph in file") != std::string::npos);
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = aten::neg(%x)\n")
            .find("unexpected end of file") != std::string::npos);
  CHECK(errorOf("graph @g(%x: q32[2]) -> (f32[2]) {}").find("t.tvir:1:14: unknown dtype 'q32'") == 0);
  // A use before its definition: graphs are DAGs in topological order.
  CHECK(errorOf("graph @g(%x: f32[2]) -> (f32[2]) {\n  %a: f32[2] = aten::neg(%b)\n  %b: f32[2] = aten::neg(%a)\n  return %b\n}\n")
            .find("use of undefined value '%b'") != std::string::npos);
}

TEST_CASE("tensor types parse with symbolic dims") {
  TensorType t = parseTensorType("bf16[B,128]");
  CHECK(t.dtype == DType::BF16);
  CHECK(t.shape.size() == 2);
  CHECK(!t.shape[0].isConcrete());
  CHECK(t.str() == "bf16[B,128]");
  CHECK(parseTensorType("f32[]").rank() == 0);
  CHECK_THROWS_AS(parseTensorType("f32[2"), InputError);
}
