// The op registry generated from LibTorch's schemas (Note [Declared ops]), its
// property columns (Note [Op properties]), and the readers taking any known op
// with the result types the artifact gives.
#include <doctest/doctest.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "src/import/capture_json.h"
#include "src/import/pt2.h"
#include "ir/text_format.h"
#include "src/eval/concrete.h"

using namespace torchtv;

namespace {

const Node *nodeOf(const Graph &g, const std::string &op) {
  for (const auto &n : g.nodes())
    if (n->op == op) return n.get();
  return nullptr;
}

// A one-graph ExportedProgram: inputs x (f32[4,3]) and c (bool[4,3]), the given
// nodes, tensor_values for every name in `values`, output `out`.
std::string program(const std::string &nodes, const std::string &values, const std::string &out) {
  return R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "c"}}],
              "outputs": [{"as_tensor": {"name": ")" + out + R"("}}], "nodes": [)" + nodes + R"(],
              "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 3}]},
                                "c": {"dtype": 12, "sizes": [{"as_int": 4}, {"as_int": 3}]})" + values + R"(}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
                                  {"user_input": {"arg": {"as_tensor": {"name": "c"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": ")" + out + R"("}}}}]}}})";
}

std::unique_ptr<Module> readProgram(const std::string &text) {
  Pt2Archive a;
  a.path = "t.pt2";
  a.modelJson = text;
  a.readConstant = [](const std::string &) -> std::string { throw InputError("none"); };
  return importExportedProgram(a, nullptr);
}

std::unique_ptr<Graph> readCapture(const std::string &nodes, const std::string &out) {
  std::string text = R"({"format": "torchtv-graph", "version": 1, "name": "g",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4, 3]}, {"name": "c", "dtype": "bool", "shape": [4, 3]}],
    "nodes": [)" + nodes + R"(], "outputs": [{"name": "out", "value": ")" + out + R"("}]})";
  OpResolver ops;
  return readCaptureGraph(nlohmann::json::parse(text), "t.json", ops);
}

}  // namespace

TEST_CASE("registry: every functional aten/prims overload of LibTorch 1.13 is known") {
  size_t generated = 0, prims = 0;
  for (const OpInfo &op : allOps()) {
    generated += op.generated;
    prims += op.schema->name.rfind("prims::", 0) == 0;
    // The one exception: the .pt2 reader rewrites it (Note [Batch norm's running statistics]).
    CHECK((!op.schema->mutatesInput() || op.schema->name == "aten::_native_batch_norm_legit"));
    if (op.generated) CHECK(!op.hasShapeRule());
  }
  CHECK(generated > 1300);  // the rest of the 1634 have hand-written entries (shape rules)
  CHECK(prims > 100);
  const OpInfo *cumsum = lookupOp("aten::cumsum");
  REQUIRE(cumsum);
  CHECK(cumsum->generated);
  CHECK(lookupOp("prims::where"));
  CHECK(lookupOp("aten::add_.Tensor") == nullptr);  // in-place: read as the functional form
  // The hand-written entry wins: torch >= 2.5's schema, with its shape rule.
  const OpInfo *sdpa = lookupOp("aten::scaled_dot_product_attention");
  REQUIRE(sdpa);
  CHECK(!sdpa->generated);
  CHECK(sdpa->schema->findArg("enable_gqa"));
  CHECK(lookupOp("aten::split.Tensor")->schema->returnsList);
}

