#include <doctest/doctest.h>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"

using namespace torchtv;

namespace {
// Result type of a one-node graph, via the parser (which runs the shape rule).
std::string resultOf(const std::string &inputs, const std::string &call) {
  std::string text = "graph @g(" + inputs + ") -> () {\n  %r: f32[] = " + call + "\n  return\n}\n";
  try {
    parseModule(text, "t.tvir");
  } catch (const InputError &e) {
    std::string msg = e.message();
    auto at = msg.find("the op computes ");
    return at == std::string::npos ? "error: " + msg : msg.substr(at + 16);
  }
  return "f32[]";
}
}  // namespace

TEST_CASE("promoteTypes follows torch.promote_types") {
  CHECK(promoteTypes(DType::U8, DType::I8) == DType::I16);
  CHECK(promoteTypes(DType::F16, DType::BF16) == DType::F32);
  CHECK(promoteTypes(DType::I64, DType::F16) == DType::F16);
  CHECK(promoteTypes(DType::Bool, DType::I32) == DType::I32);
  CHECK(promoteTypes(DType::F32, DType::F64) == DType::F64);
  // Complex wins, with parts as wide as the wider floating operand.
  CHECK(promoteTypes(DType::C64, DType::F32) == DType::C64);
  CHECK(promoteTypes(DType::C64, DType::F64) == DType::C128);
  CHECK(promoteTypes(DType::I64, DType::C64) == DType::C64);
  CHECK(promoteTypes(DType::C128, DType::C64) == DType::C128);
  CHECK(componentOf(DType::C64) == DType::F32);
  CHECK(componentOf(DType::C128) == DType::F64);
  CHECK(componentOf(DType::F16) == DType::F16);
  CHECK(!isIntegral(DType::C64));
  CHECK(!isFloating(DType::C64));
  CHECK(parseDType("c128") == DType::C128);
  CHECK(dtypeName(DType::C64) == "c64");
}

TEST_CASE("result types with wrapped scalars and zero-dim tensors") {
  CHECK(resultOf("%x: i32[3]", "aten::mul.Scalar(%x) {other=2.5}") == "f32[3]");
  CHECK(resultOf("%x: i32[3]", "aten::mul.Scalar(%x) {other=2}") == "i32[3]");
  CHECK(resultOf("%x: bool[3]", "aten::add.Scalar(%x) {other=2}") == "i64[3]");
  CHECK(resultOf("%x: f16[3]", "aten::mul.Scalar(%x) {other=2.5}") == "f16[3]");
  // A zero-dim tensor only matters when it brings a higher category.
  CHECK(resultOf("%x: i32[3], %s: i64[]", "aten::add.Tensor(%x, %s)") == "i32[3]");
  CHECK(resultOf("%x: i32[3], %s: f64[]", "aten::add.Tensor(%x, %s)") == "f64[3]");
  CHECK(resultOf("%x: f16[3], %s: f64[]", "aten::add.Tensor(%x, %s)") == "f16[3]");
  CHECK(resultOf("%x: i64[3], %y: i64[3]", "aten::div.Tensor(%x, %y)") == "f32[3]");
  CHECK(resultOf("%x: i64[3]", "aten::sum(%x)") == "i64[]");
  CHECK(resultOf("%x: i32[3]", "aten::sum(%x)") == "i64[]");
  CHECK(resultOf("%x: f32[3], %y: f32[3]", "aten::lt.Tensor(%x, %y)") == "bool[3]");
  // A zero-dim complex tensor brings its category to a real tensor (at::result_type).
  CHECK(resultOf("%x: f32[3], %s: c64[]", "aten::mul.Tensor(%x, %s)") == "c64[3]");
  CHECK(resultOf("%x: c64[3], %s: f64[]", "aten::mul.Tensor(%x, %s)") == "c64[3]");
  CHECK(resultOf("%x: c64[3]", "aten::mul.Scalar(%x) {other=2.5}") == "c64[3]");
}

