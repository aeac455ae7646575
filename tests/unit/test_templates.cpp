// The .tvir grammar for fusion definitions (Note [Fusion templates]).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/fusion/fusion_library.h"
#include "src/fusion/template_match.h"

using namespace torchtv;

namespace {
const char *kDefs = R"(op my::scale(Tensor x, float s, bool flip) -> Tensor
graph @my::scale(%x: $T[N, D]) {s=$s, flip=false} -> ($T[N, D]) {
  %y: _ = aten::mul.Scalar(%x) {other=$s}
  %v: $T[N, D] = aten::view(%y) {size=[$N, $D]}
  return %v
}
graph @my::scale(%x: _) {s=_, flip=true} -> (_) {
  %y: _ = aten::neg(%x)
  return %y
}
graph @reference(%x: f32[2,3]) -> (f32[2,3]) {
  %y: f32[2,3] = my::scale(%x) {s=2.0, flip=false}
  return %y
}
)";

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("definitions are kept as templates and instantiated per call") {
  Module m = parseModule(kDefs, "d.tvir");
  REQUIRE(m.templates.size() == 2);
  CHECK(m.graphs.size() == 1);
  CHECK(m.templates[0].name == "my::scale");
  CHECK(m.templates[0].line == 2);
  OpResolver ops;
  for (const auto &[n, s] : m.customOps) ops.declare(s);
  TensorType t{DType::F16, {4, 5}};
  AttributeMap attrs{{"s", 0.5}, {"flip", false}};
  TemplateCall call{{&t}, &attrs, {t}};
  auto g = instantiateTemplate(m.templates[0], call, ops);
  CHECK(printGraph(*g).find("aten::mul.Scalar(%x) {other=0.5}") != std::string::npos);
  CHECK(printGraph(*g).find("{size=[4, 5]}") != std::string::npos);
  CHECK(g->outputs()[0]->type == t);
  // The guard flip=false does not hold: the first definition does not match.
  AttributeMap flipped{{"s", 0.5}, {"flip", true}};
  TemplateCall other{{&t}, &flipped, {t}};
  CHECK_THROWS_AS(instantiateTemplate(m.templates[0], other, ops), TemplateMismatch);
  CHECK(instantiateTemplate(m.templates[1], other, ops)->nodes()[0]->op == "aten::neg");
  // A rank the header does not have is a mismatch too.
  TensorType r3{DType::F16, {2, 4, 5}};
  TemplateCall rank3{{&r3}, &attrs, {r3}};
  CHECK_THROWS_AS(instantiateTemplate(m.templates[0], rank3, ops), TemplateMismatch);
  // A definition is read once; its pattern serves every call.
  GraphPattern once = parseGraphPattern(m.templates[0]);
  TensorType t2{DType::F32, {3, 7}};
  TemplateCall call2{{&t2}, &attrs, {t2}};
  CHECK(instantiateTemplate(once, call, ops)->outputs()[0]->type == t);
  CHECK(instantiateTemplate(once, call2, ops)->outputs()[0]->type == t2);
  CHECK(printGraph(*instantiateTemplate(once, call2, ops)).find("{size=[3, 7]}") != std::string::npos);
  // Printing keeps definitions as written.
  CHECK(printModule(m).find("graph @my::scale(%x: $T[N, D]) {s=$s, flip=false}") != std::string::npos);
}

TEST_CASE("a definition must bind every attribute, and parameters only exist in definitions") {
  Module m = parseModule(R"(op my::f(Tensor x, float s) -> Tensor
graph @my::f(%x: _) -> (_) {
  %y: _ = aten::neg(%x)
  return %y
}
)", "d.tvir");
  OpResolver ops;
  for (const auto &[n, s] : m.customOps) ops.declare(s);
  TensorType t{DType::F32, {3}};
  AttributeMap attrs{{"s", 1.0}};
  TemplateCall call{{&t}, &attrs, {t}};
  CHECK(errorOf([&] { instantiateTemplate(m.templates[0], call, ops); }).find("does not bind attribute 's'") !=
        std::string::npos);
  CHECK(errorOf([] { parseModule("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = aten::mul.Scalar(%x) {other=$c}\n  return %y\n}\n", "p.tvir"); })
            .find("p.tvir:2:") != std::string::npos);
  CHECK(errorOf([] { parseModule("graph @g(%x: _) -> (f32[2]) {\n  return %x\n}\n", "p.tvir"); })
            .find("only allowed in a fusion definition") != std::string::npos);
}

