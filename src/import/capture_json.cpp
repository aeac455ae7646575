#include "src/import/capture_json.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/limits.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "ir/import_util.h"

namespace torchtv {

namespace {

using nlohmann::json;
constexpr int kFormatVersion = 1;

// Context for messages: "<file>: node 12 (aten::mul.Tensor): ...".
struct Where {
  const std::string &path;
  std::string node;

  [[noreturn]] void fail(const std::string &message) const {
    throw InputError(SourcePos{path}, (node.empty() ? "" : node + ": ") + message);
  }
};

const json &field(const json &j, const char *key, const Where &w) {
  if (!j.is_object() || !j.contains(key)) w.fail(std::string("missing key '") + key + "'");
  return j.at(key);
}

std::string stringField(const json &j, const char *key, const Where &w) {
  const json &v = field(j, key, w);
  if (!v.is_string()) w.fail(std::string("'") + key + "' must be a string");
  return v.get<std::string>();
}

double number(const json &v, const Where &w) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  w.fail("expected a number, got " + v.dump());
}

int64_t integer(const json &v, const Where &w) {
  if (!v.is_number_integer()) w.fail("expected an integer, got " + v.dump());
  return v.get<int64_t>();
}

TensorType tensorType(const json &j, const Where &w) {
  auto dtype = parseDType(stringField(j, "dtype", w));
  if (!dtype) w.fail("unknown dtype " + field(j, "dtype", w).dump());
  TensorType t{*dtype, {}};
  const json &shape = field(j, "shape", w);
  if (!shape.is_array()) w.fail("'shape' must be a list");
  for (const json &d : shape) {
    if (d.is_string()) t.shape.push_back(Dim::symbol(d.get<std::string>()));
    else if (d.is_number_integer() && d.get<int64_t>() >= 0) t.shape.push_back(d.get<int64_t>());
    else w.fail("bad dimension " + d.dump());
  }
  return t;
}

// The value of a non-tensor argument, by the key that says its kind.
Attribute attributeOf(const json &arg, const Where &w) {
  if (arg.contains("none")) return NoneValue{};
  if (arg.contains("bool")) return arg["bool"].get<bool>();
  if (arg.contains("int")) return integer(arg["int"], w);
  if (arg.contains("float")) return number(arg["float"], w);
  if (arg.contains("dtype")) {
    auto d = parseDType(arg["dtype"].get<std::string>());
    if (!d) w.fail("unknown dtype " + arg["dtype"].dump());
    return *d;
  }
  for (const char *key : {"str", "device", "layout", "memory_format"})
    if (arg.contains(key)) return arg[key].get<std::string>();
  if (arg.contains("ints") || arg.contains("bools")) {
    std::vector<int64_t> v;
    for (const json &x : arg.contains("ints") ? arg["ints"] : arg["bools"])
      v.push_back(x.is_boolean() ? x.get<bool>() : integer(x, w));
    return v;
  }
  if (arg.contains("floats")) {
    std::vector<double> v;
    for (const json &x : arg["floats"]) v.push_back(number(x, w));
    return v;
  }
  w.fail("argument " + arg.dump() + " has no value key this reader knows");
}

// Note [Wrapped numbers]
// make_fx records `var + 1e-5` as aten::add.Tensor(var, 1e-05): a Python number
// in a Tensor argument. PyTorch treats it as a "wrapped number", which
// promotes exactly like the Scalar argument of the op's .Scalar overload, so
// the node is read as that overload (add.Tensor(x, c) -> add.Scalar(x, c)):
// the registry's scalar twin (Note [Op properties] in ir/op_registry.h).
// A number in `self` (Inductor writes `1 - x` as aten::sub.Tensor(1, x)) is
// read as the overload that takes the number second: the mirrored op for sub
// (rsub.Scalar(x, 1, alpha) = 1 - alpha*x), the same op with its operands
// swapped for add and mul (IEEE + and * commute bit for bit). Any other number
// in a tensor slot (prims::where(c, 0.0, y), prims::div) becomes a 0-dim
// constant (Note [Numbers in tensor slots] in ir/import_util.h).
std::string scalarOverload(const std::string &op, const std::string &arg) {
  OpProps p = opProps(op);
  return p.scalarArg == arg ? p.scalarTwin : "";
}

std::string scalarSelfOverload(const std::string &op) {
  if (op == "aten::sub.Tensor") return "aten::rsub.Scalar";
  if (op == "aten::add.Tensor" || op == "aten::mul.Tensor") return scalarOverload(op, "other");
  return "";
}

// In-place ops (`aten::add_.Tensor`) are read as their out-of-place form: the
// capture guarantees nothing reads the mutated value afterwards.
std::string outOfPlace(const std::string &op) {
  auto colon = op.find("::");
  auto dot = op.find('.', colon == std::string::npos ? 0 : colon);
  std::string base = op.substr(0, dot);
  if (base.size() < 2 || base.back() != '_' || base[base.size() - 2] == '_') return op;
  return base.substr(0, base.size() - 1) + (dot == std::string::npos ? "" : op.substr(dot));
}

// Note [Captured fusions]
// A FUSIONS reference is captured once per distinct call signature of its op
// (shapes, dtypes, non-tensor arguments), each at one call. It becomes a fusion definition (Note [Fusion templates]
// in ir/text_format.h) whose header has those concrete types and those
// argument values as guards, so it expands exactly the calls with that
// signature; a call matching none (e.g. in a .tvir written by hand from an
// older capture) stays unexpanded (an uninterpreted op).
GraphTemplate fusionTemplate(const Graph &g, const json &j, const std::string &path, const OpResolver &ops) {
  Where w{path, "fusion graph " + g.name()};
  auto resolved = ops.resolve(g.name());
  if (!resolved) w.fail("defines an op the capture declared no schema for");
  std::string guards;
  if (j.contains("fusion") && j["fusion"].contains("args")) {
    for (const json &arg : j["fusion"]["args"]) {
      if (arg.contains("value") || arg.contains("values")) continue;
      std::string name = stringField(arg, "name", w);
      const ArgSpec *spec = resolved->schema->findArg(name);
      if (!spec || spec->isTensor()) continue;
      guards += (guards.empty() ? "" : ", ") + name + "=" + attributeOf(arg, w).str();
    }
  }
  for (const ArgSpec &a : resolved->schema->args)
    if (!a.isTensor() && guards.find(a.name + "=") == std::string::npos)
      w.fail("the capture records no value for argument '" + a.name + "'");
  std::string text = printGraph(g);
  if (!guards.empty()) {
    size_t arrow = text.find(") -> (");
    text.insert(arrow + 1, " {" + guards + "}");
  }
  return GraphTemplate{g.name(), path, 1, 1, text};
}

}  // namespace

