// torch.export programs as users save them (issue 35, item 5): higher-order ops
// holding subgraphs (Note [Higher-order ops in .pt2 programs]), None inputs and
// outputs (Note [None outputs of .pt2 programs]), joint-graph output kinds, and
// torch's legacy rule for empty cat operands (Note [Legacy empty cat operands]).
// The programs are written in the shape torch 2.11 serializes them
// (tests/torch2/hf_export/cf_*.pt2 hold the real ones).
#include <doctest/doctest.h>

#include <cstring>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/pt2.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {
const char *kF32x4 = R"({"dtype": 7, "sizes": [{"as_int": 4}]})";

std::string tensor(const std::string &name) { return R"({"as_tensor": {"name": ")" + name + R"("}})"; }

std::string call(const std::string &target, const std::string &inputs, const std::string &outputs) {
  return R"({"target": ")" + target + R"(", "inputs": [)" + inputs + R"(], "outputs": [)" + outputs + "]}";
}

std::string arg(const std::string &name, const std::string &value) {
  return R"({"name": ")" + name + R"(", "arg": )" + value + "}";
}

// A graph over f32[4] tensors: `names` typed in tensor_values.
// `extraValues`: more tensor_values entries, each followed by ", ".
std::string graph(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs,
                  const std::string &nodes, const std::vector<std::string> &names, const std::string &extraValues = "") {
  auto list = [](const std::vector<std::string> &xs) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + (xs[i].empty() ? R"({"as_none": true})" : tensor(xs[i]));
    return s;
  };
  std::string values = extraValues;
  for (size_t i = 0; i < names.size(); ++i) values += (i ? ", \"" : "\"") + names[i] + "\": " + kF32x4;
  return R"({"inputs": [)" + list(inputs) + R"(], "outputs": [)" + list(outputs) + R"(], "nodes": [)" + nodes +
         R"(], "tensor_values": {)" + values + "}}";
}

// A program of user inputs x and w (f32[4]) whose output specs are `outputs`
// (user outputs; "" for None).
std::string program(const std::string &nodes, const std::vector<std::string> &outputs, const std::vector<std::string> &names,
                    const std::string &extraValues = "", const std::string &extraInputSpecs = "",
                    const std::string &extraGraphInputs = "") {
  std::string specs;
  for (size_t i = 0; i < outputs.size(); ++i)
    specs += std::string(i ? ", " : "") + R"({"user_output": {"arg": )" +
             (outputs[i].empty() ? std::string(R"({"as_none": true})") : tensor(outputs[i])) + "}}";
  std::string g = graph({"x", "w"}, outputs, nodes, names, extraValues);
  if (!extraGraphInputs.empty()) g.insert(g.find("], \"outputs\""), ", " + extraGraphInputs);
  return R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {"graph": )" + g +
         R"(, "signature": {"input_specs": [{"user_input": {"arg": )" + tensor("x") + R"(}}, {"user_input": {"arg": )" +
         tensor("w") + "}}" + extraInputSpecs + R"(], "output_specs": [)" + specs + "]}}}";
}

std::unique_ptr<Module> read(const std::string &json) {
  Pt2Archive a;
  a.path = "t.pt2";
  a.modelJson = json;
  a.readConstant = [](const std::string &) -> std::string { throw InputError("none"); };
  return importExportedProgram(a, nullptr);
}