TEST_CASE("shape rules: broadcasting, reductions, matmul, views") {
  CHECK(resultOf("%x: f32[4,1,3], %y: f32[5,1]", "aten::add.Tensor(%x, %y)") == "f32[4,5,3]");
  CHECK(resultOf("%x: f32[B,3], %y: f32[3]", "aten::mul.Tensor(%x, %y)") == "f32[B,3]");
  CHECK(resultOf("%x: f32[4,3], %y: f32[5]", "aten::mul.Tensor(%x, %y)").find("do not broadcast") !=
        std::string::npos);
  CHECK(resultOf("%x: f32[2,3,4]", "aten::sum.dim_IntList(%x) {dim=[0, -1]}") == "f32[3]");
  CHECK(resultOf("%x: f32[2,3,4]", "aten::amax(%x) {dim=[1], keepdim=true}") == "f32[2,1,4]");
  CHECK(resultOf("%x: f32[2,3,4]", "aten::sum.dim_IntList(%x) {dim=[1, 1]}").find("repeated") !=
        std::string::npos);
  CHECK(resultOf("%a: f32[7,2,3], %b: f32[3,5]", "aten::matmul(%a, %b)") == "f32[7,2,5]");
  CHECK(resultOf("%a: f32[3], %b: f32[3,5]", "aten::matmul(%a, %b)") == "f32[5]");
  CHECK(resultOf("%a: f32[3], %b: f32[3]", "aten::matmul(%a, %b)") == "f32[]");
  CHECK(resultOf("%a: f32[2,3], %b: f32[4,5]", "aten::mm(%a, %b)").find("contraction") != std::string::npos);
  CHECK(resultOf("%x: f32[8,3], %w: f32[5,3], %b: f32[5]", "aten::linear(%x, %w, %b)") == "f32[8,5]");
  CHECK(resultOf("%x: f32[2,3,4]", "aten::view(%x) {size=[6,-1]}") == "f32[6,4]");
  CHECK(resultOf("%x: f32[2,3,4]", "aten::view(%x) {size=[5,-1]}").find("invalid") != std::string::npos);
  CHECK(resultOf("%x: f32[3,1]", "aten::expand(%x) {size=[2,3,4]}") == "f32[2,3,4]");
  CHECK(resultOf("%x: f32[10]", "aten::slice.Tensor(%x) {start=2, end=-1, step=3}") == "f32[3]");
  CHECK(resultOf("%x: f32[10]", "aten::slice.Tensor(%x) {start=-100, end=100}") == "f32[10]");
  CHECK(resultOf("%x: f32[2,3], %y: f32[2,5]", "aten::cat(%x, %y) {dim=1}") == "f32[2,8]");
  CHECK(resultOf("%x: f32[2,3], %y: f32[2,3]", "aten::stack(%x, %y) {dim=1}") == "f32[2,2,3]");
  CHECK(resultOf("%x: f32[2,1,3]", "aten::squeeze(%x)") == "f32[2,3]");
  CHECK(resultOf("%x: f32[2,3]", "aten::permute(%x) {dims=[1, 1]}").find("repeated") != std::string::npos);
  CHECK(resultOf("%x: f32[2,3]", "aten::select.int(%x) {dim=0, index=2}").find("out of range") !=
        std::string::npos);
}

TEST_CASE("shape rules: composite nn ops") {
  Module m = parseModule(R"(graph @g(%x: f32[4,10], %t: i64[4]) -> (f32[], f32[4]) {
  %l: f32[], %w: f32[] = aten::nll_loss_forward(%x, %t, none) {reduction=1, ignore_index=-100}
  %n: f32[4], %w2: f32[] = aten::nll_loss_forward(%x, %t, none) {reduction=0, ignore_index=-100}
  return %l, %n
}
)",
                         "nll.tvir");
  CHECK(m.graphs[0]->nodes().size() == 2);
  CHECK(resultOf("%w: f32[10,3], %i: i64[2,5]", "aten::embedding(%w, %i)") == "f32[2,5,3]");
  CHECK(resultOf("%w: f32[10,3], %i: f32[2,5]", "aten::embedding(%w, %i)").find("integral") != std::string::npos);
  CHECK(resultOf("%x: f32[4,10], %y: f32[4,10]", "aten::mse_loss(%x, %y)") == "f32[]");
  CHECK(resultOf("%x: f32[4,10], %y: f32[4,10]", "aten::mse_loss(%x, %y) {reduction=0}") == "f32[4,10]");
}