std::unique_ptr<Graph> readCaptureGraph(const json &j, const std::string &path, OpResolver &ops) {
  Where top{path, ""};
  if (!j.is_object()) top.fail("expected a JSON object");
  if (j.value("format", "") != "torchtv-graph") top.fail("not a torchtv graph file (format is not \"torchtv-graph\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kFormatVersion)
    top.fail("unsupported graph format version " + (j.contains("version") ? j["version"].dump() : "(none)") +
             " (this torchtv reads version " + std::to_string(kFormatVersion) + ")");

  auto g = std::make_unique<Graph>(stringField(j, "name", top));
  if (j.contains("schemas")) {
    for (const auto &[name, text] : j["schemas"].items()) {
      if (ops.resolve(name)) continue;  // built-in ops keep the registry's schema and shape rule
      OpSchema schema = parseSchema(text.get<std::string>());
      if (schema.name != name) top.fail("schema for '" + name + "' names '" + schema.name + "'");
      ops.declare(std::make_shared<const OpSchema>(std::move(schema)));
    }
  }

  std::map<std::string, Value *> scope;
  auto lookup = [&](const json &name, const Where &w) -> Value * {
    if (name.is_null()) return nullptr;
    auto it = scope.find(name.get<std::string>());
    if (it == scope.end()) w.fail("use of undefined value '" + name.get<std::string>() + "'");
    return it->second;
  };
  for (const json &in : field(j, "inputs", top)) {
    std::string name = stringField(in, "name", top);
    if (scope.count(name)) top.fail("input '" + name + "' is defined twice");
    scope[name] = g->addInput(name, tensorType(in, top));
  }

  const json &nodes = field(j, "nodes", top);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json &n = nodes[i];
    Where w{path, "node " + std::to_string(i)};
    NodeSpec spec;
    spec.op = outOfPlace(stringField(n, "op", w));
    w.node += " (" + spec.op + ")";
    // Random ops are read: value numbering never matches them (Note [Random calls]).
    if (isNoOpCheck(spec.op)) continue;
    struct Wrapped {
      size_t operand;
      std::string name;
      Attribute value;
    };
    std::vector<Wrapped> wrapped;  // numbers in tensor slots, with a placeholder operand
    for (const json &arg : field(n, "args", w)) {
      std::string name = stringField(arg, "name", w);
      if (arg.contains("value")) spec.inputs.push_back(lookup(arg["value"], w));
      else if (arg.contains("values"))
        for (const json &v : arg["values"]) spec.inputs.push_back(lookup(v, w));
      else {
        Attribute a = attributeOf(arg, w);
        if (spec.op == "prim::constant" && name == "value") name = "data";
        auto resolved = ops.resolve(spec.op);
        const ArgSpec *argSpec = resolved ? resolved->schema->findArg(name) : nullptr;
        if (argSpec && argSpec->kind == ArgKind::Tensor) {
          if (a.isNone()) {
            spec.inputs.push_back(nullptr);
            continue;
          }
          wrapped.push_back({spec.inputs.size(), name, a});  // a number where the schema wants a tensor
          spec.inputs.push_back(nullptr);
          continue;
        }
        spec.attrs[name] = a;
      }
    }
    if (wrapped.size() == 1) {  // Note [Wrapped numbers]: the scalar twin, where there is one
      const Wrapped &c = wrapped[0];
      bool self = c.name == "self";
      std::string scalarOp = self ? scalarSelfOverload(spec.op) : scalarOverload(spec.op, c.name);
      bool unitAlpha = !spec.attrs.count("alpha") || (spec.attrs.at("alpha").isScalar() &&
                                                      spec.attrs.at("alpha").asDouble() == 1.0);
      if (self && spec.op == "aten::add.Tensor" && !unitAlpha) scalarOp.clear();  // c + a*x is not x + a*c
      if (!scalarOp.empty() && ops.resolve(scalarOp) && (!self || spec.inputs.size() == 2)) {
        spec.inputs.erase(spec.inputs.begin() + static_cast<std::ptrdiff_t>(c.operand));
        spec.attrs[self ? "other" : c.name] = c.value;
        spec.op = scalarOp;
        wrapped.clear();
      }
    }
    for (const Wrapped &c : wrapped) {
      try {
        spec.inputs[c.operand] = wrappedNumberTensor(*g, ops, c.value, spec.inputs, spec.loc);
      } catch (const InputError &e) {
        w.fail("argument '" + c.name + "': " + e.message());
      }
    }
    std::vector<size_t> absent;
    const json &outs = field(n, "outputs", w);
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k].is_null()) {
        absent.push_back(k);
        spec.outputNames.push_back(g->freshName("absent"));
        continue;
      }
      spec.outputNames.push_back(stringField(outs[k], "name", w));
      spec.declaredTypes.push_back(tensorType(outs[k], w));
    }
    completeAbsentOutputs(spec, absent, outs.size());
    for (const std::string &name : spec.outputNames)
      if (scope.count(name)) w.fail("value '" + name + "' is defined twice");
    if (n.contains("loc") && n["loc"].is_object() && n["loc"].contains("line") && n["loc"]["line"].is_number_integer())
      spec.loc = SourceLoc{n["loc"].value("file", ""), n["loc"]["line"].get<int>()};
    Node *node;
    try {
      node = buildNode(*g, ops, spec);
    } catch (const InputError &e) {
      w.fail(e.message());
    }
    for (size_t k = 0; k < node->outputs.size(); ++k) {
      Value *v = node->outputs[k];
      bool isAbsent = std::find(absent.begin(), absent.end(), k) != absent.end();
      if (!isAbsent && !absent.empty()) {
        TensorType declared = tensorType(outs[k], w);
        if (declared != v->type)
          w.fail("output " + std::to_string(k) + " is declared " + declared.str() + " but the op computes " + v->type.str());
      }
      if (!isAbsent) scope[v->name] = v;
    }
  }

  for (const json &out : field(j, "outputs", top)) {
    Value *v = lookup(field(out, "value", top), top);
    if (!v) top.fail("graph output is null");
    g->addOutput(v, stringField(out, "name", top));
  }
  return g;
}