std::string errorOf(const std::string &json) {
  try {
    read(json);
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> opsOf(const Graph &g) {
  std::vector<std::string> ops;
  for (const auto &n : g.nodes()) ops.push_back(n->op);
  return ops;
}

// The subgraph of a higher-order call: (a, b) -> a * b.
std::string mulGraph() {
  return R"({"as_graph": {"name": "submod_1", "graph": )" +
         graph({"a", "b"}, {"m"}, call("torch.ops.aten.mul.Tensor", arg("self", tensor("a")) + ", " + arg("other", tensor("b")), tensor("m")),
               {"a", "b", "m"}) +
         "}}";
}

std::string addGraph() {
  return R"({"as_graph": {"name": "submod_2", "graph": )" +
         graph({"a", "b"}, {"s"}, call("torch.ops.aten.add.Tensor", arg("self", tensor("a")) + ", " + arg("other", tensor("b")), tensor("s")),
               {"a", "b", "s"}) +
         "}}";
}

std::string positional(const std::vector<std::string> &args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + arg("", args[i]);
  return s;
}

// x * w written plainly: what an inlined subgraph must equal.
std::string plainMul() {
  return program(call("torch.ops.aten.mul.Tensor", arg("self", tensor("x")) + ", " + arg("other", tensor("w")), tensor("y")),
                 {"y"}, {"x", "w", "y"});
}

Verdict verdictOf(const std::string &a, const std::string &b, std::string *reason = nullptr) {
  auto ma = read(a), mb = read(b);
  CheckResult r = checkGraphs(*ma->graphs[0], *mb->graphs[0], CheckOptions{});
  if (reason) reason->clear();
  for (const auto &o : r.outputs)
    if (reason) *reason += o.reason;
  return r.verdict;
}
}  // namespace

TEST_CASE("pt2: wrap_with_set_grad_enabled, invoke_subgraph and disabled autocast are inlined") {
  std::string setGrad = program(call("torch.ops.higher_order.wrap_with_set_grad_enabled",
                                     positional({R"({"as_bool": false})", mulGraph(), tensor("x"), tensor("w")}), tensor("y")),
                                {"y"}, {"x", "w", "y"});
  auto m = read(setGrad);
  CHECK(opsOf(*m->graphs[0]) == std::vector<std::string>{"aten::mul.Tensor"});
  CHECK(verdictOf(setGrad, plainMul()) == Verdict::Equivalent);
  std::string subgraph = program(call("torch.ops.higher_order.invoke_subgraph",
                                      positional({mulGraph(), R"({"as_string": "subgraph_0"})", tensor("x"), tensor("w")}),
                                      tensor("y")),
                                 {"y"}, {"x", "w", "y"});
  CHECK(verdictOf(subgraph, plainMul()) == Verdict::Equivalent);
  auto autocast = [&](bool enabled) {
    return program(call("torch.ops.higher_order.wrap_with_autocast",
                        positional({R"({"as_string": "cpu"})", R"({"as_scalar_type": 13})",
                                    enabled ? R"({"as_bool": true})" : R"({"as_bool": false})", R"({"as_bool": false})",
                                    mulGraph(), tensor("x"), tensor("w")}),
                        tensor("y")),
                   {"y"}, {"x", "w", "y"});
  };
  CHECK(verdictOf(autocast(false), plainMul()) == Verdict::Equivalent);
  // Enabled, the kernels inside run in dtypes the subgraph does not record: opaque, named.
  std::string reason;
  CHECK(verdictOf(autocast(true), plainMul(), &reason) == Verdict::Unknown);
  CHECK(reason.find("higher_order::wrap_with_autocast") != std::string::npos);
  // A result whose type the program records otherwise than the subgraph computes is refused.
  std::string mistyped = setGrad;
  mistyped.replace(mistyped.rfind("\"y\": {\"dtype\": 7"), std::strlen("\"y\": {\"dtype\": 7"), "\"y\": {\"dtype\": 8");
  CHECK(errorOf(mistyped).find("in the subgraph but f64[4] in the program") != std::string::npos);
}

TEST_CASE("pt2: a subgraph that updates its operand in place is refused, not read as a copy") {
  std::string addInPlace = R"({"as_graph": {"name": "submod_1", "graph": )" +
                           graph({"a", "b"}, {"s"},
                                 call("torch.ops.aten.add_.Tensor", arg("self", tensor("a")) + ", " + arg("other", tensor("b")),
                                      tensor("s")),
                                 {"a", "b", "s"}) +
                           "}}";
  std::string p = program(call("torch.ops.higher_order.wrap_with_set_grad_enabled",
                               positional({R"({"as_bool": false})", addInPlace, tensor("x"), tensor("w")}), tensor("y")) +
                              ", " + call("torch.ops.aten.mul.Tensor", arg("self", tensor("x")) + ", " + arg("other", tensor("y")),
                                          tensor("z")),
                          {"z"}, {"x", "w", "y", "z"});
  CHECK(errorOf(p).find("in place") != std::string::npos);
}

TEST_CASE("pt2: cond picks a branch known before the program runs, else stays opaque") {
  auto cond = [&](const std::string &predNodes, const std::string &falseGraph, const std::string &predType) {
    return program(predNodes + ", " +
                       call("torch.ops.higher_order.cond",
                            positional({tensor("p"), mulGraph(), falseGraph, R"({"as_tensors": [{"name": "x"}, {"name": "w"}]})"}),
                            tensor("y")),
                   {"y"}, {"x", "w", "y"}, R"("p": )" + predType + ", ");
  };
  const std::string scalarBool = R"({"dtype": 12, "sizes": []})", vectorBool = R"({"dtype": 12, "sizes": [{"as_int": 4}]})";
  std::string ones = call("torch.ops.aten.ones.default",
                          arg("size", R"({"as_ints": []})") + ", " + arg("dtype", R"({"as_scalar_type": 12})"), tensor("p"));
  std::string zeros = ones;
  zeros.replace(zeros.find("ones"), 4, "zeros");
  CHECK(verdictOf(cond(ones, addGraph(), scalarBool), plainMul()) == Verdict::Equivalent);
  CHECK(verdictOf(cond(zeros, addGraph(), scalarBool), plainMul()) == Verdict::NotEquivalent);
  // A predicate the program computes from its inputs: the same call on both sides is the same
  // value; different branches are unknown, naming the op.
  std::string data = call("torch.ops.aten.gt.Scalar", arg("self", tensor("x")) + ", " + arg("other", R"({"as_float": 0.0})"),
                          tensor("p"));
  std::string a = cond(data, addGraph(), vectorBool), b = cond(data, mulGraph(), vectorBool);
  CHECK(verdictOf(a, a) == Verdict::Equivalent);
  std::string reason;
  CHECK(verdictOf(a, b, &reason) == Verdict::Unknown);
  CHECK(reason.find("higher_order::cond") != std::string::npos);
}

TEST_CASE("pt2: map_impl is its body on each slice, stacked") {
  // xs = stack(x, x), [2,4]: the body sees each row.
  std::string body = R"({"as_graph": {"name": "body_graph_0", "graph": )" +
                     graph({"a", "b"}, {"m"},
                           call("torch.ops.aten.mul.Tensor", arg("self", tensor("a")) + ", " + arg("other", tensor("b")), tensor("m")),
                           {"a", "b", "m"}) +
                     "}}";
  const std::string f32x2x4 = R"({"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 4}]})";
  auto mapped = [&](const std::string &bodyGraph) {
    return program(call("torch.ops.aten.stack.default", arg("tensors", R"({"as_tensors": [{"name": "x"}, {"name": "x"}]})"),
                        tensor("xs")) +
                       ", " +
                       call("torch.ops.higher_order.map_impl",
                            positional({bodyGraph, R"({"as_tensors": [{"name": "xs"}]})", R"({"as_tensors": [{"name": "w"}]})"}),
                            tensor("ys")),
                   {"ys"}, {"x", "w"}, R"("xs": )" + f32x2x4 + R"(, "ys": )" + f32x2x4 + ", ");
  };
  std::string plain = program(call("torch.ops.aten.mul.Tensor", arg("self", tensor("x")) + ", " + arg("other", tensor("w")), tensor("m")) +
                                  ", " + call("torch.ops.aten.stack.default", arg("tensors", R"({"as_tensors": [{"name": "m"}, {"name": "m"}]})"),
                                              tensor("ys")),
                              {"ys"}, {"x", "w", "m"}, R"("ys": )" + f32x2x4 + ", ");
  CHECK(verdictOf(mapped(body), plain) == Verdict::Equivalent);
  CHECK(verdictOf(mapped(addGraph()), plain) == Verdict::NotEquivalent);
}

