// The TorchScript and .pt2 readers on the committed fixtures (tests/fixtures).
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/load.h"
#include "src/import/pt2.h"

using namespace torchtv;

namespace {
std::string fixture(const std::string &rel) { return std::string(TORCHTV_SOURCE_DIR) + "/tests/fixtures/" + rel; }

LoadOptions inputs(const std::string &text) {
  LoadOptions o;
  o.inputs = parseInputTypes(text);
  return o;
}

std::vector<std::string> opsOf(const Graph &g) {
  std::vector<std::string> ops;
  for (const auto &n : g.nodes()) ops.push_back(n->op);
  return ops;
}

std::string errorOf(const std::string &path, const LoadOptions &o = {}) {
  try {
    loadModule(path, o);
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

std::string writeTemp(const std::string &name, const std::string &bytes) {
  std::string path = (std::filesystem::temp_directory_path() / ("torchtv_test_" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
}  // namespace

TEST_CASE("--inputs: commas inside brackets belong to the shape") {
  auto t = parseInputTypes("f32[3,5], i64[B,2],bool[]");
  REQUIRE(t.size() == 3);
  CHECK(t[0].str() == "f32[3,5]");
  CHECK(t[1].str() == "i64[B,2]");
  CHECK(t[2].str() == "bool[]");
  CHECK_THROWS_AS(parseInputTypes("f32[3,5"), InputError);
  CHECK_THROWS_AS(parseInputTypes("f32[3],"), InputError);
  CHECK_THROWS_AS(parseInputTypes("q7[3]"), InputError);
}

TEST_CASE("TorchScript from torch 1.13 and 2.11, scripted and traced, reads to one graph") {
  std::string reference;
  for (const char *f : {"t113/mlp.script.pt", "t113/mlp.trace.pt", "t211/mlp.script.pt", "t211/mlp.trace.pt"}) {
    CAPTURE(f);
    auto m = loadModule(fixture(f), inputs("f32[3,8]"));
    const Graph &g = *m->graphs.at(0);
    REQUIRE(g.inputs().size() == 5);
    // Note [TorchScript parameters are inputs]: parameters first, in module order.
    CHECK(g.inputs()[0]->name == "fc1.weight");
    CHECK(g.inputs()[0]->type.str() == "f32[16,8]");
    CHECK(g.inputs()[3]->name == "fc2.bias");
    CHECK(g.inputs()[4]->type.str() == "f32[3,8]");
    CHECK(opsOf(g) == std::vector<std::string>{"aten::linear", "aten::relu", "aten::linear"});
    REQUIRE(g.outputs().size() == 1);
    CHECK(g.outputs()[0]->type.str() == "f32[3,4]");
    CHECK(g.nodes()[1]->loc.known());
    CHECK(g.nodes()[1]->loc.file.find("make_fixtures.py") != std::string::npos);
  }
}

TEST_CASE(".pt2 in both layouts reads to the TorchScript graph's ops and inputs") {
  for (const char *f : {"t211/mlp.pt2", "old_layout/mlp.pt2"}) {
    CAPTURE(f);
    auto m = loadModule(fixture(f));
    const Graph &g = *m->graphs.at(0);
    REQUIRE(g.inputs().size() == 5);
    CHECK(g.inputs()[0]->name == "fc1.weight");
    CHECK(g.inputs()[4]->name == "x");
    CHECK(opsOf(g) == std::vector<std::string>{"aten::linear", "aten::relu", "aten::linear"});
    CHECK(g.outputs()[0]->type.str() == "f32[3,4]");
  }
  // --inputs is checked against the recorded types.
  CHECK_NOTHROW(loadModule(fixture("t211/mlp.pt2"), inputs("f32[3,8]")));
  CHECK(errorOf(fixture("t211/mlp.pt2"), inputs("f32[4,8]")).find("does not match") != std::string::npos);
}

TEST_CASE(".pt2: symbolic sizes become named symbols") {
  auto m = loadModule(fixture("t211/mlp.dynamic.pt2"));
  const Graph &g = *m->graphs.at(0);
  CHECK(g.inputs()[4]->type.str() == "f32[s77,8]");
  CHECK(g.outputs()[0]->type.str() == "f32[s77,4]");
}

TEST_CASE(".pt2: lifted tensor constants become prim::constant with their data") {
  auto m = loadModule(fixture("t211/softmax.pt2"));
  const Graph &g = *m->graphs.at(0);
  CHECK(g.inputs().size() == 1);
  REQUIRE(opsOf(g) == std::vector<std::string>{"prim::constant", "aten::mul.Tensor", "aten::softmax.int"});
  CHECK(g.nodes()[0]->attr("data").asFloats() == std::vector<double>{0.5, 1.0, 2.0, 4.0});
  // TorchScript folds the same attribute into a constant with the same data.
  auto ts = loadModule(fixture("t113/softmax.script.pt"), inputs("f32[3,4]"));
  CHECK(printGraph(*ts->graphs.at(0)).find("data=[0.5, 1.0, 2.0, 4.0]") != std::string::npos);
}

TEST_CASE(".pt2: a number in a tensor slot reads as the .Scalar overload (Note [Wrapped numbers])") {
  auto m = loadModule(fixture("t211/rmsnorm.pt2"));
  const Graph &g = *m->graphs.at(0);
  auto ops = opsOf(g);
  CHECK(std::find(ops.begin(), ops.end(), "aten::add.Scalar") != ops.end());
  CHECK(std::find(ops.begin(), ops.end(), "aten::add.Tensor") == ops.end());
  CHECK(g.outputs().size() == 2);
  // The same model from TorchScript: a tuple return becomes two outputs.
  auto ts = loadModule(fixture("t113/rmsnorm.script.pt"), inputs("f32[2,16]"));
  CHECK(ts->graphs.at(0)->outputs().size() == 2);
}

TEST_CASE("bad files are InputErrors naming the file and the cause") {
  std::string good;
  {
    std::ifstream in(fixture("t211/mlp.pt2"), std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string truncated = writeTemp("truncated.pt2", good.substr(0, good.size() - 100));
  CHECK(errorOf(truncated).find("truncated.pt2: not a readable .pt2 archive") != std::string::npos);
  CHECK(errorOf(writeTemp("text.pt2", "not a zip")).find("not a readable .pt2 archive") != std::string::npos);
  std::string noModel = errorOf(fixture("t113/mlp.script.pt").substr(0) + "x");
  CHECK(noModel.find("no such file") != std::string::npos);
  CHECK(errorOf(writeTemp("random.pt", std::string(300, '\x7f')), inputs("f32[3,8]"))
            .find("random.pt: not a readable TorchScript file") != std::string::npos);
  CHECK(errorOf(writeTemp("zip.pt", good), inputs("f32[3,8]")).find("not a readable TorchScript file") !=
        std::string::npos);
  CHECK(errorOf(fixture("old_layout/unknown_version.pt2")).find("schema version 99.0 is not supported") !=
        std::string::npos);
  CHECK(errorOf(fixture("t113/mlp.script.pt")).find("give the types of its inputs with --inputs") !=
        std::string::npos);
  CHECK(errorOf(fixture("t113/mlp.script.pt"), inputs("f32[3,8],f32[8]"))
            .find("forward takes 1 input(s) (x) but --inputs gives 2") != std::string::npos);
  CHECK(errorOf(fixture("t113/mlp.script.pt"), inputs("i64[3,8]")).find("aten::linear at") != std::string::npos);
  CHECK(errorOf(fixture("t113/if_else.script.pt"), inputs("f32[3]")).find("prim::If at") != std::string::npos);
  CHECK(errorOf(fixture("t113/if_else.script.pt"), inputs("f32[3]")).find("control flow") != std::string::npos);
}

TEST_CASE("ExportedProgram JSON: malformed and unsupported content") {
  Pt2Archive a;
  a.path = "t.pt2";
  a.readConstant = [](const std::string &) -> std::string { throw InputError("none"); };
  auto err = [&](const std::string &text) {
    a.modelJson = text;
    try {
      importExportedProgram(a, nullptr);
    } catch (const InputError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(err("{not json").find("t.pt2: the exported program is not valid JSON") != std::string::npos);
  CHECK(err(R"({"graph_module": {}})").find("no schema_version") != std::string::npos);
  CHECK(err(R"({"schema_version": {"major": 2, "minor": 0}})").find("2.0 is not supported") != std::string::npos);
  CHECK(err(R"({"schema_version": {"major": 8, "minor": 0}})").find("no field 'graph_module'") != std::string::npos);
  const char *mutation = R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "x"}}], "nodes": [],
              "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}]}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"buffer_mutation": {"arg": {"as_tensor": {"name": "x"}}, "buffer_name": "b"}}]}}})";
  // Note [pt2 input mutations]: an update of an input the program does not have is refused,
  // and so are output kinds torchtv does not read.
  CHECK(err(mutation).find("updates 'b', which is not an input of the program") != std::string::npos);
  std::string gradient = mutation;
  gradient.replace(gradient.find("buffer_mutation"), std::strlen("buffer_mutation"), "gradient_to_parameter");
  // The joint graph's kinds are outputs like the user's (issue 35): this one names a tensor it has.
  CHECK(err(gradient).empty());
  std::string unknownKind = mutation;
  unknownKind.replace(unknownKind.find("buffer_mutation"), std::strlen("buffer_mutation"), "token");
  CHECK(err(unknownKind).find("is a token output, which torchtv does not support") != std::string::npos);
  // A user input modified in place: its update follows the user outputs, named x__updated.
  a.modelJson = R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "n"}}, {"as_tensor": {"name": "y"}}],
              "nodes": [{"target": "torch.ops.aten.neg.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                         "outputs": [{"as_tensor": {"name": "n"}}]},
                        {"target": "torch.ops.aten.exp.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                         "outputs": [{"as_tensor": {"name": "y"}}]}],
              "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}]}, "n": {"dtype": 7, "sizes": [{"as_int": 2}]},
                                "y": {"dtype": 7, "sizes": [{"as_int": 2}]}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"user_input_mutation": {"arg": {"name": "n"}, "user_input_name": "x"}},
                                   {"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}}})";
  auto m = importExportedProgram(a, nullptr);
  const Graph &g = *m->graphs.at(0);
  REQUIRE(g.outputs().size() == 2);
  CHECK(g.outputNames() == std::vector<std::string>{"y", "x__updated"});
  CHECK(g.outputs()[1]->name == "x__updated");
  std::string unknownOp = R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "y"}}],
              "nodes": [{"target": "torch.ops.aten.frobnicate.default", "inputs": [], "outputs": [{"as_tensor": {"name": "y"}}]}],
              "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}]}, "y": {"dtype": 7, "sizes": [{"as_int": 2}]}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}}})";
  // An op the registry does not know reads, with a schema spelled from its calls
  // (Note [Schemas from the artifact]); calls that disagree on an argument's type are refused.
  CHECK(err(unknownOp).empty());
  std::string disagree = unknownOp;
  std::string call = R"({"target": "torch.ops.aten.frobnicate.default", "inputs": [], "outputs": [{"as_tensor": {"name": "y"}}]})";
  disagree.replace(disagree.find(call), call.size(),
                   R"({"target": "torch.ops.aten.frobnicate.default", "inputs": [{"name": "k", "arg": {"as_int": 1}}], "outputs": [{"as_tensor": {"name": "z"}}]},
                      {"target": "torch.ops.aten.frobnicate.default", "inputs": [{"name": "k", "arg": {"as_float": 1.5}}], "outputs": [{"as_tensor": {"name": "y"}}]})");
  CHECK(err(disagree).find("aten::frobnicate") != std::string::npos);
  CHECK(err(disagree).find("argument 'k' is int in one call and float in another") != std::string::npos);
}

TEST_CASE(".pt2: a result the op did not compute (as_none) reads as an unnamed output (Note [Absent optional outputs])") {
  // convolution_backward with output_mask [true, true, false], as torch.export
  // writes it in a training graph (tests/corpus/resnet18_training.pt2).
  Pt2Archive a;
  a.path = "t.pt2";
  a.readConstant = [](const std::string &) -> std::string { throw InputError("none"); };
  auto program = [](const std::string &lastOutput) {
    return R"({"schema_version": {"major": 8, "minor": 0}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "g"}}, {"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "w"}}],
              "outputs": [{"as_tensor": {"name": "gi"}}, {"as_tensor": {"name": "gw"}}],
              "nodes": [{"target": "torch.ops.aten.convolution_backward.default", "inputs": [
                {"name": "grad_output", "arg": {"as_tensor": {"name": "g"}}}, {"name": "input", "arg": {"as_tensor": {"name": "x"}}},
                {"name": "weight", "arg": {"as_tensor": {"name": "w"}}}, {"name": "bias_sizes", "arg": {"as_ints": [0]}},
                {"name": "stride", "arg": {"as_ints": [1]}}, {"name": "padding", "arg": {"as_ints": [0]}},
                {"name": "dilation", "arg": {"as_ints": [1]}}, {"name": "transposed", "arg": {"as_bool": false}},
                {"name": "output_padding", "arg": {"as_ints": [0]}}, {"name": "groups", "arg": {"as_int": 1}},
                {"name": "output_mask", "arg": {"as_bools": [true, true, false]}}],
                "outputs": [{"as_tensor": {"name": "gi"}}, {"as_tensor": {"name": "gw"}}, )" + lastOutput + R"(]}],
              "tensor_values": {"g": {"dtype": 7, "sizes": [{"as_int": 1}, {"as_int": 2}, {"as_int": 3}]},
                                "x": {"dtype": 7, "sizes": [{"as_int": 1}, {"as_int": 1}, {"as_int": 5}]},
                                "w": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 1}, {"as_int": 3}]},
                                "gi": {"dtype": 7, "sizes": [{"as_int": 1}, {"as_int": 1}, {"as_int": 5}]},
                                "gw": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 1}, {"as_int": 3}]}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "g"}}}},
                                  {"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
                                  {"user_input": {"arg": {"as_tensor": {"name": "w"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "gi"}}}},
                                   {"user_output": {"arg": {"as_tensor": {"name": "gw"}}}}]}}})";
  };
  for (const char *absent : {R"({"as_none": true})", R"({"as_optional_tensor": {"as_none": true}})"}) {
    a.modelJson = program(absent);
    auto m = importExportedProgram(a, nullptr);
    const Graph &g = *m->graphs.at(0);
    REQUIRE(g.nodes().size() == 1);
    const Node &n = *g.nodes().front();
    REQUIRE(n.outputs.size() == 3);
    CHECK(n.outputs[0]->type.str() == "f32[1,1,5]");
    CHECK(n.outputs[1]->type.str() == "f32[2,1,3]");
    CHECK(g.outputs().size() == 2);
    CHECK(g.outputs()[1] == n.outputs[1]);
  }
  // A result that is neither a tensor nor absent is still refused.
  a.modelJson = program(R"({"as_int": 3})");
  CHECK_THROWS_AS(importExportedProgram(a, nullptr), InputError);
}