TEST_CASE("registry: property columns") {
  CHECK(opProps("aten::add.Tensor").commutes == Commutes::UnitAlpha);
  CHECK(opProps("aten::mul.Tensor").commutes == Commutes::Always);
  CHECK(opProps("aten::maximum").commutes == Commutes::No);  // -0.0 vs +0.0
  CHECK(opProps("aten::view").elements == ElementMap::Reshape);
  CHECK(opProps("aten::clone").elements == ElementMap::Identity);
  CHECK(opProps("aten::flip").elements == ElementMap::Reorder);
  CHECK(opProps("aten::exp").elements == ElementMap::None);
  CHECK(opProps("aten::bmm").matrixProduct);
  CHECK(!opProps("aten::mul.Tensor").matrixProduct);
  // Scalar twins come from the schemas; the ones with shape rules on both sides
  // are the pairs normalization unifies.
  CHECK(opProps("aten::add.Tensor").scalarTwin == "aten::add.Scalar");
  CHECK(opProps("aten::masked_fill.Tensor").scalarTwin == "aten::masked_fill.Scalar");
  CHECK(opProps("aten::masked_fill.Tensor").scalarArg == "value");
  CHECK(opProps("aten::pow.Tensor_Tensor").scalarTwin.empty());
  CHECK(opProps("prims::div").scalarTwin.empty());
  // Randomness: PyTorch's nondeterministic_seeded tag, by name for unknown ops.
  CHECK(opProps("aten::bernoulli.p").random);
  CHECK(opProps("aten::native_dropout").random);
  CHECK(!opProps("aten::native_dropout_backward").random);
  CHECK(!opProps("aten::cumsum").random);
  CHECK(opProps("my::rand_noise").random);
  CHECK(!opProps("my::fused").random);
  CHECK(isIdentityCall("aten::dropout", {{"p", 0.0}, {"train", true}}));
  CHECK(isIdentityCall("aten::native_dropout", {{"p", 0.5}, {"train", false}}));
  CHECK(!isIdentityCall("aten::dropout", {{"p", 0.5}, {"train", true}}));
  CHECK(!isRandomCall("aten::dropout", {{"p", 0.0}, {"train", true}}));
  CHECK(isRandomCall("aten::dropout", {{"p", 0.5}, {"train", true}}));
  CHECK(isRandomCall("aten::_scaled_dot_product_flash_attention", {{"dropout_p", 0.1}}));
  CHECK(!isRandomCall("aten::_scaled_dot_product_flash_attention", {{"dropout_p", 0.0}}));
}

TEST_CASE("capture JSON: an op without a shape rule reads with the artifact's types") {
  auto g = readCapture(R"({"op": "aten::cumsum", "args": [{"name": "self", "value": "x"}, {"name": "dim", "int": 1}],
                            "outputs": [{"name": "y", "dtype": "f64", "shape": [4, 3]}]})",
                       "y");
  const Node *n = nodeOf(*g, "aten::cumsum");
  REQUIRE(n);
  CHECK(n->outputs[0]->type.str() == "f64[4,3]");  // as declared: no rule second-guesses it
  CHECK(n->attr("dim") == Attribute(int64_t(1)));
}

TEST_CASE("capture JSON: a number in a prims tensor slot is a 0-dim constant") {
  auto g = readCapture(R"({"op": "prims::where", "args": [{"name": "pred", "value": "c"}, {"name": "a", "float": 0.5},
                              {"name": "b", "value": "x"}], "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 3]}]})",
                       "y");
  const Node *n = nodeOf(*g, "prims::where");
  REQUIRE(n);
  REQUIRE(n->inputs.size() == 3);
  REQUIRE(n->inputs[1]->producer);
  CHECK(n->inputs[1]->producer->op == "prim::constant");
  CHECK(n->inputs[1]->type.str() == "f64[]");  // the wrapped number's dtype (Note [Numbers in tensor slots])
  CHECK(n->inputs[1]->producer->attr("data") == Attribute(std::vector<double>{0.5}));
  // An int among integral operands: i64, the wrapped int's dtype.
  auto h = readCapture(R"({"op": "prims::eq", "args": [{"name": "self", "value": "c"}, {"name": "other", "int": 1}],
                              "outputs": [{"name": "y", "dtype": "bool", "shape": [4, 3]}]})",
                       "y");
  CHECK(nodeOf(*h, "prims::eq")->inputs[1]->type.str() == "i64[]");
  // The scalar twin where there is one, as before.
  auto k = readCapture(R"({"op": "aten::add.Tensor", "args": [{"name": "self", "value": "x"}, {"name": "other", "float": 2.0}],
                              "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 3]}]})",
                       "y");
  CHECK(nodeOf(*k, "aten::add.Scalar"));
}

