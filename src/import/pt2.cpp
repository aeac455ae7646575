// torch.export's serialized ExportedProgram (JSON) -> IR.
// Format: torch/_export/serde/schema.py (Argument, TensorMeta, GraphSignature).
#include "src/import/pt2.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/capture_evidence.h"
#include "ir/limits.h"
#include "ir/op_registry.h"
#include "ir/import_util.h"
#include "src/import/inplace_plan.h"
#include "src/import/pt2_enums.h"

namespace torchtv {

namespace {

using json = nlohmann::json;

class ProgramReader {
public:
  ProgramReader(const Pt2Archive &a, Graph &g) : a_(a), g_(g) {}

  void run(const json &program, const std::vector<TensorType> *inputs) {
    checkVersion(program);
    const json &gm = field(program, "graph_module");
    const json &graph = field(gm, "graph");
    const json &sig = field(gm, "signature");
    for (const auto &[name, meta] : field(graph, "tensor_values").items()) metas_[name] = tensorMeta(meta, name);
    if (!a_.constantsConfigJson.empty()) constants_ = parse(a_.constantsConfigJson, "model_constants_config.json");
    bindInputs(field(graph, "inputs"), field(sig, "input_specs"), inputs);
    nameUpdates(field(sig, "output_specs"));
    std::vector<const json *> everyNode;
    collectNodes(field(graph, "nodes"), everyNode);
    declareArtifactSchemas(everyNode);
    const json &nodes = field(graph, "nodes");
    std::vector<InPlaceStep> plan = planInPlace(nodes, field(graph, "outputs"));
    for (size_t i = 0; i < nodes.size(); ++i) importNode(nodes[i], plan.at(i));
    bindOutputs(field(graph, "outputs"), field(sig, "output_specs"));
  }

  json parse(const std::string &text, const std::string &what) const {
    checkNestingDepth(text, NestingSyntax::Json, a_.path + " (" + what + ")");
    try {
      return json::parse(text);
    } catch (const json::exception &e) {
      fail(what + " is not valid JSON: " + e.what());
    }
  }

private:
  [[noreturn]] void fail(const std::string &message) const { throw InputError(SourcePos{a_.path}, message); }

  const json &field(const json &obj, const char *key) const {
    if (!obj.is_object() || !obj.contains(key)) fail(std::string("malformed ExportedProgram: no field '") + key + "'");
    return obj.at(key);
  }

  // Arguments and specs are tagged unions: an object with one key.
  std::pair<std::string, const json *> tagOf(const json &u) const {
    if (!u.is_object() || u.empty()) fail("malformed ExportedProgram: expected a tagged union, got " + u.dump());
    for (auto it = u.begin(); it != u.end(); ++it)
      if (!it.value().is_null()) return {it.key(), &it.value()};
    return {u.begin().key(), &u.begin().value()};
  }

  void checkVersion(const json &program) const {
    std::string supported = "torchtv reads schema majors " + std::to_string(kPt2MinSchemaMajor) + " to " +
                            std::to_string(kPt2MaxSchemaMajor) + " (torch 2.2 and later)";
    if (!program.contains("schema_version") || !program["schema_version"].is_object())
      fail("has no schema_version (written by torch 2.1 or older?); " + supported);
    const json &v = program["schema_version"];
    int major = v.value("major", -1), minor = v.value("minor", -1);
    if (major < kPt2MinSchemaMajor || major > kPt2MaxSchemaMajor)
      fail("torch.export schema version " + std::to_string(major) + "." + std::to_string(minor) +
           " is not supported; " + supported);
  }

  Dim dimOf(const json &s, const std::string &what) const {
    auto [tag, val] = tagOf(s);
    if (tag == "as_int") return Dim(val->get<int64_t>());
    if (tag != "as_expr") fail("size of '" + what + "' is " + s.dump());
    std::string expr = val->is_string() ? val->get<std::string>() : val->value("expr_str", std::string());
    // "s0" (older) or "Symbol('s77', positive=True, integer=True)" (newer).
    const std::string prefix = "Symbol('";
    if (expr.rfind(prefix, 0) == 0) expr = expr.substr(prefix.size(), expr.find('\'', prefix.size()) - prefix.size());
    bool plain = !expr.empty() && std::isalpha(static_cast<unsigned char>(expr[0]));
    for (char c : expr) plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!plain) fail("size of '" + what + "' is the expression '" + expr + "'; only plain symbols are supported");
    return Dim::symbol(expr);
  }

  TensorType tensorMeta(const json &meta, const std::string &what) const {
    TensorType t{DType::F32, {}};
    // Note [torch.export enums]
    try {
      t.dtype = pt2ScalarType(field(meta, "dtype").get<int64_t>());
      // Every tensor torchtv reads is dense; older majors omit the layout.
      if (meta.contains("layout") && pt2Layout(meta["layout"].get<int64_t>()) != 0)
        throw InputError("layout " + meta["layout"].dump() + " is not Strided (7): torchtv reads dense tensors only");
    } catch (const InputError &e) {
      fail("tensor '" + what + "': " + e.message());
    }
    for (const json &s : field(meta, "sizes")) t.shape.push_back(dimOf(s, what));
    return t;
  }

  const TensorType &metaOf(const std::string &name) const {
    auto it = metas_.find(name);
    if (it == metas_.end()) fail("no tensor_values entry for '" + name + "'");
    return it->second;
  }

  std::string tensorName(const json &arg) const {
    auto [tag, val] = tagOf(arg);
    if (tag == "as_tensor") return field(*val, "name").get<std::string>();
    fail("expected a tensor, got " + arg.dump());
  }

