// Note [torch.export enums]: every value of torch.export's serialized enums
// (torch/_export/serde/schema.py) maps to the IR's value, and a value outside
// them is a clear error.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/pt2.h"
#include "src/import/pt2_enums.h"
#include "src/torch/replay.h"

using namespace torchtv;

namespace {

template <class F>
std::string errorOf(F f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

bool has(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// A one-node program: y = ones_like(x, <kwargs>), x: f32[2,3].
std::string onesLikeProgram(const std::string &kwargs) {
  return R"({"schema_version": {"major": 8, "minor": 17}, "graph_module": {
    "graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "y"}}],
              "nodes": [{"target": "torch.ops.aten.ones_like.default",
                         "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}})" +
         kwargs + R"(],
                         "outputs": [{"as_tensor": {"name": "y"}}], "metadata": {}}],
              "tensor_values": {
                "x": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}], "layout": 7},
                "y": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}], "layout": 7}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}}})";
}

std::unique_ptr<Module> readProgram(const std::string &json) {
  Pt2Archive a;
  a.path = "prog.pt2";
  a.modelJson = json;
  a.readConstant = [](const std::string &) -> std::string { throw InputError("no constants"); };
  return importExportedProgram(a, nullptr);
}

}  // namespace

TEST_CASE("pt2 ScalarType: every value of the schema") {
  const std::vector<std::pair<int64_t, DType>> mapped = {
      {1, DType::U8},  {2, DType::I8},  {3, DType::I16}, {4, DType::I32},   {5, DType::I64},
      {6, DType::F16}, {7, DType::F32}, {8, DType::F64}, {12, DType::Bool}, {13, DType::BF16},
      {10, DType::C64}, {11, DType::C128}};
  for (auto [code, dtype] : mapped) {
    CAPTURE(code);
    CHECK(pt2ScalarType(code) == dtype);
  }
  const std::vector<std::pair<int64_t, std::string>> refused = {
      {0, "UNKNOWN"},       {9, "COMPLEXHALF"},
      {28, "UINT16"},       {29, "FLOAT8E4M3FN"},   {30, "FLOAT8E5M2"},       {31, "FLOAT8E4M3FNUZ"},
      {32, "FLOAT8E5M2FNUZ"}};
  for (const auto &[code, name] : refused) {
    CAPTURE(code);
    CHECK(has(errorOf([&] { pt2ScalarType(code); }), "ScalarType " + std::to_string(code) + " (" + name + ")"));
  }
  for (int64_t code : {-1, 14, 15, 27, 33}) {
    CAPTURE(code);
    CHECK(has(errorOf([&] { pt2ScalarType(code); }), "is not a value of torch.export's ScalarType enum"));
  }
}

TEST_CASE("pt2 Layout: every value of the schema, to c10's numbering") {
  // schema.py -> c10::Layout (c10/core/Layout.h).
  const std::vector<std::pair<int64_t, int64_t>> mapped = {
      {7, 0},  // Strided
      {1, 1},  // SparseCoo -> Sparse
      {2, 2},  // SparseCsr
      {6, 3},  // _mkldnn -> Mkldnn
      {3, 4},  // SparseCsc
      {4, 5},  // SparseBsr
      {5, 6},  // SparseBsc
  };
  for (auto [code, c10] : mapped) {
    CAPTURE(code);
    CHECK(pt2Layout(code) == c10);
  }
  CHECK(has(errorOf([] { pt2Layout(0); }), "Layout 0 (Unknown) names no layout"));
  for (int64_t code : {-1, 8, 99}) {
    CAPTURE(code);
    CHECK(has(errorOf([&] { pt2Layout(code); }), "is not a value of torch.export's Layout enum"));
  }
}