json parseJsonText(const std::string &text, const std::string &path) {
  checkNestingDepth(text, NestingSyntax::Json, path);
  try {
    return json::parse(text);
  } catch (const json::parse_error &e) {
    int line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError(SourcePos{path, line, col}, "invalid JSON");
  }
}

namespace {

std::string jsonText(const json &j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

long long integerOr(const json &o, const char *key, long long fallback) {
  return o.contains(key) && o[key].is_number_integer() ? o[key].get<long long>() : fallback;
}

// The capture's "eager_check" record (Note [Eager cross-check]). It only ever
// weakens a verdict, so a record that does not parse is reported, not guessed at.
std::optional<EagerEvidence> readEagerEvidence(const json &capture, const std::string &path) {
  if (!capture.is_object() || !capture.contains("eager_check")) return std::nullopt;
  const json &e = capture["eager_check"];
  Where top{path, "eager_check"};
  if (!e.is_object() || !e.contains("ran") || !e["ran"].is_boolean()) top.fail("malformed eager_check record");
  EagerEvidence ev;
  ev.ran = e["ran"].get<bool>();
  ev.why = e.contains("why") ? jsonText(e["why"]) : "";
  ev.inputs = e.contains("inputs") ? jsonText(e["inputs"]) : "";
  ev.reducedShapes = e.contains("reduced_shapes") && e["reduced_shapes"].is_boolean() && e["reduced_shapes"].get<bool>();
  if (!ev.ran) return ev;
  if (!e.contains("outputs") || !e["outputs"].is_array()) top.fail("eager_check has no outputs");
  for (const json &o : e["outputs"]) {
    if (!o.is_object() || !o.contains("output") || !o["output"].is_string() || !o.contains("bitwise_equal") ||
        !o["bitwise_equal"].is_boolean())
      top.fail("malformed eager_check output");
    EagerOutputCheck c;
    c.output = o["output"].get<std::string>();
    c.draws = static_cast<int>(integerOr(o, "draws", 0));
    c.bitwiseEqual = o["bitwise_equal"].get<bool>();
    c.elementsDiffer = integerOr(o, "elements_differ", 0);
    if (o.contains("max_ulp") && o["max_ulp"].is_number()) c.maxUlp = o["max_ulp"].get<double>();
    if (o.contains("beyond_rounding") && !o["beyond_rounding"].is_null()) c.beyondRounding = jsonText(o["beyond_rounding"]);
    if (o.contains("inconclusive") && !o["inconclusive"].is_null()) c.inconclusive = jsonText(o["inconclusive"]);
    if (o.contains("first_difference") && o["first_difference"].is_object()) {
      const json &f = o["first_difference"];
      auto part = [&](const char *key) { return f.contains(key) ? jsonText(f[key]) : std::string("?"); };
      c.firstDifference = part("input") + ": element " + part("index") + " is " + part("reference") +
                          " in reference, " + part("production") + " in production";
    }
    ev.outputs.push_back(std::move(c));
  }
  return ev;
}

std::vector<std::string> names(const json &list, const Where &w) {
  std::vector<std::string> out;
  if (!list.is_array()) w.fail("expected a list of input names");
  for (const json &n : list) {
    if (!n.is_string()) w.fail("expected a list of input names");
    out.push_back(n.get<std::string>());
  }
  return out;
}

CaptureEvidence readCaptureEvidence(const json &capture, const std::string &path) {
  CaptureEvidence ev;
  ev.eager = readEagerEvidence(capture, path);
  ev.reducedOnly = capture.is_object() && capture.contains("reduced_only") && capture["reduced_only"].is_boolean() &&
                   capture["reduced_only"].get<bool>();
  if (capture.is_object() && capture.contains("input_mutations")) {
    const json &m = capture["input_mutations"];
    Where w{path, "input_mutations"};
    if (!m.is_object()) w.fail("expected an object");
    if (m.contains("reference")) ev.referenceMutates = names(m["reference"], w);
    if (m.contains("production")) ev.productionMutates = names(m["production"], w);
  }
  if (capture.is_object() && capture.contains("assume")) {  // Note [Declared input domains]
    Where w{path, "assume"};
    if (!capture["assume"].is_array()) w.fail("expected a list of declared domains");
    for (const json &d : capture["assume"]) {
      if (!d.is_string()) w.fail("expected a list of declared domains");
      ev.declaredDomains.push_back(d.get<std::string>());
    }
  }
  if (capture.is_object() && capture.contains("warnings")) {
    Where w{path, "warnings"};
    if (!capture["warnings"].is_array()) w.fail("expected a list of texts");
    for (const json &t : capture["warnings"]) {
      if (!t.is_string()) w.fail("expected a list of texts");
      ev.warnings.push_back(t.get<std::string>());
    }
  }
  return ev;
}

}  // namespace

std::unique_ptr<Module> readCaptureBundle(const json &bundle, const std::string &path) {
  Where top{path, ""};
  const json &graphs = field(bundle, "graphs", top);
  auto m = std::make_unique<Module>();
  m->path = path;
  OpResolver ops;
  m->graphs.push_back(readCaptureGraph(field(graphs, "reference", top), path, ops));
  m->graphs.push_back(readCaptureGraph(field(graphs, "production", top), path, ops));
  m->graphs[0]->setName("reference");
  m->graphs[1]->setName("production");
  if (graphs.contains("fusions"))
    for (const auto &[op, graph] : graphs["fusions"].items())
      m->templates.push_back(fusionTemplate(*readCaptureGraph(graph, path, ops), graph, path, ops));
  // Note [Reduced-shape graphs] in src/capture/torchtv_capture/capture.py: two more graphs, and
  // the fusions they call (captured at their own call signatures, so no other call matches them).
  if (graphs.contains("reduced")) {
    const json &reduced = graphs["reduced"];
    Where w{path, "reduced"};
    m->graphs.push_back(readCaptureGraph(field(reduced, "reference", w), path, ops));
    m->graphs.back()->setName(kReducedReference);
    m->graphs.push_back(readCaptureGraph(field(reduced, "production", w), path, ops));
    m->graphs.back()->setName(kReducedProduction);
    if (reduced.contains("fusions"))
      for (const auto &[op, graph] : reduced["fusions"].items())
        m->templates.push_back(fusionTemplate(*readCaptureGraph(graph, path, ops), graph, path, ops));
  }
  m->customOps = ops.custom();
  if (bundle.contains("capture")) m->capture = readCaptureEvidence(bundle["capture"], path);
  return m;
}

std::unique_ptr<Module> readCaptureDir(const std::string &dir) {
  namespace fs = std::filesystem;
  std::string indexPath = (fs::path(dir) / "capture.json").string();
  json index = parseJsonText(readFile(indexPath), indexPath);
  Where top{indexPath, ""};
  if (index.value("format", "") != "torchtv-capture") top.fail("not a torchtv capture index");
  if (index.value("version", 0) != kFormatVersion)
    top.fail("unsupported capture format version " + index.value("version", json(nullptr)).dump());
  json bundle = {{"capture", index}, {"graphs", json::object()}};
  for (const char *role : {"reference", "production"}) {
    std::string p = (fs::path(dir) / stringField(index, role, top)).string();
    bundle["graphs"][role] = parseJsonText(readFile(p), p);
  }
  auto readFusions = [&](const json &files, json &into) {
    for (const auto &[op, file] : files.items()) {
      std::string p = (fs::path(dir) / file.get<std::string>()).string();
      into[op] = parseJsonText(readFile(p), p);
    }
  };
  if (index.contains("fusions")) readFusions(index["fusions"], bundle["graphs"]["fusions"]);
  if (index.contains("reduced")) {  // Note [Reduced-shape graphs] in src/capture/torchtv_capture/capture.py
    const json &reduced = index["reduced"];
    Where w{indexPath, "reduced"};
    json &graphs = bundle["graphs"]["reduced"] = json::object();
    for (const char *role : {"reference", "production"}) {
      std::string p = (fs::path(dir) / stringField(reduced, role, w)).string();
      graphs[role] = parseJsonText(readFile(p), p);
    }
    if (reduced.contains("fusions")) readFusions(reduced["fusions"], graphs["fusions"]);
  }
  return readCaptureBundle(bundle, indexPath);
}

std::unique_ptr<Module> readCaptureJsonFile(const std::string &path) {
  json j = parseJsonText(readFile(path), path);
  std::string format = j.is_object() ? j.value("format", "") : "";
  if (format == "torchtv-capture") return readCaptureDir(std::filesystem::path(path).parent_path().string());
  if (format != "torchtv-graph")
    throw InputError(SourcePos{path}, "not a torchtv JSON file (expected format \"torchtv-graph\" or \"torchtv-capture\")");
  auto m = std::make_unique<Module>();
  m->path = path;
  OpResolver ops;
  m->graphs.push_back(readCaptureGraph(j, path, ops));
  m->customOps = ops.custom();
  return m;
}

}  // namespace torchtv
