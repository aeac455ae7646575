// TorchScript -> IR, inside the LibTorch module (Note [LibTorch module]). The
// only translation unit that includes LibTorch's JIT headers (~20 s each to compile).
#include "src/torch/torch_impl.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>

#include "ir/capture_evidence.h"
#include "ir/op_registry.h"
#include "ir/import_util.h"
#include "src/torch/functionalize.h"
#include "src/torch/torch_dtype.h"

namespace torchtv {

namespace {

namespace jit = torch::jit;
using torch_impl::Functionalized;
using torch_impl::functionalize;
using torch_impl::inPlaceOpLeft;

// The user's source line: the range in the original Python that generated the
// node (kept in the file's debug tables), else the range in the saved code.
SourceLoc locOf(const jit::Node *n) {
  auto original = n->sourceRange().findSourceRangeThatGenerated();
  auto flc = (original ? *original : n->sourceRange()).file_line_col();
  if (!flc) return {};
  return SourceLoc{std::get<0>(*flc), static_cast<int>(std::get<1>(*flc))};
}

// Note [TorchScript parameters are inputs]
// The graph is frozen with parameters preserved, so weights stay
// prim::GetAttr chains from `self` instead of becoming literal constants.
// Each chain is resolved to its qualified name and becomes a graph input, as
// torch.export lifts parameters: the same model imported from either format
// then has the same inputs in the same order (parameters first, in module
// order, then the forward arguments). Non-parameter tensor attributes
// (buffers, plain tensors) are folded by freezing and become prim::constant.
class Importer {
public:
  Importer(std::string path, Graph &g, const CustomOps *custom) : path_(std::move(path)), g_(g), custom_(custom) {
    if (custom)
      for (const auto &schema : custom->schemas) ops_.declare(schema);
  }

  void run(jit::Graph &jg, const std::vector<TensorType> &inputTypes) {
    jit::Inline(jg);
    bindInputs(jg, inputTypes);
    // Control flow first: its condition's ops would otherwise hide the cause.
    for (jit::Node *n : jg.nodes())
      if (n->kind() == c10::prim::If || n->kind() == c10::prim::Loop)
        fail(n, "control flow is not supported (make the branch static, or trace the model)");
    Functionalized fz = functionalize(jg);
    if (auto left = inPlaceOpLeft(jg, fz))
      fail(left->first, "modifies a tensor in place that torchtv cannot make functional exactly: " + left->second +
                            " (Note [TorchScript in-place ops]); write the out-of-place op, or capture the Python "
                            "function with torchtv capture");
    replaced_ = std::move(fz.replaced);
    resized_ = std::move(fz.resized);
    for (auto [in, out] : fz.inputUpdates) {
      // Named for what it is, where it only is the update (`torchtv show` prints value names).
      jit::Value *u = jg.outputs()[out];
      if (u->uses().size() == 1 && u->node()->kind() != c10::prim::Param)
        u->setDebugName(tensors_.at(jg.inputs()[in])->name + kUpdatedSuffix);
    }
    for (jit::Node *n : jg.nodes()) importNode(n);
    for (size_t k = 0; k < fz.userOutputs; ++k) {
      jit::Value *out = jg.outputs()[k];
      if (out->node()->kind() == c10::prim::TupleConstruct) {
        for (jit::Value *e : out->node()->inputs()) g_.addOutput(returned(e));
      } else {
        g_.addOutput(returned(out));
      }
    }
    // Inputs modified in place (Note [Input mutations in graph files]).
    for (auto [in, out] : fz.inputUpdates)
      g_.addOutput(returned(jg.outputs()[out]), tensors_.at(jg.inputs()[in])->name + kUpdatedSuffix);
  }

  void addParameter(const std::string &fqn, const at::Tensor &t) {
    params_[fqn] = g_.addInput(fqn, typeOf(t, fqn));
  }

private:
  [[noreturn]] void fail(const jit::Node *n, const std::string &message) const {
    throw nodeError(path_, n->kind().toQualString(), locOf(n), message);
  }

  TensorType typeOf(const at::Tensor &t, const std::string &what) const {
    auto dtype = fromTorchDType(t.scalar_type());
    if (!dtype)
      throw InputError(SourcePos{path_}, "'" + what + "' has dtype " + std::string(c10::toString(t.scalar_type())) +
                                             ", which torchtv does not support");
    TensorType type{*dtype, {}};
    for (int64_t s : t.sizes()) type.shape.push_back(s);
    return type;
  }

