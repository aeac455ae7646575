// Note [Input limits]: each cap crossed by a small generated input (the caps
// are lowered with ScopedLimits where the default would need a huge file).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "ir/diagnostic.h"
#include "ir/limits.h"
#include "ir/text_format.h"
#include "src/import/capture_json.h"
#include "src/import/load.h"
#include "src/import/pt2.h"

using namespace torchtv;

namespace {

std::string tempFile(const std::string &name, const std::string &bytes) {
  std::string path = (std::filesystem::temp_directory_path() / ("torchtv_limits_" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <class F> std::string errorOf(F f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

std::string graphWithInput(const std::string &type) {
  return "graph @g(%x: " + type + ") -> (" + type + ") {\n  return %x\n}\n";
}

std::string chainOfNegs(int n) {
  std::string s = "graph @g(%x: f32[4]) -> (f32[4]) {\n";
  std::string last = "x";
  for (int i = 0; i < n; ++i) {
    s += "  %v" + std::to_string(i) + ": f32[4] = aten::neg(%" + last + ")\n";
    last = "v" + std::to_string(i);
  }
  return s + "  return %" + last + "\n}\n";
}

Limits with(void (*set)(Limits &)) {
  Limits l;
  set(l);
  return l;
}

}  // namespace

TEST_CASE("tvir: rank past max_rank is an error at the type") {
  std::string dims = "1";
  for (int i = 1; i < 17; ++i) dims += ",1";
  std::string err = errorOf([&] { parseModule(graphWithInput("f32[" + dims + "]"), "r.tvir"); });
  CHECK(err.find("r.tvir:1:") == 0);
  CHECK(err.find("exceeds limit max_rank = 16") != std::string::npos);
  dims = "1";
  for (int i = 1; i < 16; ++i) dims += ",1";
  CHECK(errorOf([&] { parseModule(graphWithInput("f32[" + dims + "]"), "r.tvir"); }) == "");
}

TEST_CASE("tvir: a dim past max_dim and a numel past max_numel are errors") {
  CHECK(errorOf([] { parseModule(graphWithInput("f32[2000000000000]"), "d.tvir"); })
            .find("exceeds limit max_dim = 1099511627776") != std::string::npos);
  // Each dim is under max_dim; their product would overflow int64 unchecked.
  std::string err = errorOf([] { parseModule(graphWithInput("f32[1000000000,1000000000,1000000000]"), "n.tvir"); });
  CHECK(err.find("exceeds limit max_numel") != std::string::npos);
  // An empty tensor has numel 0 whatever its other dims are.
  CHECK(errorOf([] { parseModule(graphWithInput("f32[0,1000000000,1000000000]"), "z.tvir"); }) == "");
}

TEST_CASE("tvir: nodes past max_nodes_per_graph") {
  ScopedLimits lower(with([](Limits &l) { l.maxNodesPerGraph = 3; }));
  CHECK(errorOf([] { parseModule(chainOfNegs(3), "n.tvir"); }) == "");
  std::string err = errorOf([] { parseModule(chainOfNegs(4), "n.tvir"); });
  CHECK(err.find("n.tvir:5:") == 0);
  CHECK(err.find("exceeds limit max_nodes_per_graph = 3") != std::string::npos);
}

TEST_CASE("tvir: a list attribute past max_list_length") {
  ScopedLimits lower(with([](Limits &l) { l.maxListLength = 2; }));
  std::string text = "graph @g(%x: f32[4,4]) -> (f32[4,4]) {\n"
                     "  %y: f32[4,4] = aten::permute(%x) {dims=[1,0,1]}\n  return %y\n}\n";
  CHECK(errorOf([&] { parseModule(text, "l.tvir"); }).find("exceeds limit max_list_length = 2") !=
        std::string::npos);
}

TEST_CASE("readFile stops past max_file_bytes, also where stat says size 0") {
  CHECK(errorOf([] { readFile("/proc/self/status"); }) == "");
  CHECK(errorOf([] { readFile("/"); }).find("is a directory") != std::string::npos);
  CHECK(errorOf([] { readFile("/dev/zero"); }).find("not a regular file") != std::string::npos);
  CHECK(errorOf([] { readFile("/proc/self/mem"); }).find("cannot read file") != std::string::npos);
  ScopedLimits lower(with([](Limits &l) { l.maxFileBytes = 100; }));
  std::string path = tempFile("big.tvir", std::string(200, '#'));
  CHECK(errorOf([&] { parseModuleFile(path); }).find("exceeds limit max_file_bytes = 100") != std::string::npos);
  CHECK(errorOf([] { readFile("/proc/self/status"); }).find("exceeds limit max_file_bytes = 100") !=
        std::string::npos);
}

TEST_CASE("capture JSON: nesting past max_nesting_depth is refused before parsing") {
  // 100000 levels would overflow the stack of a recursive parser or destructor.
  std::string path = tempFile("deep.json", std::string(100000, '['));
  std::string err = errorOf([&] { readCaptureJsonFile(path); });
  CHECK(err.find(":1:257: nesting exceeds limit max_nesting_depth = 256") != std::string::npos);
  // Brackets inside strings do not count.
  std::string text = "{\"a\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  CHECK(errorOf([&] { checkNestingDepth(text, NestingSyntax::Json, "s.json"); }) == "");
}

TEST_CASE("TOML nesting scan: strings, literal strings, multi-line strings and comments") {
  std::string deep = std::string(300, '[');
  CHECK(errorOf([&] { checkNestingDepth("a = " + deep, NestingSyntax::Toml, "m.toml"); })
            .find("max_nesting_depth") != std::string::npos);
  for (std::string hidden : {"\"" + deep + "\"", "'" + deep + "'", "\"\"\"\n" + deep + "\n\"\"\"",
                             "'''" + deep + "'''", "1 # " + deep})
    CHECK(errorOf([&] { checkNestingDepth("a = " + hidden + "\n", NestingSyntax::Toml, "m.toml"); }) == "");
  // A string that closes cannot hide brackets after it.
  CHECK(errorOf([&] { checkNestingDepth("a = '''x''' " + deep, NestingSyntax::Toml, "m.toml"); }) != "");
}

TEST_CASE("capture JSON: an input past max_rank") {
  std::string shape = "1";
  for (int i = 1; i < 17; ++i) shape += ",1";
  std::string json = R"({"format": "torchtv-graph", "version": 1, "name": "g",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [)" + shape + R"(]}], "nodes": [],
    "outputs": [{"name": "out", "value": "x"}]})";
  std::string path = tempFile("rank.json", json);
  CHECK(errorOf([&] { readCaptureJsonFile(path); }).find("exceeds limit max_rank = 16") != std::string::npos);
}

TEST_CASE(".pt2: archive entries, entry size and file size are capped") {
  std::string pt2 = std::string(TORCHTV_SOURCE_DIR) + "/tests/fixtures/t211/mlp.pt2";
  REQUIRE(errorOf([&] { importPt2(pt2, nullptr); }) == "");
  {
    ScopedLimits lower(with([](Limits &l) { l.maxArchiveEntries = 1; }));
    CHECK(errorOf([&] { importPt2(pt2, nullptr); }).find("exceeds limit max_archive_entries = 1") !=
          std::string::npos);
  }
  {
    // The file itself is refused by loadModule; each entry by its stated size.
    ScopedLimits lower(with([](Limits &l) { l.maxFileBytes = 64; }));
    CHECK(errorOf([&] { loadModule(pt2, {}); }).find("exceeds limit max_file_bytes = 64") != std::string::npos);
    std::string err = errorOf([&] { importPt2(pt2, nullptr); });
    CHECK(err.find("entry '") != std::string::npos);
    CHECK(err.find("exceeds limit max_file_bytes = 64") != std::string::npos);
  }
}

TEST_CASE("buildNode: a result built from attributes past max_numel") {
  // expand's result shape comes from its size attribute, not from any input type.
  Graph g("g");
  Value *x = g.addInput("x", TensorType{DType::F32, {1}});
  NodeSpec spec;
  spec.op = "aten::expand";
  spec.inputs = {x};
  spec.attrs["size"] = std::vector<int64_t>{1000000000000, 1000000000};
  std::string err = errorOf([&] { buildNode(g, OpResolver{}, spec); });
  CHECK(err.find("aten::expand") != std::string::npos);
  CHECK(err.find("exceeds limit max_numel") != std::string::npos);
}