TEST_CASE("capture JSON: random ops read (they never match), list results are outputs") {
  auto g = readCapture(R"({"op": "aten::native_dropout", "args": [{"name": "input", "value": "x"}, {"name": "p", "float": 0.1},
                             {"name": "train", "bool": false}], "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 3]},
                             {"name": "m", "dtype": "bool", "shape": [4, 3]}]},
                           {"op": "aten::split.Tensor", "args": [{"name": "self", "value": "y"}, {"name": "split_size", "int": 3}],
                            "outputs": [{"name": "a", "dtype": "f32", "shape": [3, 3]}, {"name": "b", "dtype": "f32", "shape": [1, 3]}]})",
                       "b");
  REQUIRE(nodeOf(*g, "aten::split.Tensor"));
  CHECK(nodeOf(*g, "aten::split.Tensor")->outputs.size() == 2);
  // A declared piece count the rule disagrees with is refused.
  CHECK_THROWS_AS(readCapture(R"({"op": "aten::split.Tensor", "args": [{"name": "self", "value": "x"}, {"name": "split_size", "int": 2}],
                                  "outputs": [{"name": "a", "dtype": "f32", "shape": [2, 3]}]})",
                              "a"),
                  InputError);
}

TEST_CASE(".pt2: any op reads with the archive's types; unknown and custom ops get a schema from their calls") {
  std::string nodes = R"(
    {"target": "torch.ops.aten._assert_tensor_metadata.default", "inputs": [{"name": "a", "arg": {"as_tensor": {"name": "x"}}},
       {"name": "dtype", "arg": {"as_scalar_type": 7}}], "outputs": []},
    {"target": "torch.ops.aten.cumsum.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
       {"name": "dim", "arg": {"as_int": 0}}], "outputs": [{"as_tensor": {"name": "s"}}]},
    {"target": "torch.ops.prims.div.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "s"}}},
       {"name": "other", "arg": {"as_float": 2.0}}], "outputs": [{"as_tensor": {"name": "d"}}]},
    {"target": "torch.ops.tvx.rmsnorm.default", "inputs": [{"name": "x", "arg": {"as_tensor": {"name": "d"}}},
       {"name": "weight", "arg": {"as_none": true}}, {"name": "eps", "arg": {"as_float": 1e-06}}],
     "outputs": [{"as_tensor": {"name": "r"}}]},
    {"target": "torch.ops.aten.split.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "r"}}},
       {"name": "split_size", "arg": {"as_int": 2}}], "outputs": [{"as_tensors": [{"name": "p0"}, {"name": "p1"}]}]})";
  std::string values = R"(, "s": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 3}]},
    "d": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 3}]}, "r": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 3}]},
    "p0": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}]}, "p1": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}]})";
  auto m = readProgram(program(nodes, values, "p1"));
  const Graph &g = *m->graphs.at(0);
  CHECK(!nodeOf(g, "aten::_assert_tensor_metadata"));  // a check, dropped
  REQUIRE(nodeOf(g, "aten::cumsum"));
  const Node *div = nodeOf(g, "prims::div");
  REQUIRE(div);
  CHECK(div->inputs[1]->producer->op == "prim::constant");
  const Node *custom = nodeOf(g, "tvx::rmsnorm");
  REQUIRE(custom);
  CHECK(custom->schema->text == "tvx::rmsnorm(Tensor x, Tensor? weight=None, float eps) -> (Tensor)");
  CHECK(custom->inputs.size() == 2);
  CHECK(custom->inputs[1] == nullptr);  // None in a slot no call fills: an absent tensor
  const Node *split = nodeOf(g, "aten::split.Tensor");
  REQUIRE(split);
  CHECK(split->outputs.size() == 2);
  CHECK(g.outputs()[0] == split->outputs[1]);
}