TEST_CASE("'...' binds trailing dims at any rank; '$s | v' gives a None argument its default") {
  Module m = parseModule(R"(op my::scaled(Tensor x, Tensor? m, float? s=None) -> Tensor
graph @my::scaled(%x: $T[..., E], %m: bool[...]) {s=$s | rsqrt($E)} -> (_) {
  %y: _ = aten::mul.Scalar(%x) {other=$s}
  %z: _ = aten::mul.Scalar(%y) {other=div(2.0, numel(%x))}
  return %z
}
graph @my::scaled(%x: $T[..., E], %m: bool[...]) {s=$s | rsqrt($E)} -> (_) {
  %y: _ = aten::mul.Scalar(%x) {other=$s}
  return %y
}
)", "d.tvir");
  OpResolver ops;
  for (const auto &[n, s] : m.customOps) ops.declare(s);
  TensorType x3{DType::F32, {2, 3, 8}}, x1{DType::F32, {9}}, mask{DType::Bool, {3, 8}};
  AttributeMap none{{"s", NoneValue{}}}, given{{"s", 0.5}};
  auto scaleOf = [&](const TensorType &x, const TensorType &mk, const AttributeMap &a) {
    TemplateCall call{{&x, &mk}, &a, {x}};
    auto g = instantiateTemplate(m.templates[0], call, ops);
    return std::make_pair(g->nodes()[0]->attr("other").asDouble(), g->nodes()[1]->attr("other").asDouble());
  };
  // The doubles ATen computes: 1.0 / std::sqrt(8), 2.0 / 48.
  CHECK(scaleOf(x3, mask, none) == std::make_pair(1.0 / std::sqrt(8.0), 2.0 / 48));
  CHECK(scaleOf(x3, mask, given) == std::make_pair(0.5, 2.0 / 48));
  CHECK(scaleOf(x1, mask, none) == std::make_pair(1.0 / 3.0, 2.0 / 9));
  // '...' still checks the dtype, and a symbolic dim cannot be computed with.
  TensorType fmask{DType::F32, {3, 8}}, sym{DType::F32, {2, Dim::symbol("E")}};
  TemplateCall wrongMask{{&x3, &fmask}, &none, {x3}}, symbolic{{&sym, &mask}, &none, {sym}};
  CHECK_THROWS_AS(instantiateTemplate(m.templates[0], wrongMask, ops), TemplateMismatch);
  CHECK_THROWS_AS(instantiateTemplate(m.templates[1], symbolic, ops), TemplateMismatch);
  // A given scale does not need the default: a symbolic E then matches.
  TemplateCall symbolicGiven{{&sym, &mask}, &given, {sym}};
  CHECK(instantiateTemplate(m.templates[1], symbolicGiven, ops)->nodes()[0]->attr("other").asDouble() == 0.5);
  // `...` belongs to fusion definitions (Note [Leading dims in definitions]); functions must be known.
  CHECK(errorOf([&] { parseModule("graph @g(%x: f32[..., 2]) -> (f32[2]) {\n  return %x\n}\n", "p.tvir"); })
            .find("only allowed in a fusion definition") != std::string::npos);
  Module bad = parseModule(R"(op my::f(Tensor x) -> Tensor
graph @my::f(%x: _) -> (_) {
  %y: _ = aten::mul.Scalar(%x) {other=cbrt(2)}
  return %y
}
)", "d.tvir");
  TensorType t{DType::F32, {3}};
  AttributeMap noAttrs;
  TemplateCall call{{&t}, &noAttrs, {t}};
  CHECK(errorOf([&] { instantiateTemplate(bad.templates[0], call, ops); }).find("unknown function 'cbrt'") !=
        std::string::npos);
  // The other arithmetic, one double operation each (issue 36 item 8: a keep probability 1 - p).
  Module more = parseModule(R"(op my::g(Tensor x, float p) -> Tensor
graph @my::g(%x: _) {p=$p} -> (_) {
  %a: _ = aten::mul.Scalar(%x) {other=sub(1.0, $p)}
  %b: _ = aten::mul.Scalar(%a) {other=add($p, neg(pow(2.0, $p)))}
  %c: _ = aten::mul.Scalar(%b) {other=exp(log($p))}
  return %c
}
)", "d.tvir");
  for (const auto &[n, s] : more.customOps) ops.declare(s);
  AttributeMap p{{"p", 0.1}};
  TemplateCall withP{{&t}, &p, {t}};
  auto g = instantiateTemplate(more.templates[0], withP, ops);
  CHECK(g->nodes()[0]->attr("other").asDouble() == 1.0 - 0.1);
  CHECK(g->nodes()[1]->attr("other").asDouble() == 0.1 + -std::pow(2.0, 0.1));
  CHECK(g->nodes()[2]->attr("other").asDouble() == std::exp(std::log(0.1)));
}

TEST_CASE("result types of a call whose own are unknown come from the definition's body") {
  // Note [Custom ops in TorchScript files]: a TorchScript file records no types.
  Module m = parseModule(kDefs, "d.tvir");
  FusionLibrary lib;
  lib.addModule(m, FusionOrigin::User);
  TensorType t{DType::F16, {4, 5}};
  AttributeMap attrs{{"s", 0.5}, {"flip", false}}, flipped{{"s", 0.5}, {"flip", true}};
  CHECK(lib.resultTypes("my::scale", {&t}, attrs) == std::vector<TensorType>{t});
  CHECK(lib.resultTypes("my::scale", {&t}, flipped) == std::vector<TensorType>{t});  // the second definition
  // The first definition's rank does not fit and the second is guarded by flip=true: no definition takes it.
  TensorType r3{DType::F16, {2, 4, 5}};
  CHECK(errorOf([&] { lib.resultTypes("my::scale", {&r3}, attrs); }).find("no definition of my::scale") !=
        std::string::npos);
  CHECK(errorOf([&] { lib.resultTypes("my::other", {&t}, attrs); }).find("no definition of my::other") !=
        std::string::npos);
}