  void bindInputs(const json &graphInputs, const json &specs, const std::vector<TensorType> *expected) {
    if (graphInputs.size() != specs.size()) fail("graph inputs and input_specs differ in length");
    std::vector<std::string> userNames;
    std::vector<TensorType> userTypes;
    for (const json &spec : specs) {
      auto [kind, s] = tagOf(spec);
      // A None (or number) the caller passed: the program holds its value, no input.
      if (kind == "constant_input") continue;
      std::string arg = kind == "user_input" ? tensorName(field(*s, "arg")) : field(field(*s, "arg"), "name").get<std::string>();
      if (kind == "parameter" || kind == "buffer") {
        std::string fqn = field(*s, kind == "parameter" ? "parameter_name" : "buffer_name").get<std::string>();
        values_[arg] = g_.addInput(g_.freshName(valueNameHint(fqn)), metaOf(arg));
        if (kind == "buffer") buffers_[fqn] = values_[arg];
      } else if (kind == "tensor_constant") {
        values_[arg] = liftedConstant(arg, field(*s, "tensor_constant_name").get<std::string>());
      } else if (kind == "user_input") {
        values_[arg] = g_.addInput(g_.freshName(valueNameHint(arg)), metaOf(arg));
        userInputs_[arg] = values_[arg];
        userNames.push_back(arg);
        userTypes.push_back(metaOf(arg));
      } else {
        fail("input '" + arg + "' is a " + kind + " input, which torchtv does not support");
      }
    }
    if (expected && *expected != userTypes) {
      std::string have;
      for (size_t i = 0; i < userTypes.size(); ++i) have += (i ? ", " : "") + userNames[i] + ": " + userTypes[i].str();
      std::string want;
      for (size_t i = 0; i < expected->size(); ++i) want += (i ? "," : "") + (*expected)[i].str();
      fail("--inputs '" + want + "' does not match the file's user inputs (" + have + ")");
    }
  }

  Value *liftedConstant(const std::string &arg, const std::string &fqn) {
    if (constants_.is_null()) fail("lifted constant '" + fqn + "' has no entry in the archive");
    const json &cfg = field(constants_, "config");
    if (!cfg.contains(fqn)) fail("lifted constant '" + fqn + "' is missing from model_constants_config.json");
    const json &c = cfg.at(fqn);
    if (c.value("use_pickle", false)) fail("lifted constant '" + fqn + "' is pickled, which torchtv cannot read");
    const json &meta = field(c, "tensor_meta");
    TensorType type = tensorMeta(meta, fqn);
    std::optional<int64_t> n = numel(type.shape);
    if (!n) fail("lifted constant '" + fqn + "' has a symbolic shape");
    // Row-major contiguous, no offset: the raw bytes are the elements in order.
    int64_t stride = 1;
    bool contiguous = meta.value("storage_offset", json{{"as_int", 0}}).value("as_int", -1) == 0;
    const json &strides = field(meta, "strides");
    for (size_t i = type.shape.size(); i-- > 0;) {
      if (type.shape[i].size() != 1) contiguous &= strides.at(i).value("as_int", -1) == stride;
      stride *= type.shape[i].size();
    }
    if (!contiguous) fail("lifted constant '" + fqn + "' is not contiguous");
    std::string bytes = a_.readConstant(field(c, "path_name").get<std::string>());
    try {
      return addConstantTensor(g_, ops_, type, decode(bytes, type.dtype, *n, fqn), arg, {});
    } catch (const InputError &e) {
      fail(e.message());
    }
  }

  Attribute decode(const std::string &bytes, DType dtype, int64_t n, const std::string &what) const {
    size_t width = static_cast<size_t>(dtypeBits(dtype) / 8 + (dtype == DType::Bool ? 1 : 0));
    if (isComplex(dtype)) fail("lifted constant '" + what + "' is complex; complex constants are not read yet (docs/complex.md)");
    if (bytes.size() < width * n) fail("lifted constant '" + what + "' is truncated");
    auto load = [&](auto sample, int64_t i) {
      decltype(sample) v;
      std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
      return v;
    };
    std::vector<double> floats;
    std::vector<int64_t> ints;
    for (int64_t i = 0; i < n; ++i) {
      switch (dtype) {
      case DType::F32: floats.push_back(load(float{}, i)); break;
      case DType::F64: floats.push_back(load(double{}, i)); break;
      case DType::F16: floats.push_back(halfToDouble(load(uint16_t{}, i))); break;
      case DType::BF16: {
        uint32_t bits = static_cast<uint32_t>(load(uint16_t{}, i)) << 16;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        floats.push_back(f);
        break;
      }
      case DType::Bool:
      case DType::U8: ints.push_back(load(uint8_t{}, i)); break;
      case DType::I8: ints.push_back(load(int8_t{}, i)); break;
      case DType::I16: ints.push_back(load(int16_t{}, i)); break;
      case DType::I32: ints.push_back(load(int32_t{}, i)); break;
      case DType::I64: ints.push_back(load(int64_t{}, i)); break;
      case DType::U64: ints.push_back(static_cast<int64_t>(load(uint64_t{}, i))); break;  // no .pt2 code maps here
      case DType::C64:
      case DType::C128: break;  // refused above
      }
    }
    if (isFloating(dtype)) return floats;
    return ints;
  }

  static double halfToDouble(uint16_t h) {
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0) return sign * std::ldexp(mant, -24);
    if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
    return sign * std::ldexp(mant + 1024, exp - 25);
  }

  SourceLoc locOf(const json &node) const {
    const json &meta = node.value("metadata", json::object());
    std::string trace = meta.is_object() ? meta.value("stack_trace", std::string()) : "";
    size_t at = trace.rfind("File \"");
    if (at == std::string::npos) return {};
    size_t fileEnd = trace.find('"', at + 6);
    size_t line = trace.find(", line ", fileEnd);
    if (fileEnd == std::string::npos || line == std::string::npos) return {};
    return SourceLoc{trace.substr(at + 6, fileEnd - at - 6), std::atoi(trace.c_str() + line + 7)};
  }

  // "torch.ops.aten.add.Tensor" -> "aten::add.Tensor".
  static std::string opNameOf(const std::string &target) {
    const std::string prefix = "torch.ops.";
    size_t first = target.find('.', prefix.size()), last = target.rfind('.');
    if (target.rfind(prefix, 0) != 0 || first == std::string::npos || first == last)
      throw InputError("target is not an ATen-style operator (torch.ops.NS.OP.OVERLOAD)");
    return canonicalOpName(target.substr(prefix.size(), first - prefix.size()) + "::" +
                               target.substr(first + 1, last - first - 1),
                           target.substr(last + 1));
  }

