// Concrete replay of IR graphs through LibTorch, against values worked out by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "ir/text_format.h"
#include "src/import/load.h"
#include "src/torch/replay.h"

using namespace torchtv;

namespace {
struct Parsed {
  Module m;
  const Graph &g() const { return *m.graphs.at(0); }
};
Parsed parse(const char *text) { return {parseModule(text, "t.tvir")}; }
ConcreteTensor tensor(const char *type, std::vector<double> v) { return {parseTensorType(type), std::move(v)}; }
}  // namespace

TEST_CASE("replay: IEEE special values pass through exactly") {
  auto p = parse(R"(graph @g(%x: f32[4], %w: f32[4]) -> (f32[4]) {
  %y: f32[4] = aten::mul.Tensor(%x, %w)
  return %y
})");
  auto out = replayGraph(p.g(), {tensor("f32[4]", {1.5, -0.0, INFINITY, NAN}), tensor("f32[4]", {-2, 1, 0, 2})});
  REQUIRE(out.size() == 1);
  CHECK(out[0].type.str() == "f32[4]");
  CHECK(out[0].values[0] == -3.0);
  CHECK(out[0].values[1] == 0.0);
  CHECK(std::signbit(out[0].values[1]));  // -0.0 * 1 = -0.0
  CHECK(std::isnan(out[0].values[2]));    // inf * 0
  CHECK(std::isnan(out[0].values[3]));
}

TEST_CASE("replay: int and bool dtypes, and Scalar kinds (Note [Scalar kinds in replay])") {
  auto p = parse(R"(graph @g(%a: i64[3], %b: i64[3]) -> (i64[3], bool[3], f32[3], i64[3]) {
  %s: i64[3] = aten::add.Tensor(%a, %b) {alpha=2}
  %e: bool[3] = aten::eq.Tensor(%a, %b)
  %f: f32[3] = aten::add.Scalar(%a) {other=0.5}
  %i: i64[3] = aten::add.Scalar(%a) {other=1}
  return %s, %e, %f, %i
})");
  std::map<const Value *, ConcreteTensor> trace;
  auto out = replayGraph(p.g(), {tensor("i64[3]", {4503599627370496.0, -3, 7}), tensor("i64[3]", {0, -3, 1})}, &trace);
  REQUIRE(out.size() == 4);
  CHECK(out[0].values == std::vector<double>{4503599627370496.0, -9, 9});
  CHECK(out[1].type.str() == "bool[3]");
  CHECK(out[1].values == std::vector<double>{0, 1, 0});
  CHECK(out[2].type.str() == "f32[3]");
  CHECK(out[2].values == std::vector<double>{4503599627370496.0, -2.5, 7.5});  // 2^52 + 0.5 rounds in f32
  CHECK(out[3].type.str() == "i64[3]");
  CHECK(out[3].values == std::vector<double>{4503599627370497.0, -2, 8});  // exact in i64
  CHECK(trace.size() == 6);  // two inputs, four results
}

TEST_CASE("replay: a multi-output op (native_layer_norm)") {
  auto p = parse(R"(graph @g(%x: f32[1,4]) -> (f32[1,4], f32[1,1], f32[1,1]) {
  %y: f32[1,4], %mean: f32[1,1], %rstd: f32[1,1] = aten::native_layer_norm(%x, none, none) {normalized_shape=[4], eps=0.0}
  return %y, %mean, %rstd
})");
  auto out = replayGraph(p.g(), {tensor("f32[1,4]", {1, 2, 3, 4})});
  REQUIRE(out.size() == 3);
  double rstd = 1.0 / std::sqrt(1.25);  // mean 2.5, biased variance 1.25
  CHECK(out[1].values[0] == 2.5);
  CHECK(out[2].values[0] == doctest::Approx(rstd).epsilon(1e-6));
  CHECK(out[0].values[0] == doctest::Approx(-1.5 * rstd).epsilon(1e-6));
  CHECK(out[0].values[3] == doctest::Approx(1.5 * rstd).epsilon(1e-6));
}

TEST_CASE("replay: constants, lists and dtype attributes") {
  auto p = parse(R"(graph @g(%x: f32[2,2]) -> (f64[2], f32[4]) {
  %c: f32[2] = prim::constant() {data=[10.0, -0.0]}
  %s: f32[2] = aten::sum.dim_IntList(%x) {dim=[0]}
  %a: f32[2] = aten::add.Tensor(%s, %c)
  %d: f64[2] = aten::_to_copy(%a) {dtype=f64}
  %cat: f32[4] = aten::cat(%a, %c)
  return %d, %cat
})");
  auto out = replayGraph(p.g(), {tensor("f32[2,2]", {1, 2, 3, 4})});
  CHECK(out[0].type.str() == "f64[2]");
  CHECK(out[0].values == std::vector<double>{14, 6});
  CHECK(out[1].values == std::vector<double>{14, 6, 10, 0});
  CHECK(std::signbit(out[1].values[3]));
}

TEST_CASE("replay: errors name the op or the input") {
  auto custom = parse(R"(op mylib::foo(Tensor x) -> Tensor
graph @g(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = mylib::foo(%x)
  return %y
})");
  try {
    replayGraph(custom.g(), {tensor("f32[2]", {1, 2})});
    FAIL("expected ReplayError");
  } catch (const ReplayError &e) {
    CHECK(std::string(e.what()).find("mylib::foo") != std::string::npos);
  }
  auto sym = parse(R"(graph @g(%x: f32[B], %y: f32[B]) -> (f32[B]) {
  %z: f32[B] = aten::add.Tensor(%x, %y)
  return %z
})");
  CHECK_THROWS_AS(replayGraph(sym.g(), {tensor("f32[2]", {1, 2}), tensor("f32[3]", {1, 2, 3})}), ReplayError);
  CHECK(replayGraph(sym.g(), {tensor("f32[2]", {1, 2}), tensor("f32[2]", {3, 4})})[0].values ==
        std::vector<double>{4, 6});
  CHECK_THROWS_AS(replayGraph(sym.g(), {tensor("i64[2]", {1, 2}), tensor("f32[2]", {3, 4})}), ReplayError);
  CHECK_THROWS_AS(replayGraph(sym.g(), {tensor("f32[2]", {1, 2})}), ReplayError);
}

TEST_CASE("replay: the TorchScript and .pt2 imports of one model compute the same values") {
  std::string fx = std::string(TORCHTV_SOURCE_DIR) + "/tests/fixtures/";
  LoadOptions o;
  o.inputs = parseInputTypes("f32[3,4]");
  auto ts = loadModule(fx + "t113/softmax.script.pt", o);
  auto ep = loadModule(fx + "t211/softmax.pt2");
  std::vector<ConcreteTensor> in = {tensor("f32[3,4]", {0, 1, 2, 3, -1, -2, -3, -4, 0.5, 0.25, 100, -100})};
  auto a = replayGraph(*ts->graphs.at(0), in);
  auto b = replayGraph(*ep->graphs.at(0), in);
  CHECK(a[0].values == b[0].values);
  CHECK(a[0].values[0] == doctest::Approx(std::exp(0.0) / (1 + std::exp(1.0) + std::exp(4.0) + std::exp(12.0))));
}