  void bindInputs(jit::Graph &jg, const std::vector<TensorType> &types) {
    auto ins = jg.inputs();
    if (ins.empty()) throw InputError(SourcePos{path_}, "forward has no `self` argument");
    paths_[ins[0]] = "";
    std::string names;
    for (size_t i = 1; i < ins.size(); ++i) names += (i > 1 ? ", " : "") + valueNameHint(ins[i]->debugName());
    if (ins.size() - 1 != types.size())
      throw InputError(SourcePos{path_}, "forward takes " + std::to_string(ins.size() - 1) + " input(s) (" + names +
                                             ") but --inputs gives " + std::to_string(types.size()));
    for (size_t i = 1; i < ins.size(); ++i) {
      if (ins[i]->type()->kind() != c10::TypeKind::TensorType)
        throw InputError(SourcePos{path_}, "forward argument '" + valueNameHint(ins[i]->debugName()) +
                                               "' has type " + ins[i]->type()->str() + "; only tensors are supported");
      tensors_[ins[i]] = g_.addInput(g_.freshName(valueNameHint(ins[i]->debugName())), types[i - 1]);
    }
  }

  void importNode(jit::Node *n) {
    auto kind = n->kind();
    if (kind == c10::prim::Constant || kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct ||
        (kind == c10::aten::size && n->inputs().size() == 1))
      return;  // read where they are used
    if (kind == c10::prim::GetAttr) return getAttr(n);
    if (kind == c10::prim::TupleUnpack || kind == c10::prim::ListUnpack) {
      jit::Node *src = n->input()->node();
      if ((src->kind() != c10::prim::TupleConstruct && src->kind() != c10::prim::ListConstruct) ||
          src->inputs().size() != n->outputs().size())
        fail(n, "unpacks a value that is not a literal tuple or list");
      for (size_t i = 0; i < n->outputs().size(); ++i) alias_[n->outputs()[i]] = src->inputs()[i];
      return;
    }
    const c10::FunctionSchema *schema = n->maybeSchema();
    if (!schema) fail(n, "has no operator schema (unsupported TorchScript construct)");
    std::string op = canonicalOpName(schema->name(), schema->overload_name());
    auto resolved = ops_.resolve(op);
    if (!resolved) fail(n, "op '" + op + "' is not in torchtv's op registry");
    const OpSchema &ours = *resolved->schema;
    if (schema->arguments().size() != n->inputs().size())
      fail(n, "has " + std::to_string(n->inputs().size()) + " inputs, its schema " + std::to_string(schema->arguments().size()));

    NodeSpec spec;
    spec.op = op;
    spec.loc = locOf(n);
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const std::string &argName = schema->arguments()[i].name();
      const ArgSpec *arg = ours.findArg(argName);
      if (!arg) fail(n, "argument '" + argName + "' is not in the registry's schema " + ours.text);
      jit::Value *in = resolve(n->inputs()[i]);
      if (arg->kind == ArgKind::Tensor) {
        spec.inputs.push_back(tensorOperand(in, argName));
      } else if (arg->kind == ArgKind::TensorList) {
        if (in->node()->kind() != c10::prim::ListConstruct) fail(n, "argument '" + argName + "' is not a literal list");
        for (jit::Value *e : in->node()->inputs()) spec.inputs.push_back(tensorOperand(e, argName));
      } else {
        std::optional<c10::IValue> c = constant(in);
        if (!c) fail(n, "argument '" + argName + "' is not a constant");
        spec.attrs[argName] = attributeOf(n, *arg, *c);
      }
    }
    for (jit::Value *out : n->outputs()) spec.outputNames.push_back(g_.freshName(valueNameHint(out->debugName())));
    if (!resolved->builtin) spec.declaredTypes = customResultTypes(n, spec);
    else if (!lookupOp(op)->hasShapeRule()) spec.declaredTypes = typesByRunning(n, *schema, ours, spec);
    Node *node;
    try {
      node = buildNode(g_, ops_, spec);
    } catch (const InputError &e) {
      fail(n, e.message());
    }
    for (size_t i = 0; i < n->outputs().size(); ++i) tensors_[n->outputs()[i]] = node->outputs.at(i);
    if (auto it = replaced_.find(n); it != replaced_.end()) {
      // In place, the result is stored into the modified tensor: its dtype and
      // shape (an out= tensor of the function's own is resized to the result).
      const TensorType &kept = tensors_.at(resolve(const_cast<jit::Value *>(it->second)))->type;
      const TensorType &result = node->outputs.at(0)->type;
      bool fits = resized_.count(n) ? result.dtype == kept.dtype : result == kept;
      if (!fits)
        fail(n, "is in place in the code, where its result " + result.str() + " is stored into a " + kept.str() +
                " (a conversion torchtv does not read; Note [TorchScript in-place ops])");
    }
  }