TEST_CASE("pt2 MemoryFormat: every value of the schema, to c10's numbering") {
  // schema.py -> c10::MemoryFormat (c10/core/MemoryFormat.h, where 4 is NumOptions).
  const std::vector<std::pair<int64_t, int64_t>> mapped = {
      {1, 0},  // ContiguousFormat -> Contiguous
      {4, 1},  // PreserveFormat -> Preserve
      {2, 2},  // ChannelsLast
      {3, 3},  // ChannelsLast3d
  };
  for (auto [code, c10] : mapped) {
    CAPTURE(code);
    CHECK(pt2MemoryFormat(code) == c10);
  }
  CHECK(has(errorOf([] { pt2MemoryFormat(0); }), "MemoryFormat 0 (Unknown) names no memory format"));
  for (int64_t code : {-1, 5, 99}) {
    CAPTURE(code);
    CHECK(has(errorOf([&] { pt2MemoryFormat(code); }), "is not a value of torch.export's MemoryFormat enum"));
  }
}

TEST_CASE("pt2 Device: c10::Device's spelling") {
  CHECK(pt2Device("cpu", std::nullopt) == "cpu");
  CHECK(pt2Device("cpu", -1) == "cpu");
  CHECK(pt2Device("cuda", 0) == "cuda:0");
  CHECK(pt2Device("cuda", 3) == "cuda:3");
  CHECK(pt2Device("meta", std::nullopt) == "meta");
  CHECK(has(errorOf([] { pt2Device("tpu", std::nullopt); }), "device type 'tpu' is not one c10::Device knows"));
  CHECK(has(errorOf([] { pt2Device("cuda", -2); }), "device index -2 of 'cuda' is out of range"));
  CHECK(has(errorOf([] { pt2Device("cuda", 128); }), "out of range"));
}

TEST_CASE(".pt2: ones_like with torch.export's PreserveFormat and Strided reads as c10's, and replays") {
  auto m = readProgram(onesLikeProgram(R"(,
      {"name": "layout", "arg": {"as_layout": 7}},
      {"name": "device", "arg": {"as_device": {"type": "cpu", "index": null}}},
      {"name": "pin_memory", "arg": {"as_bool": false}},
      {"name": "memory_format", "arg": {"as_memory_format": 4}})"));
  const Graph &g = *m->graphs.at(0);
  REQUIRE(g.nodes().size() == 1);
  const Node &n = *g.nodes().front();
  CHECK(n.op == "aten::ones_like");
  CHECK(n.attr("memory_format") == Attribute(int64_t(1)));  // c10::MemoryFormat::Preserve
  CHECK(n.attr("layout") == Attribute(int64_t(0)));         // c10::Layout::Strided
  CHECK(n.attr("device") == Attribute(std::string("cpu")));
  // LibTorch takes the values as they are (torch.export's 4 overflowed its stack).
  auto out = replayGraph(g, {{parseTensorType("f32[2,3]"), {1, 2, 3, 4, 5, 6}}});
  REQUIRE(out.size() == 1);
  CHECK(out[0].values == std::vector<double>(6, 1.0));
}

TEST_CASE(".pt2: an enum value outside the schema is an error naming the file, the op and the argument") {
  std::string err = errorOf([] { readProgram(onesLikeProgram(R"(, {"name": "memory_format", "arg": {"as_memory_format": 9}})")); });
  CHECK(has(err, "prog.pt2"));
  CHECK(has(err, "aten::ones_like"));
  CHECK(has(err, "argument 'memory_format': MemoryFormat 9 is not a value of torch.export's MemoryFormat enum"));
  err = errorOf([] { readProgram(onesLikeProgram(R"(, {"name": "layout", "arg": {"as_layout": 0}})")); });
  CHECK(has(err, "argument 'layout': Layout 0 (Unknown) names no layout"));
  err = errorOf([] { readProgram(onesLikeProgram(R"(, {"name": "dtype", "arg": {"as_scalar_type": 9}})")); });
  CHECK(has(err, "argument 'dtype': ScalarType 9 (COMPLEXHALF) is a dtype torchtv does not support"));
  std::string sparse = onesLikeProgram("");
  sparse.replace(sparse.find("\"layout\": 7"), 11, "\"layout\": 1");
  err = errorOf([&] { readProgram(sparse); });
  CHECK(has(err, "prog.pt2"));
  CHECK(has(err, "tensor 'x': layout 1 is not Strided (7)"));
}