TEST_CASE("pt2: None inputs, None outputs and joint-graph output kinds") {
  // model(x, w, attention_mask=None): a constant_input spec and an as_none graph input.
  std::string none = program(call("torch.ops.aten.mul.Tensor", arg("self", tensor("x")) + ", " + arg("other", tensor("w")), tensor("y")),
                             {"y", ""}, {"x", "w", "y"}, "", R"(, {"constant_input": {"name": "mask", "value": {"as_none": true}}})",
                             R"({"as_none": true})");
  auto m = read(none);
  REQUIRE(m->graphs[0]->inputs().size() == 2);
  REQUIRE(m->graphs[0]->outputs().size() == 2);
  CHECK(m->graphs[0]->outputs()[1]->type.str() == "bool[]");
  // Two Nones in the same place are the same; a None against a tensor is not.
  CHECK(verdictOf(none, none) == Verdict::Equivalent);
  std::string tensorThere = program(
      call("torch.ops.aten.mul.Tensor", arg("self", tensor("x")) + ", " + arg("other", tensor("w")), tensor("y")), {"y", "y"},
      {"x", "w", "y"}, "", R"(, {"constant_input": {"name": "mask", "value": {"as_none": true}}})", R"({"as_none": true})");
  CHECK(verdictOf(none, tensorThere) != Verdict::Equivalent);
  // The joint graph's kinds (torch.export.experimental._export_forward_backward) are outputs in order.
  std::string joint = plainMul();
  joint.replace(joint.find("user_output"), std::strlen("user_output"), "gradient_to_user_input");
  CHECK(verdictOf(joint, plainMul()) == Verdict::Equivalent);
}