  // Note [Result types by running the op]
  // A TorchScript graph records no result types, and an op of the registry
  // without a shape rule (Note [Declared ops] in ir/op_registry.cpp) has none of
  // its own: its results' types come from running the op through LibTorch on
  // meta tensors of its operands' types (no data, no memory), as torch's own
  // shape propagation does, with the node's constant arguments. An op LibTorch
  // cannot run on meta tensors is refused with LibTorch's reason.
  std::vector<TensorType> typesByRunning(jit::Node *n, const c10::FunctionSchema &schema, const OpSchema &ours,
                                         const NodeSpec &spec) {
    auto meta = [&](const Value *v) -> at::Tensor {
      std::vector<int64_t> sizes;
      for (const Dim &d : v->type.shape) {
        if (!d.isConcrete()) fail(n, "has no shape rule in torchtv, and its operand %" + v->name + " has a symbolic shape");
        sizes.push_back(d.size());
      }
      return at::empty(sizes, at::TensorOptions().dtype(toTorchDType(v->type.dtype)).device(at::kMeta));
    };
    torch::jit::Stack stack;
    size_t next = 0;
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
      const ArgSpec *arg = ours.findArg(schema.arguments()[i].name());
      if (arg->kind == ArgKind::Tensor) {
        const Value *v = spec.inputs.at(next++);
        stack.push_back(v ? c10::IValue(meta(v)) : c10::IValue());
      } else if (arg->kind == ArgKind::TensorList) {
        std::vector<at::Tensor> list;
        for (size_t k = 0; k < n->inputs()[i]->node()->inputs().size(); ++k) list.push_back(meta(spec.inputs.at(next++)));
        stack.push_back(list);
      } else {
        stack.push_back(*constant(n->inputs()[i]));
      }
    }
    try {
      n->getOperation()(stack);
    } catch (const c10::Error &e) {
      const std::string why = e.what_without_backtrace();
      fail(n, "op '" + spec.op + "' has no shape rule in torchtv, and LibTorch cannot run it on meta tensors to find its "
              "result types (" + torch_impl::firstLine(why) + "); capture the program as JSON (torchtv capture) "
              "or export it to .pt2, which carry them");
    }
    std::vector<TensorType> types;
    for (const c10::IValue &r : stack) {
      if (r.isTensor()) types.push_back(typeOf(r.toTensor(), "result of " + spec.op));
      else if (r.isTensorList())
        for (const at::Tensor &t : r.toTensorVector()) types.push_back(typeOf(t, "result of " + spec.op));
      else fail(n, "op '" + spec.op + "' has no shape rule in torchtv and returns a " + r.tagKind());
    }
    return types;
  }

  // Note [Custom ops in TorchScript files] (src/torch/torchscript.h): from the
  // op's definition, built for this call's operands.
  std::vector<TensorType> customResultTypes(jit::Node *n, const NodeSpec &spec) {
    std::vector<const TensorType *> operands;
    for (const Value *v : spec.inputs) operands.push_back(v ? &v->type : nullptr);
    try {
      return custom_->resultTypes(spec.op, operands, spec.attrs);
    } catch (const InputError &e) {
      fail(n, e.message());
    }
  }

  void getAttr(jit::Node *n) {
    auto it = paths_.find(resolve(n->input()));
    if (it == paths_.end()) fail(n, "attribute of something that is not a submodule");
    std::string fqn = it->second.empty() ? n->s(c10::attr::name) : it->second + "." + n->s(c10::attr::name);
    if (n->output()->type()->kind() == c10::TypeKind::ClassType) {
      paths_[n->output()] = fqn;
      return;
    }
    auto p = params_.find(fqn);
    if (p == params_.end()) fail(n, "attribute '" + fqn + "' is not a parameter and was not folded by freezing");
    tensors_[n->output()] = p->second;
  }

  jit::Value *resolve(jit::Value *v) const {
    for (auto it = alias_.find(v); it != alias_.end(); it = alias_.find(v)) v = it->second;
    return v;
  }