  // The schema type an argument's encoding implies ("" for None: any type).
  static std::string typeOfTag(const std::string &tag) {
    static const std::map<std::string, std::string> types = {
        {"as_tensor", "Tensor"},       {"as_optional_tensor", "Tensor?"}, {"as_tensors", "Tensor[]"},
        {"as_optional_tensors", "Tensor?[]"}, {"as_int", "int"},          {"as_sym_int", "SymInt"},
        {"as_float", "float"},         {"as_bool", "bool"},               {"as_string", "str"},
        {"as_ints", "int[]"},          {"as_sym_ints", "SymInt[]"},       {"as_floats", "float[]"},
        {"as_bools", "bool[]"},        {"as_scalar_type", "ScalarType"},  {"as_device", "Device"},
        {"as_memory_format", "MemoryFormat"}, {"as_layout", "Layout"},    {"as_none", ""}};
    auto it = types.find(tag);
    if (it == types.end()) throw InputError("an argument encoded as '" + tag + "', which torchtv does not read");
    return it->second;
  }

  // Note [Schemas from the artifact]
  // An op the registry does not know (newer than LibTorch 1.13, or a custom
  // `ns::op`) gets a schema spelled from its calls in the archive: the
  // arguments by name in the order first seen, each of the type its encoding
  // implies (optional where some call passes None or omits it; a tensor slot
  // where every call passes None), the results as the calls return them (a
  // list when they return one). Result types come from tensor_values. Such an
  // op is uninterpreted, or expanded by a user fusion of that name.
  void declareArtifactSchemas(const std::vector<const json *> &nodes) {
    struct Arg {
      std::string type;
      size_t seen = 0;
      bool none = false;
    };
    struct Spelled {
      std::vector<std::string> order;
      std::map<std::string, Arg> args;
      size_t calls = 0, returns = 0;
      bool list = false;
      SourceLoc loc;
    };
    std::map<std::string, Spelled> unknown;
    for (const json *nodePtr : nodes) {
      const json &node = *nodePtr;
      std::string op;
      try {
        op = opNameOf(field(node, "target").get<std::string>());
      } catch (const InputError &) {
        continue;  // importNode reports it
      }
      if (isNoOpCheck(op) || ops_.resolve(op)) continue;
      Spelled &s = unknown[op];
      if (!s.calls++) s.loc = locOf(node);
      try {
        for (const json &in : field(node, "inputs")) {
          std::string name = field(in, "name").get<std::string>();
          auto [tag, v] = tagOf(field(in, "arg"));
          if (!s.args.count(name)) s.order.push_back(name);
          Arg &a = s.args[name];
          ++a.seen;
          std::string type = typeOfTag(tag);
          if (tag == "as_optional_tensor" && tagOf(*v).first == "as_none") type.clear();
          if (type.empty()) a.none = true;
          else if (a.type.empty() || a.type == type) a.type = type;
          else throw InputError("argument '" + name + "' is " + a.type + " in one call and " + type + " in another");
        }
        const json &outs = field(node, "outputs");
        bool list = outs.size() == 1 && tagOf(outs[0]).first == "as_tensors";
        if (s.calls > 1 && (list != s.list || (!list && outs.size() != s.returns)))
          throw InputError("calls return different numbers of results");
        s.list = list;
        s.returns = outs.size();
      } catch (const InputError &e) {
        throw nodeError(a_.path, op, locOf(node), e.message());
      }
    }
    for (const auto &[op, s] : unknown) {
      std::string text = op + "(";
      for (size_t i = 0; i < s.order.size(); ++i) {
        const Arg &a = s.args.at(s.order[i]);
        std::string type = a.type.empty() ? "Tensor?" : a.type;
        bool optional = a.none || a.seen < s.calls;
        if (optional && type.back() != '?') type += "?";
        text += (i ? ", " : "") + type + " " + s.order[i] + (optional ? "=None" : "");
      }
      text += ") -> ";
      if (s.list) text += "Tensor[]";
      else {
        text += "(";
        for (size_t i = 0; i < s.returns; ++i) text += i ? ", Tensor" : "Tensor";
        text += ")";
      }
      try {
        ops_.declare(std::make_shared<const OpSchema>(parseSchema(text)));
      } catch (const InputError &e) {
        throw nodeError(a_.path, op, s.loc, "cannot spell a schema from its calls: " + e.message());
      }
    }
  }

  // `nodes` and, depth first, the nodes of every subgraph they hold.
  void collectNodes(const json &nodes, std::vector<const json *> &out) const {
    if (!nodes.is_array()) fail("malformed ExportedProgram: nodes is not a list");
    for (const json &node : nodes) {
      out.push_back(&node);
      if (!node.is_object() || !node.contains("inputs") || !node["inputs"].is_array()) continue;
      for (const json &in : node["inputs"])
        if (in.is_object() && in.contains("arg") && in["arg"].is_object() && in["arg"].contains("as_graph"))
          collectNodes(field(field(in["arg"]["as_graph"], "graph"), "nodes"), out);
    }
  }

  // Note [In-place ops in .pt2 programs] (src/import/inplace_plan.cpp).
  std::vector<InPlaceStep> planInPlace(const json &nodes, const json &graphOutputs) const {
    std::vector<CallSketch> calls;
    for (const json &node : nodes) {
      CallSketch &c = calls.emplace_back();
      try {
        c.op = opNameOf(field(node, "target").get<std::string>());
      } catch (const InputError &) {
        continue;  // importNode reports it
      }
      for (const json &in : field(node, "inputs")) {
        std::string name = field(in, "name").get<std::string>();
        c.argNames.push_back(name);
        std::vector<std::string> tensors = tensorNamesIn(field(in, "arg"));
        if (name == "self" && tensors.size() == 1 && tagOf(field(in, "arg")).first == "as_tensor") c.self = tensors[0];
        c.tensors.insert(c.tensors.end(), tensors.begin(), tensors.end());
      }
      for (const json &out : field(node, "outputs")) {
        std::vector<std::string> names = tensorNamesIn(out);
        if (names.empty()) c.outputs.push_back("");
        c.outputs.insert(c.outputs.end(), names.begin(), names.end());
      }
    }
    std::set<std::string> inputs, outputs;
    for (const auto &[name, value] : values_) inputs.insert(name);
    for (const json &out : graphOutputs) {
      std::vector<std::string> names = tensorNamesIn(out);
      outputs.insert(names.begin(), names.end());
    }
    return torchtv::planInPlace(calls, inputs, outputs);
  }