TEST_CASE("shape rules: var_mean (built by normalization without declared types), pieces of split/chunk") {
  Graph g("g");
  Value *x = g.addInput("x", TensorType{DType::F32, {4, 8}});
  OpResolver ops;
  NodeSpec vm;
  vm.op = "aten::var_mean.correction";
  vm.inputs = {x};
  vm.attrs = {{"dim", std::vector<int64_t>{1}}, {"keepdim", true}};
  Node *n = buildNode(g, ops, vm);
  REQUIRE(n->outputs.size() == 2);
  CHECK(n->outputs[0]->type.str() == "f32[4,1]");
  CHECK(n->outputs[1]->type.str() == "f32[4,1]");
  NodeSpec chunk{"aten::chunk", {x}, {{"chunks", int64_t(3)}, {"dim", int64_t(1)}}, {}, {}, {}};
  Node *c = buildNode(g, ops, chunk);
  REQUIRE(c->outputs.size() == 3);  // ceil(8 / 3) = 3: pieces 3, 3, 2
  CHECK(c->outputs[2]->type.str() == "f32[4,2]");
  NodeSpec four{"aten::chunk", {x}, {{"chunks", int64_t(3)}}, {}, {}, {}};
  CHECK(buildNode(g, ops, four)->outputs.size() == 2);  // ceil(4 / 3) = 2: pieces 2, 2
  NodeSpec bad{"aten::split_with_sizes", {x}, {{"split_sizes", std::vector<int64_t>{1, 2}}}, {}, {}, {}};
  CHECK_THROWS_AS(buildNode(g, ops, bad), InputError);
}

TEST_CASE("torch 2.x size ops read as 0-dim results and evaluate to the sizes; item() to the element") {
  // LibTorch 1.13 has none of them, so the semantics audit cannot run them: checked here.
  Module m = parseModule(R"(graph @g(%x: f32[4,3], %s: f64[1,1]) -> (i64[], i64[], f64[], i64[]) {
  %a: i64[] = aten::sym_size.int(%x) {dim=-1}
  %n: i64[] = aten::sym_numel(%x)
  %v: f64[] = aten::_local_scalar_dense(%s)
  %t: i64[] = aten::sym_stride.int(%x) {dim=0}
  return %a, %n, %v, %t
}
)",
                         "test");
  const Graph &g = *m.find("g");
  std::vector<eval::EvalTensor> in = {{g.inputs()[0]->type, std::vector<long double>(12, 1.0L)},
                                      {g.inputs()[1]->type, {2.5L}}};
  // sym_stride has no semantics (strides are not in the IR): the graph does not evaluate...
  CHECK_THROWS_AS(eval::evaluateGraph(g, in, eval::Precision::Native), eval::EvalError);
  // ...but every value that does not read it does.
  auto values = eval::evaluateWhatCan(g, in, eval::Precision::Native);
  CHECK(values.at(g.outputs()[0]).values == std::vector<long double>{3});
  CHECK(values.at(g.outputs()[1]).values == std::vector<long double>{12});
  CHECK(values.at(g.outputs()[2]).values == std::vector<long double>{2.5L});
  CHECK(!values.count(g.outputs()[3]));
}

TEST_CASE("the prims returning a Python number read as 0-dim results: item, maximum_value") {
  // Registered from Python (torch/_prims), so neither LibTorch nor the semantics audit has them.
  Module m = parseModule(R"(graph @g(%s: f32[1,1]) -> (f32[], f32[], f64[], i64[], f16[]) {
  %v: f32[] = prims::item(%s)
  %m: f32[] = prims::maximum_value() {dtype=f32}
  %h: f64[] = prims::maximum_value() {dtype=f16}
  %i: i64[] = prims::maximum_value() {dtype=i32}
  %w: f16[] = prims::maximum_value() {dtype=f64}
  return %v, %m, %h, %i, %w
}
)",
                         "test");
  const Graph &g = *m.find("g");
  auto values = eval::evaluateWhatCan(g, {{g.inputs()[0]->type, {-1.5L}}}, eval::Precision::Native);
  CHECK(values.at(g.outputs()[0]).values == std::vector<long double>{-1.5L});
  CHECK(values.at(g.outputs()[1]).values == std::vector<long double>{std::numeric_limits<float>::max()});
  CHECK(values.at(g.outputs()[2]).values == std::vector<long double>{65504});
  CHECK(values.at(g.outputs()[3]).values == std::vector<long double>{2147483647});
  // f64's maximum is not an f16 (it would round to inf): no semantics, no value.
  CHECK(!values.count(g.outputs()[4]));
}