  // A constant, or a literal list of constants.
  // aten::size(t) of a tensor of concrete shape, which the functionalization
  // writes (Note [TorchScript in-place ops through views]): its value is known.
  std::optional<std::vector<int64_t>> sizeOf(jit::Value *v) const {
    jit::Node *n = v->node();
    if (n->kind() != c10::aten::size || n->inputs().size() != 1) return std::nullopt;
    auto t = tensors_.find(resolve(n->input()));
    if (t == tensors_.end()) return std::nullopt;
    std::vector<int64_t> sizes;
    for (const Dim &d : t->second->type.shape) {
      if (!d.isConcrete()) return std::nullopt;
      sizes.push_back(d.size());
    }
    return sizes;
  }

  std::optional<c10::IValue> constant(jit::Value *v) const {
    v = resolve(v);
    if (v->node()->kind() == c10::prim::Constant) return jit::toIValue(v);
    if (auto size = sizeOf(v)) return c10::IValue(*size);
    if (v->node()->kind() != c10::prim::ListConstruct) return std::nullopt;
    std::vector<c10::IValue> elems;
    for (jit::Value *e : v->node()->inputs()) {
      auto c = constant(e);
      if (!c) return std::nullopt;
      elems.push_back(*c);
    }
    if (std::all_of(elems.begin(), elems.end(), [](const c10::IValue &e) { return e.isInt(); })) {
      std::vector<int64_t> ints;
      for (auto &e : elems) ints.push_back(e.toInt());
      return c10::IValue(ints);
    }
    if (std::all_of(elems.begin(), elems.end(), [](const c10::IValue &e) { return e.isDouble(); })) {
      std::vector<double> ds;
      for (auto &e : elems) ds.push_back(e.toDouble());
      return c10::IValue(ds);
    }
    return std::nullopt;
  }

  Attribute attributeOf(const jit::Node *n, const ArgSpec &arg, const c10::IValue &c) const {
    if (c.isNone()) return NoneValue{};
    if (arg.kind == ArgKind::ScalarType && c.isInt()) {
      auto d = fromTorchDType(static_cast<c10::ScalarType>(c.toInt()));
      if (!d) fail(n, "argument '" + arg.name + "' names a dtype torchtv does not support");
      return *d;
    }
    if (c.isBool()) return c.toBool();
    if (c.isInt()) return c.toInt();
    if (c.isDouble()) return c.toDouble();
    if (c.isString()) return c.toStringRef();
    if (c.isDevice()) return c.toDevice().str();
    if (c.isIntList()) return c.toIntVector();
    if (c.isDoubleList()) return c.toDoubleVector();
    if (c.isBoolList()) {
      std::vector<int64_t> v;
      for (bool b : c.toBoolList()) v.push_back(b);
      return v;
    }
    fail(n, "argument '" + arg.name + "' has a constant of type " + c.tagKind() + " torchtv cannot represent");
  }

  // A graph output: a tensor, never None (tensorOperand's absent optional
  // operand). fuzz_torchscript found `return (None)` crashing here.
  Value *returned(jit::Value *v) {
    Value *t = tensorOperand(v, "return");
    if (!t) fail(resolve(v)->node(), "returns None; a graph output must be a tensor");
    return t;
  }

  Value *tensorOperand(jit::Value *v, const std::string &argName) {
    v = resolve(v);
    if (auto it = tensors_.find(v); it != tensors_.end()) return it->second;
    jit::Node *src = v->node();
    if (src->kind() == c10::prim::Constant) {
      c10::IValue c = *jit::toIValue(v);
      if (c.isNone()) return nullptr;
      if (c.isTensor()) return tensors_[v] = constantTensor(src, c.toTensor());
    }
    fail(src, "value '" + v->debugName() + "' used as tensor '" + argName + "' is not a tensor this importer knows");
  }

  Value *constantTensor(const jit::Node *n, const at::Tensor &t) {
    TensorType type = typeOf(t, "tensor constant");
    at::Tensor flat = t.contiguous().reshape({-1});
    Attribute data;
    if (isFloating(type.dtype)) {
      at::Tensor d = flat.to(at::kDouble);
      data = std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    } else {
      at::Tensor d = flat.to(at::kLong);
      data = std::vector<int64_t>(d.data_ptr<int64_t>(), d.data_ptr<int64_t>() + d.numel());
    }
    try {
      return addConstantTensor(g_, ops_, type, std::move(data), "c", locOf(n));
    } catch (const InputError &e) {
      fail(n, e.message());
    }
  }

  std::string path_;
  Graph &g_;
  const CustomOps *custom_;
  OpResolver ops_;  // the registry's ops and the custom ones
  std::map<std::string, Value *> params_;
  std::map<const jit::Value *, Value *> tensors_;
  std::map<const jit::Value *, std::string> paths_;  // submodule values -> qualified name
  std::map<const jit::Value *, jit::Value *> alias_;  // unpacked tuple elements
  std::map<const jit::Node *, const jit::Value *> replaced_;  // Note [TorchScript in-place ops]
  std::set<const jit::Node *> resized_;
};