  // The tensor names an argument or result holds (none for a number or None).
  std::vector<std::string> tensorNamesIn(const json &arg) const {
    auto [tag, v] = tagOf(arg);
    std::vector<std::string> out;
    if (tag == "as_tensor" && v->is_object() && v->contains("name")) out.push_back((*v)["name"].get<std::string>());
    if (tag == "as_optional_tensor") return tensorNamesIn(*v);
    if ((tag == "as_tensors" || tag == "as_optional_tensors") && v->is_array())
      for (const json &t : *v) {
        if (t.is_object() && t.contains("name") && t["name"].is_string()) out.push_back(t["name"].get<std::string>());
        else if (tag == "as_optional_tensors") {
          std::vector<std::string> inner = tensorNamesIn(t);
          out.insert(out.end(), inner.begin(), inner.end());
        }
      }
    return out;
  }

  void importNode(const json &node, const InPlaceStep &step) {
    std::string target = field(node, "target").get<std::string>();
    SourceLoc loc = locOf(node);
    std::string op = target;
    try {
      if (target.rfind(kHigherOrderPrefix, 0) == 0) {
        op = "higher_order::" + target.substr(kHigherOrderPrefix.size());
        importHigherOrder(node, target.substr(kHigherOrderPrefix.size()), loc);
        return;
      }
      op = opNameOf(target);
      if (isNoOpCheck(op)) return;
      if (!step.error.empty()) throw InputError(step.error);
      if (op == "aten::_native_batch_norm_legit") {
        importCall(node, "aten::_native_batch_norm_legit_functional", loc, step, {"running_mean", "running_var"});
        return;
      }
      if (!step.twin.empty()) {
        // Note [In-place ops in .pt2 programs]: the functional twin, unless its
        // result type is not the modified tensor's; then the op as it is.
        try {
          importCall(node, step.twin, loc, step);
          return;
        } catch (const InputError &) {
        }
      }
      importCall(node, op, loc, step);
    } catch (const InputError &e) {
      throw nodeError(a_.path, op, loc, e.message());
    }
  }

  // Note [Higher-order ops in .pt2 programs]
  // torch.export keeps code whose meaning depends on a Python context (a no_grad
  // or autocast block, a torch.cond, a nested compile region) as a higher-order
  // op, torch.ops.higher_order.NAME, whose arguments hold the code as subgraphs
  // (as_graph: a Graph of its own, with its own tensor names) and whose results
  // are the subgraph's outputs. The reader reads each as what it computes:
  //   wrap_with_set_grad_enabled(enabled, g, *args)   grad mode changes no value:
  //                                                   g inlined
  //   invoke_subgraph(g, identifier, *args)           a call: g inlined
  //   wrap_with_autocast(device, dtype, enabled, cache_enabled, g, *args)
  //                                                   disabled (transformers' rotary
  //                                                   embeddings force f32 so): g inlined;
  //                                                   enabled, the kernels inside run in
  //                                                   dtypes g does not record: opaque
  //   cond(pred, true_g, false_g, operands)           a pred the program computes from
  //                                                   constants alone picks the branch,
  //                                                   inlined; a data-dependent one: opaque
  //   map_impl(body, xs, args)                        body on each slice of the xs along
  //                                                   dim 0 (a concrete size), the results
  //                                                   stacked
  //   while_loop(cond_g, body_g, carried, additional) opaque
  // An opaque call is one node higher_order::NAME(operands) {program=...} with no
  // semantics, so whatever depends on it is `unknown` naming it. `program` is
  // the call's non-tensor arguments and subgraphs as JSON without node metadata:
  // two calls are the same value (value numbering) only when they run the same
  // program on the same operands.
  void importHigherOrder(const json &node, const std::string &name, const SourceLoc &loc) {
    std::vector<const json *> args;
    for (const json &in : field(node, "inputs")) args.push_back(&field(in, "arg"));
    auto graphAt = [&](size_t i) -> const json & {
      if (i >= args.size() || tagOf(*args[i]).first != "as_graph")
        throw InputError("argument " + std::to_string(i) + " is not a subgraph");
      return field(*tagOf(*args[i]).second, "graph");
    };
    // The tensors among args[first...]; `skipOthers` false: every one must be a tensor.
    auto operandsFrom = [&](size_t first, bool skipOthers = false) {
      std::vector<Value *> out;
      for (size_t i = first; i < args.size(); ++i) {
        auto [tag, v] = tagOf(*args[i]);
        if (tag == "as_tensors")
          for (const json &t : *v) out.push_back(valueOf(field(t, "name").get<std::string>()));
        else if (tag == "as_tensor") out.push_back(valueOf(field(*v, "name").get<std::string>()));
        else if (!skipOthers) throw InputError("an operand encoded as '" + tag + "', which torchtv does not read");
      }
      return out;
    };
    auto flag = [&](size_t i) {
      if (i >= args.size() || tagOf(*args[i]).first != "as_bool") throw InputError("argument " + std::to_string(i) + " is not a bool");
      return tagOf(*args[i]).second->get<bool>();
    };
    if (name == "wrap_with_set_grad_enabled") return bindResults(node, inlineGraph(graphAt(1), operandsFrom(2)));
    if (name == "invoke_subgraph") return bindResults(node, inlineGraph(graphAt(0), operandsFrom(2)));
    if (name == "wrap_with_autocast" && !flag(2))
      return bindResults(node, inlineGraph(graphAt(4), operandsFrom(5)));
    if (name == "cond") {
      std::vector<Value *> operands = operandsFrom(0, true);  // the pred first
      if (std::optional<bool> pred = knownTruth(operands.at(0)))
        return bindResults(node, inlineGraph(graphAt(*pred ? 1 : 2), operandsFrom(3)));
      return opaqueCall(node, name, operands, loc);
    }
    if (name == "map_impl") {
      std::vector<Value *> xs = operandsFrom(1);
      if (!xs.empty() && !xs[0]->type.shape.empty() && xs[0]->type.shape[0].isConcrete())
        return bindResults(node, mapSlices(graphAt(0), node, loc));
    }
    if (name == "wrap_with_autocast" || name == "map_impl" || name == "while_loop")
      return opaqueCall(node, name, operandsFrom(0, true), loc);
    throw InputError("the higher-order op torch.ops.higher_order." + name + " is not supported (torchtv reads "
                     "wrap_with_set_grad_enabled, wrap_with_autocast, invoke_subgraph, cond, map_impl and while_loop)");
  }