TEST_CASE(".pt2: _native_batch_norm_legit reads as its _functional form; later reads of the statistics see the update") {
  // Note [Batch norm's running statistics] (src/import/pt2.cpp).
  auto mean = [](const std::string &name) {
    return R"({"target": "torch.ops.aten.mean.dim", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
       {"name": "dim", "arg": {"as_ints": [0]}}], "outputs": [{"as_tensor": {"name": ")" + name + R"("}}]})";
  };
  std::string rm = mean("rm"), rv = mean("rv");
  std::string nodes = rm + "," + rv + R"(,
    {"target": "torch.ops.aten._native_batch_norm_legit.default", "inputs": [{"name": "input", "arg": {"as_tensor": {"name": "x"}}},
       {"name": "weight", "arg": {"as_none": true}}, {"name": "bias", "arg": {"as_none": true}},
       {"name": "running_mean", "arg": {"as_tensor": {"name": "rm"}}}, {"name": "running_var", "arg": {"as_tensor": {"name": "rv"}}},
       {"name": "training", "arg": {"as_bool": true}}, {"name": "momentum", "arg": {"as_float": 0.1}},
       {"name": "eps", "arg": {"as_float": 1e-05}}],
     "outputs": [{"as_tensor": {"name": "y"}}, {"as_tensor": {"name": "sm"}}, {"as_tensor": {"name": "sr"}}]},
    {"target": "torch.ops.aten.add.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "rm"}}},
       {"name": "other", "arg": {"as_tensor": {"name": "rv"}}}], "outputs": [{"as_tensor": {"name": "s"}}]})";
  std::string values = R"(, "rm": {"dtype": 7, "sizes": [{"as_int": 3}]}, "rv": {"dtype": 7, "sizes": [{"as_int": 3}]},
    "y": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 3}]}, "sm": {"dtype": 7, "sizes": [{"as_int": 3}]},
    "sr": {"dtype": 7, "sizes": [{"as_int": 3}]}, "s": {"dtype": 7, "sizes": [{"as_int": 3}]})";
  auto m = readProgram(program(nodes, values, "s"));
  const Graph &g = *m->graphs.at(0);
  CHECK(!nodeOf(g, "aten::_native_batch_norm_legit"));
  const Node *bn = nodeOf(g, "aten::_native_batch_norm_legit_functional");
  REQUIRE(bn);
  REQUIRE(bn->outputs.size() == 5);
  CHECK(bn->outputs[3]->type.str() == "f32[3]");
  const Node *add = nodeOf(g, "aten::add.Tensor");
  REQUIRE(add);
  CHECK(add->inputs[0] == bn->outputs[3]);  // rm after the call: its updated value
  CHECK(add->inputs[1] == bn->outputs[4]);
}

TEST_CASE("nonzero: an input whose count of nonzero elements is not the declared one is outside the graph's types") {
  Module m = parseModule(R"(graph @g(%x: f32[4]) -> (i64[2,1]) {
  %y: i64[2,1] = aten::nonzero(%x)
  return %y
}
)",
                         "test");
  const Graph &g = *m.find("g");
  auto run = [&](std::vector<long double> x) { return eval::evaluateGraph(g, {{g.inputs()[0]->type, x}}, eval::Precision::Native); };
  CHECK(run({0, 5, 0, -1})[0].values == std::vector<long double>{1, 3});
  CHECK_THROWS_AS(run({1, 5, 0, -1}), eval::EvalError);  // three nonzero elements: ATen's result is [3, 1]
}