// Runs `body` (which fills the graph through an Importer) and wraps the result;
// LibTorch's own errors become InputErrors naming the file.
template <class F>
std::unique_ptr<Module> importWith(const std::string &path, const CustomOps *custom, F &&body) {
  auto m = std::make_unique<Module>();
  m->path = path;
  auto g = std::make_unique<Graph>(valueNameHint(std::filesystem::path(path).stem().string()));
  Importer importer(path, *g, custom);
  try {
    body(importer);
  } catch (const c10::Error &e) {
    throw InputError(SourcePos{path}, "LibTorch failed on this module: " + torch_impl::firstLine(e.what_without_backtrace()));
  }
  m->graphs.push_back(std::move(g));
  return m;
}

// Note [Custom ops in TorchScript files]: the ops torchtv declared to
// LibTorch, for the life of the process (the dispatcher keeps a schema while
// its registration handle lives).
struct DeclaredOps {
  std::mutex mutex;
  std::set<std::string> names;
  std::vector<c10::RegistrationHandleRAII> handles;
};
DeclaredOps &declaredOps() {
  static DeclaredOps *ops = new DeclaredOps;  // never destroyed: LibTorch's own statics may outlive it
  return *ops;
}

// Registers each custom schema LibTorch does not know yet (an op it knows,
// e.g. one a loaded library defines, keeps its own definition).
void declareToLibTorch(const std::string &path, const CustomOps &custom) {
  DeclaredOps &declared = declaredOps();
  std::lock_guard<std::mutex> lock(declared.mutex);
  for (const auto &schema : custom.schemas) {
    if (declared.names.count(schema->name)) continue;
    c10::FunctionSchema parsed = [&] {
      try {
        return jit::parseSchema(schema->text);
      } catch (const std::exception &e) {
        throw InputError(SourcePos{path}, "LibTorch cannot read the declaration of custom op " + schema->name +
                                              " from --fusions: " + torch_impl::firstLine(e.what()));
      }
    }();
    if (c10::Dispatcher::singleton().findSchema(parsed.operator_name())) continue;
    // Declared without alias annotations, the op is a pure function (as its definition is).
    parsed.setAliasAnalysis(c10::AliasAnalysisKind::FROM_SCHEMA);
    declared.handles.push_back(c10::Dispatcher::singleton().registerDef(std::move(parsed), "torchtv --fusions"));
    declared.names.insert(schema->name);
  }
}

}  // namespace

namespace torch_impl {

bool declaredWithoutKernel(const std::string &op) {
  DeclaredOps &declared = declaredOps();
  std::lock_guard<std::mutex> lock(declared.mutex);
  return declared.names.count(op) > 0;
}

std::string firstLine(const std::string &message) {
  size_t b = message.find_first_not_of("\n ");
  return b == std::string::npos ? "" : message.substr(b, message.find('\n', b) - b);
}

std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs,
                                          const CustomOps *custom) {
  if (custom) declareToLibTorch(path, *custom);
  auto unreadable = [&](const std::string &message) {
    std::string why = firstLine(message);
    if (why.rfind("Unknown builtin op: ", 0) == 0 && why.find("aten::") == std::string::npos)
      why += " (a custom op: declare it with `op NS::NAME(...) -> ...` and define it in a folder given with "
             "--fusions DIR; Note [Custom ops in TorchScript files])";
    return InputError(SourcePos{path}, "not a readable TorchScript file: " + why);
  };
  jit::Module module;
  try {
    module = jit::load(path);
  } catch (const c10::Error &e) {
    throw unreadable(e.what_without_backtrace());
  } catch (const std::exception &e) {
    throw unreadable(e.what());
  }
  return importWith(path, custom, [&](Importer &importer) {
    module.eval();
    for (const auto &p : module.named_parameters(/*recurse=*/true)) importer.addParameter(p.name, p.value);
    jit::Module frozen = jit::freeze_module(module, {}, /*freezeInterfaces=*/true, /*preserveParameters=*/true);
    importer.run(*frozen.get_method("forward").graph(), inputs);
  });
}

std::unique_ptr<Module> importTorchScriptGraph(jit::Graph &graph, const std::string &path,
                                               const std::vector<TensorType> &inputs) {
  return importWith(path, nullptr, [&](Importer &importer) { importer.run(graph, inputs); });
}

}  // namespace torch_impl
}  // namespace torchtv