  // Imports the subgraph `sub` into this graph with its inputs bound to
  // `operands`, in a scope of its own (its tensor names are its own); returns
  // its outputs (nullptr for a None output).
  std::vector<Value *> inlineGraph(const json &sub, const std::vector<Value *> &operands) {
    const json &inputs = field(sub, "inputs");
    if (inputs.size() != operands.size())
      throw InputError("its subgraph takes " + std::to_string(inputs.size()) + " inputs, the call passes " +
                       std::to_string(operands.size()));
    if (++inlineDepth_ > kMaxInlineDepth) throw InputError("subgraphs nested deeper than " + std::to_string(kMaxInlineDepth));
    std::map<std::string, TensorType> outerMetas;
    std::map<std::string, Value *> outerValues;
    std::swap(outerMetas, metas_);
    std::swap(outerValues, values_);
    std::vector<Value *> outs;
    try {
      for (const auto &[name, meta] : field(sub, "tensor_values").items()) metas_[name] = tensorMeta(meta, name);
      for (size_t i = 0; i < inputs.size(); ++i)
        if (tagOf(inputs[i]).first != "as_none") values_[tensorName(inputs[i])] = operands[i];
      const json &nodes = field(sub, "nodes");
      std::vector<InPlaceStep> plan = planInPlace(nodes, field(sub, "outputs"));
      for (size_t i = 0; i < nodes.size(); ++i) importNode(nodes[i], plan.at(i));
      // An in-place update of an operand would be seen only inside this scope.
      for (size_t i = 0; i < inputs.size(); ++i)
        if (tagOf(inputs[i]).first != "as_none" && values_.at(tensorName(inputs[i])) != operands[i])
          throw InputError("its subgraph modifies its input '" + tensorName(inputs[i]) +
                           "' in place, which torchtv does not read");
      for (const json &o : field(sub, "outputs")) outs.push_back(isAbsentResult(o) ? nullptr : valueOf(tensorName(o)));
    } catch (...) {
      std::swap(outerMetas, metas_);
      std::swap(outerValues, values_);
      --inlineDepth_;
      throw;
    }
    std::swap(outerMetas, metas_);
    std::swap(outerValues, values_);
    --inlineDepth_;
    return outs;
  }