TEST_CASE("cat skips 1-d empty operands and wraps its dim against the others (torch's legacy rule)") {
  // transformers' GPT-2 cache: torch.cat((torch.tensor([]), k), dim=-2) with k of rank 4.
  auto m = parseModule(R"(
graph @reference(%e: f32[0], %k: f32[2,3,4,5]) -> (f32[2,3,4,5]) {
  %c: f32[2,3,4,5] = aten::cat(%e, %k) {dim=-2}
  return %c
}
graph @production(%e: f32[0], %k: f32[2,3,4,5]) -> (f32[2,3,4,5]) {
  %c: f32[2,3,4,5] = aten::mul.Scalar(%k) {other=1.0}
  return %c
}
graph @bug(%e: f32[0], %k: f32[2,3,4,5]) -> (f32[2,3,4,5]) {
  %c: f32[2,3,4,5] = aten::flip(%k) {dims=[2]}
  return %c
}
)",
                       "cat.tvir");
  CHECK(checkGraphs(*m.find("reference"), *m.find("production"), CheckOptions{}).verdict == Verdict::Equivalent);
  CHECK(checkGraphs(*m.find("reference"), *m.find("bug"), CheckOptions{}).verdict == Verdict::NotEquivalent);
  // Only an empty 1-d operand is skipped: a 1-d one of size 1 takes part, as in torch.
  CHECK_THROWS_WITH_AS(parseModule(R"(
graph @g(%e: f32[1], %k: f32[2,3,4,5]) -> (f32[2,3,5,5]) {
  %c: f32[2,3,5,5] = aten::cat(%e, %k) {dim=-2}
  return %c
}
)",
                                   "bad.tvir"),
                       doctest::Contains("dim -2 out of range for rank 1"), InputError);
}