  // The call's results, in order, by the names its outputs give them: each must
  // be what the program records for that name.
  void bindResults(const json &node, const std::vector<Value *> &results) {
    std::vector<std::string> names = resultNames(node);
    if (names.size() > results.size())
      throw InputError("returns " + std::to_string(names.size()) + " results, its subgraph " + std::to_string(results.size()));
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) continue;
      if (!results[i]) throw InputError("result " + std::to_string(i) + " is None in the subgraph");
      const TensorType &want = metaOf(names[i]);
      if (results[i]->type != want)
        throw InputError("result '" + names[i] + "' is " + results[i]->type.str() + " in the subgraph but " +
                         want.str() + " in the program");
      values_[names[i]] = results[i];
    }
  }

  // The names of a node's results ("" for a None one), lists flattened.
  std::vector<std::string> resultNames(const json &node) const {
    std::vector<std::string> names;
    for (const json &out : field(node, "outputs")) {
      auto [tag, v] = tagOf(out);
      if (tag == "as_tensors")
        for (const json &t : *v) names.push_back(field(t, "name").get<std::string>());
      else names.push_back(isAbsentResult(out) ? "" : tensorName(out));
    }
    return names;
  }

  // map_impl(body, xs, args): result j is stack_i(body(xs[0][i], ..., args...)[j]).
  std::vector<Value *> mapSlices(const json &body, const json &node, const SourceLoc &loc) {
    const json &in = field(node, "inputs");
    auto list = [&](size_t i) {
      std::vector<Value *> out;
      for (const json &t : *tagOf(field(in.at(i), "arg")).second) out.push_back(valueOf(field(t, "name").get<std::string>()));
      return out;
    };
    std::vector<Value *> xs = list(1), extra = in.size() > 2 ? list(2) : std::vector<Value *>{};
    int64_t n = xs[0]->type.shape[0].size();
    std::vector<std::vector<Value *>> perResult;
    for (int64_t i = 0; i < n; ++i) {
      std::vector<Value *> operands;
      for (Value *x : xs) {
        if (x->type.shape.empty() || x->type.shape[0] != xs[0]->type.shape[0]) throw InputError("its xs differ in their first dim");
        operands.push_back(build("aten::select.int", {x}, {{"dim", int64_t{0}}, {"index", i}}, x->name + "_slice", loc));
      }
      operands.insert(operands.end(), extra.begin(), extra.end());
      std::vector<Value *> outs = inlineGraph(body, operands);
      perResult.resize(outs.size());
      for (size_t j = 0; j < outs.size(); ++j) {
        if (!outs[j]) throw InputError("its body returns None");
        perResult[j].push_back(outs[j]);
      }
    }
    std::vector<Value *> results;
    for (const auto &parts : perResult) results.push_back(build("aten::stack", parts, {{"dim", int64_t{0}}}, "mapped", loc));
    return results;
  }

  Value *build(const std::string &op, std::vector<Value *> inputs, AttributeMap attrs, const std::string &hint,
               const SourceLoc &loc) {
    NodeSpec spec{op, std::move(inputs), std::move(attrs), {g_.freshName(valueNameHint(hint))}, {}, loc};
    return buildNode(g_, ops_, spec)->outputs.at(0);
  }

  // Whether a cond's predicate is a value the program computes from constants
  // alone (a literal, ones/zeros/full): then it is known before the program runs.
  static std::optional<bool> knownTruth(const Value *v) {
    const Node *n = v ? v->producer : nullptr;
    std::optional<int64_t> count = v ? numel(v->type.shape) : std::nullopt;
    if (!n || count != 1) return std::nullopt;
    if (n->op == "aten::ones" || n->op == "aten::ones_like") return true;
    if (n->op == "aten::zeros" || n->op == "aten::zeros_like") return false;
    auto truth = [](const Attribute &a) -> std::optional<bool> {
      if (a.isScalar()) return a.asDouble() != 0;
      if (a.isInts() && a.asInts().size() == 1) return a.asInts()[0] != 0;
      if (a.isFloats() && a.asFloats().size() == 1) return a.asFloats()[0] != 0;
      return std::nullopt;
    };
    if (n->op == "aten::full" || n->op == "aten::full_like") return truth(n->attr("fill_value"));
    if (n->op == "aten::scalar_tensor") return truth(n->attr("s"));
    if (n->op == "prim::constant") return truth(n->attr("data"));
    return std::nullopt;
  }

  void opaqueCall(const json &node, const std::string &name, const std::vector<Value *> &operands, const SourceLoc &loc) {
    std::string op = "higher_order::" + name;
    if (!ops_.resolve(op)) ops_.declare(std::make_shared<const OpSchema>(parseSchema(op + "(Tensor[] operands, str program) -> Tensor[]")));
    json program = json::array();
    for (const json &in : field(node, "inputs")) {
      auto [tag, v] = tagOf(field(in, "arg"));
      if (tag != "as_tensor" && tag != "as_tensors") program.push_back(withoutMetadata(field(in, "arg")));
    }
    NodeSpec spec;
    spec.op = op;
    spec.loc = loc;
    spec.inputs = operands;
    spec.attrs["program"] = program.dump();
    std::vector<std::string> names = resultNames(node);
    for (const std::string &r : names) {
      if (r.empty()) throw InputError("a None result, which torchtv does not read here");
      spec.outputNames.push_back(g_.freshName(valueNameHint(r)));
      spec.declaredTypes.push_back(metaOf(r));
    }
    Node *n = buildNode(g_, ops_, spec);
    for (size_t i = 0; i < names.size(); ++i) values_[names[i]] = n->outputs.at(i);
  }

  static json withoutMetadata(const json &j) {
    if (j.is_array()) {
      json out = json::array();
      for (const json &e : j) out.push_back(withoutMetadata(e));
      return out;
    }
    if (!j.is_object()) return j;
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "metadata") out[it.key()] = withoutMetadata(it.value());
    return out;
  }

  // Note [Batch norm's running statistics]
  // _native_batch_norm_legit(input, weight, bias, running_mean, running_var,
  // training, momentum, eps) updates its running statistics in place (torch
  // 2.x's training graphs before functionalization); its _functional form
  // computes the same three results and returns the updated statistics as two
  // more. The reader imports the call as the _functional op with those two
  // results, typed as the statistics, and later reads of the statistics' names
  // (and a buffer_mutation output naming them) see the updated values, as for
  // an in-place op (Note [In-place ops in .pt2 programs]; unlike there, a view
  // of a statistic taken before the call is not checked for: running
  // statistics are buffers that programs do not view). `updates` names the
  // arguments whose new values are the results after the call's own.
  void importCall(const json &node, std::string op, const SourceLoc &loc, const InPlaceStep &step,
                  const std::vector<std::string> &updates = {}) {
    auto resolved = ops_.resolve(op);
    if (!resolved) throw InputError("op '" + op + "' is not in torchtv's op registry");
    json named = json::object();
    for (const json &in : field(node, "inputs")) named[field(in, "name").get<std::string>()] = field(in, "arg");
    const OpSchema *schema = resolved->schema.get();
    // Note [Wrapped numbers] (src/import/capture_json.cpp): a number in the
    // tensor slot of the op's scalar twin makes the node that twin.
    OpProps props = opProps(op);
    if (!props.scalarTwin.empty() && named.contains(props.scalarArg) && isNumberArg(named.at(props.scalarArg))) {
      op = props.scalarTwin;
      schema = lookupOp(op)->schema.get();
    }
    NodeSpec spec;
    spec.op = op;
    spec.loc = loc;
    std::vector<std::pair<size_t, Attribute>> numbers;  // operand position, the number
    for (const ArgSpec &a : schema->args) {
      if (!named.contains(a.name)) {
        if (a.kind == ArgKind::Tensor) spec.inputs.push_back(nullptr);
        continue;
      }
      const json &arg = named.at(a.name);
      if (a.kind == ArgKind::Tensor && isNumberArg(arg)) {
        // Note [Numbers in tensor slots] (ir/import_util.h); the
        // constant is made once the other operands are known.
        numbers.emplace_back(spec.inputs.size(), attributeOf(arg, a.name));
        spec.inputs.push_back(nullptr);
      } else if (a.kind == ArgKind::Tensor) {
        spec.inputs.push_back(tensorArg(arg));
      } else if (a.kind == ArgKind::TensorList) {
        auto [tag, list] = tagOf(arg);
        if (tag != "as_tensors" && tag != "as_optional_tensors")
          throw InputError("argument '" + a.name + "' is " + arg.dump());
        for (const json &t : *list)
          spec.inputs.push_back(tag == "as_tensors" ? valueOf(field(t, "name").get<std::string>()) : tensorArg(t));
      } else {
        spec.attrs[a.name] = attributeOf(arg, a.name);
      }
      named.erase(a.name);
    }
    if (!named.empty()) throw InputError("unknown argument '" + named.begin().key() + "'");
    for (const auto &[operand, number] : numbers) spec.inputs[operand] = wrappedNumberTensor(g_, ops_, number, spec.inputs, loc);
    std::vector<std::string> outNames;  // "" for an absent optional result
    for (const json &out : field(node, "outputs")) {
      auto [tag, list] = tagOf(out);
      if (tag == "as_tensors")  // a list of tensors: one output per element
        for (const json &t : *list) outNames.push_back(field(t, "name").get<std::string>());
      else if (isAbsentResult(out)) outNames.push_back("");
      else outNames.push_back(tensorName(out));
    }
    std::vector<size_t> absent;
    for (size_t i = 0; i < outNames.size(); ++i) {
      if (outNames[i].empty()) {
        absent.push_back(i);
        spec.outputNames.push_back(g_.freshName("absent"));
        continue;
      }
      auto update = updateNames_.find(outNames[i]);
      spec.outputNames.push_back(
          g_.freshName(update != updateNames_.end() ? update->second : valueNameHint(outNames[i])));
      spec.declaredTypes.push_back(metaOf(outNames[i]));
    }
    completeAbsentOutputs(spec, absent, outNames.size());
    std::vector<std::string> updated;  // the tensors `updates` names, in order
    for (const json &in : field(node, "inputs"))
      if (std::find(updates.begin(), updates.end(), field(in, "name").get<std::string>()) != updates.end())
        updated.push_back(tensorName(field(in, "arg")));
    if (updated.size() != updates.size()) throw InputError("expected tensors for the arguments it updates in place");
    for (const std::string &t : updated) {
      spec.outputNames.push_back(g_.freshName(valueNameHint(t) + "_updated"));
      spec.declaredTypes.push_back(metaOf(t));
    }
    Node *n = buildNode(g_, ops_, spec);
    for (size_t i = 0; i < outNames.size(); ++i)
      if (!outNames[i].empty()) values_[outNames[i]] = n->outputs.at(i);
    for (size_t i = 0; i < updated.size(); ++i) values_[updated[i]] = n->outputs.at(outNames.size() + i);
    for (const std::string &name : step.rebind) values_[name] = n->outputs.at(0);
  }

  bool isNumberArg(const json &arg) const {
    std::string tag = tagOf(arg).first;
    return tag == "as_int" || tag == "as_float" || tag == "as_bool";
  }

  Value *valueOf(const std::string &name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw InputError("uses '" + name + "' before it is defined");
    return it->second;
  }

  // Note [Absent optional outputs] (ir/import_util.h): a result the op
  // did not compute (convolution_backward's output_mask false) is as_none.
  bool isAbsentResult(const json &out) const {
    auto [tag, val] = tagOf(out);
    if (tag == "as_optional_tensor") return tagOf(*val).first == "as_none";
    return tag == "as_none";
  }

  Value *tensorArg(const json &arg) const {
    auto [tag, val] = tagOf(arg);
    if (tag == "as_none") return nullptr;
    if (tag == "as_tensor") return valueOf(field(*val, "name").get<std::string>());
    if (tag == "as_optional_tensor") return tensorArg(*val);
    throw InputError("expected a tensor argument, got " + arg.dump());
  }

  Attribute attributeOf(const json &arg, const std::string &name) const {
    auto [tag, v] = tagOf(arg);
    if (tag == "as_none") return NoneValue{};
    if (tag == "as_int") return v->get<int64_t>();
    // Note [torch.export enums]: schema.py's numbers are not c10's.
    auto enumArg = [&](auto map) -> Attribute {
      try {
        return map();
      } catch (const InputError &e) {
        throw InputError("argument '" + name + "': " + e.message());
      }
    };
    if (tag == "as_memory_format") return enumArg([&] { return pt2MemoryFormat(v->get<int64_t>()); });
    if (tag == "as_layout") return enumArg([&] { return pt2Layout(v->get<int64_t>()); });
    if (tag == "as_float") return floatOf(*v);
    if (tag == "as_bool") return v->get<bool>();
    if (tag == "as_string") return v->get<std::string>();
    if (tag == "as_ints") return v->get<std::vector<int64_t>>();
    if (tag == "as_floats") {
      std::vector<double> out;
      for (const json &f : *v) out.push_back(floatOf(f));
      return out;
    }
    if (tag == "as_bools") {
      std::vector<int64_t> out;
      for (const json &b : *v) out.push_back(b.get<bool>());
      return out;
    }
    if (tag == "as_scalar_type") {
      return enumArg([&] { return pt2ScalarType(v->get<int64_t>()); });
    }
    if (tag == "as_device") {
      std::optional<int64_t> index;
      if (v->contains("index") && !(*v)["index"].is_null()) index = (*v)["index"].get<int64_t>();
      return enumArg([&] { return pt2Device(field(*v, "type").get<std::string>(), index); });
    }
    if (tag == "as_sym_int" || tag == "as_sym_ints") {
      auto one = [&](const json &s) {
        if (!s.contains("as_int")) throw InputError("argument '" + name + "' is symbolic (" + s.dump() + "), not supported");
        return s["as_int"].get<int64_t>();
      };
      if (tag == "as_sym_int") return one(*v);
      std::vector<int64_t> out;
      for (const json &s : *v) out.push_back(one(s));
      return out;
    }
    throw InputError("argument '" + name + "' has an encoding torchtv does not read: " + arg.dump());
  }

  // Floats that JSON cannot spell arrive as strings.
  static double floatOf(const json &f) {
    if (f.is_number()) return f.get<double>();
    std::string s = f.is_string() ? f.get<std::string>() : "";
    if (s == "Infinity" || s == "inf") return INFINITY;
    if (s == "-Infinity" || s == "-inf") return -INFINITY;
    if (s == "NaN" || s == "nan") return std::nan("");
    throw InputError("not a float: " + f.dump());
  }

  // Note [pt2 input mutations]
  // A program that modifies an input in place (a user input, or a buffer such
  // as batch norm's running statistics) records the updated value as an output
  // of kind user_input_mutation or buffer_mutation (torch.export's
  // functionalization; those outputs come first). They become outputs
  // NAME__updated, NAME the input's name in this graph, after the user outputs
  // and in input order, as the Python capture makes them (Note [Input
  // mutations] in src/capture/torchtv_capture/export.py); the other graph of a
  // check gets them too (src/import/input_mutations.h).
  void bindOutputs(const json &graphOutputs, const json &specs) {
    if (graphOutputs.size() != specs.size()) fail("graph outputs and output_specs differ in length");
    std::map<const Value *, Value *> updates;  // input -> its updated value
    for (const json &spec : specs) {
      auto [kind, s] = tagOf(spec);
      if (kind == "user_output" && isAbsentResult(field(*s, "arg"))) {
        g_.addOutput(noneOutput(), "none" + std::to_string(g_.outputs().size()));
        continue;
      }
      std::string name = specTensorName(field(*s, "arg"));
      Value *input = nullptr;
      if (kind == "buffer_mutation") input = inputNamed(buffers_, field(*s, "buffer_name").get<std::string>(), name);
      else if (kind == "user_input_mutation")
        input = inputNamed(userInputs_, field(*s, "user_input_name").get<std::string>(), name);
      else if (kind != "user_output" && kind != "loss_output" && kind != "gradient_to_parameter" &&
               kind != "gradient_to_user_input")
        fail("output '" + name + "' is a " + kind + " output, which torchtv does not support");
      Value *v = nullptr;
      try {
        v = valueOf(name);
      } catch (const InputError &e) {
        fail("output " + e.message());
      }
      if (!input) {
        g_.addOutput(v);
        continue;
      }
      if (v->type != input->type)
        fail("output '" + name + "' updates '" + input->name + "' (" + input->type.str() + ") with a " + v->type.str());
      if (!updates.emplace(input, v).second) fail("input '" + input->name + "' is updated twice");
    }
    for (Value *in : g_.inputs())
      if (auto it = updates.find(in); it != updates.end()) g_.addOutput(it->second, in->name + kUpdatedSuffix);
  }

  // Note [None outputs of .pt2 programs]
  // A program may return None where a tensor could be (torch.autograd.grad's
  // allow_unused: no gradient for an input). Outputs pair by position, so the
  // None keeps its place, as a call of torchtv::none_output: two Nones are the
  // same value, and a None against a tensor is a difference of types.
  Value *noneOutput() {
    const std::string op = "torchtv::none_output";
    if (!ops_.resolve(op)) ops_.declare(std::make_shared<const OpSchema>(parseSchema(op + "() -> Tensor")));
    NodeSpec spec{op, {}, {}, {g_.freshName("none")}, {TensorType{DType::Bool, {}}}, {}};
    return buildNode(g_, ops_, spec)->outputs.at(0);
  }

  // The values that only update an input are named NAME__updated too, so that
  // `torchtv show` prints what they are (text keeps value names, not output names).
  void nameUpdates(const json &specs) {
    std::map<std::string, int> uses;
    std::map<std::string, std::string> wanted;
    for (const json &spec : specs) {
      auto [kind, s] = tagOf(spec);
      if (isAbsentResult(field(*s, "arg"))) continue;  // Note [None outputs of .pt2 programs]
      std::string name = specTensorName(field(*s, "arg"));
      ++uses[name];
      if (kind == "user_input_mutation" && s->contains("user_input_name")) {
        auto it = userInputs_.find((*s)["user_input_name"].get<std::string>());
        if (it != userInputs_.end()) wanted[name] = it->second->name + kUpdatedSuffix;
      } else if (kind == "buffer_mutation" && s->contains("buffer_name")) {
        auto it = buffers_.find((*s)["buffer_name"].get<std::string>());
        if (it != buffers_.end()) wanted[name] = it->second->name + kUpdatedSuffix;
      }
    }
    for (const auto &[tensor, name] : wanted)
      if (uses[tensor] == 1) updateNames_[tensor] = name;
  }

  // An output spec's `arg`: a TensorArgument ({"name": ...}: loss and mutation
  // outputs) or an Argument holding one ({"as_tensor": ...}: user outputs).
  std::string specTensorName(const json &arg) const {
    if (arg.is_object() && arg.contains("name") && arg["name"].is_string()) return arg["name"].get<std::string>();
    return tensorName(arg);
  }

  Value *inputNamed(const std::map<std::string, Value *> &inputs, const std::string &key, const std::string &output) const {
    auto it = inputs.find(key);
    if (it == inputs.end()) fail("output '" + output + "' updates '" + key + "', which is not an input of the program");
    return it->second;
  }

  const Pt2Archive &a_;
  Graph &g_;
  OpResolver ops_;
  json constants_;
  std::map<std::string, TensorType> metas_;
  std::map<std::string, Value *> values_;
  // Graph inputs by the names mutation outputs use: buffers by qualified name,
  // user inputs by placeholder name (Note [pt2 input mutations]).
  std::map<std::string, Value *> buffers_, userInputs_;
  std::map<std::string, std::string> updateNames_;  // tensor -> NAME__updated
  int inlineDepth_ = 0;  // subgraphs being inlined (Note [Higher-order ops in .pt2 programs])
  static constexpr int kMaxInlineDepth = 64;
  static inline const std::string kHigherOrderPrefix = "torch.ops.higher_order.";
};

}  // namespace

std::unique_ptr<Module> importExportedProgram(const Pt2Archive &archive, const std::vector<TensorType> *inputs) {
  auto m = std::make_unique<Module>();
  m->path = archive.path;
  auto g = std::make_unique<Graph>(valueNameHint(std::filesystem::path(archive.path).stem().string()));
  ProgramReader reader(archive, *g);
  try {
    reader.run(reader.parse(archive.modelJson, "the exported program"), inputs);
  } catch (const json::exception &e) {
    throw InputError(SourcePos{archive.path}, std::string("malformed ExportedProgram: ") + e.what());
  }
  m->graphs.push_back(std::move(g));
  return m;
}

}  // namespace torchtv
