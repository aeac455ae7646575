// Concrete replay (src/torch/replay.h), inside the LibTorch module (Note [LibTorch module]).
#include <map>

#include "src/torch/torch_impl.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "src/torch/torch_dtype.h"

namespace torchtv {

namespace {

at::Tensor toTorch(const ConcreteTensor &c) {
  std::vector<int64_t> sizes;
  for (const Dim &d : c.type.shape) {
    if (!d.isConcrete()) throw ReplayError("replay needs concrete shapes, got " + c.type.str());
    sizes.push_back(d.size());
  }
  // A complex tensor's values are its pair tensor's (Note [Complex values as pairs of reals]).
  bool complex = isComplex(c.type.dtype);
  if (complex) sizes.push_back(2);  // (toTorch of a complex constant; complex inputs are refused)
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (static_cast<int64_t>(c.values.size()) != n)
    throw ReplayError("a tensor of type " + c.type.str() + " needs " + std::to_string(n) + " values, got " +
                      std::to_string(c.values.size()));
  if (c.type.dtype == DType::U64) throw ReplayOpMissing("LibTorch 1.13 has no uint64 (Note [Storage-only dtypes])");
  at::Tensor t = at::empty({n}, at::TensorOptions().dtype(at::kDouble));
  std::copy(c.values.begin(), c.values.end(), t.data_ptr<double>());
  if (complex) return at::view_as_complex(t.to(toTorchDType(componentOf(c.type.dtype))).reshape(sizes)).contiguous();
  return t.to(toTorchDType(c.type.dtype)).reshape(sizes).contiguous();
}

ConcreteTensor fromTorch(const at::Tensor &t, const std::string &what) {
  if (t.is_complex()) return fromTorch(at::view_as_real(t.resolve_conj()), what);  // its pair tensor
  auto dtype = fromTorchDType(t.scalar_type());
  if (!dtype) throw ReplayError(what + " has dtype " + std::string(c10::toString(t.scalar_type())));
  ConcreteTensor c{{*dtype, {}}, {}};
  for (int64_t s : t.sizes()) c.type.shape.push_back(s);
  at::Tensor d = t.to(at::kDouble).contiguous();
  c.values.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
  return c;
}

// Note [Scalar kinds in replay]
// An int attribute passed for a Scalar stays an int Scalar and a float stays a
// float: `add(x_int, 2)` and `add(x_int, 2.0)` differ in result dtype.
c10::IValue toIValue(const Attribute &a, const ArgSpec &arg) {
  if (a.isNone()) return c10::IValue();
  switch (arg.kind) {
  case ArgKind::Scalar:
    if (a.isBool()) return at::Scalar(a.asBool());
    if (a.isInt()) return at::Scalar(a.asInt());
    return at::Scalar(a.asFloat());
  case ArgKind::ScalarType:
    return toTorchDType(a.asDType());
  case ArgKind::Device:
    return a.isString() ? c10::IValue(c10::Device(a.asString())) : c10::IValue(a.asInt());
  // Captures spell layouts and memory formats by name ("strided",
  // "preserve_format"); the dispatcher takes them as enum values.
  case ArgKind::Layout:
    if (!a.isString()) return a.asInt();
    if (a.asString() == "strided") return static_cast<int64_t>(at::kStrided);
    throw ReplayOpMissing("cannot replay layout " + a.str());
  case ArgKind::MemoryFormat: {
    if (!a.isString()) return a.asInt();
    static const std::map<std::string, at::MemoryFormat> formats{
        {"contiguous_format", at::MemoryFormat::Contiguous},
        {"preserve_format", at::MemoryFormat::Preserve},
        {"channels_last", at::MemoryFormat::ChannelsLast},
        {"channels_last_3d", at::MemoryFormat::ChannelsLast3d}};
    auto it = formats.find(a.asString());
    if (it == formats.end()) throw ReplayOpMissing("cannot replay memory format " + a.str());
    return static_cast<int64_t>(it->second);
  }
  case ArgKind::BoolList: {
    c10::List<bool> l;
    for (int64_t v : a.asInts()) l.push_back(v != 0);
    return l;
  }
  case ArgKind::FloatList:
    return a.isFloats() ? c10::IValue(a.asFloats())
                        : c10::IValue(std::vector<double>(a.asInts().begin(), a.asInts().end()));
  default:
    break;
  }
  if (a.isBool()) return a.asBool();
  if (a.isInt()) return a.asInt();
  if (a.isFloat()) return a.asFloat();
  if (a.isString()) return a.asString();
  if (a.isInts()) return a.asInts();
  if (a.isFloats()) return a.asFloats();
  if (a.isDType()) return toTorchDType(a.asDType());
  throw ReplayOpMissing("cannot pass attribute " + a.str());
}

at::Tensor constantTensor(const Node &n) {
  const TensorType &type = n.output()->type;
  const Attribute &data = n.attr("data");
  ConcreteTensor c{type, {}};
  if (data.isFloats()) c.values = data.asFloats();
  else c.values.assign(data.asInts().begin(), data.asInts().end());
  return toTorch(c);
}

// The dispatcher's handle of `op` ("aten::name.overload").
c10::optional<c10::OperatorHandle> findOp(const std::string &op) {
  std::string name = op, overload;
  size_t dot = name.find('.', name.find("::"));
  if (dot != std::string::npos) {
    overload = name.substr(dot + 1);
    name.resize(dot);
  }
  return c10::Dispatcher::singleton().findSchema({name, overload});
}

std::vector<at::Tensor> callOp(const Node &n, const std::vector<at::Tensor *> &operands) {
  auto handle = findOp(n.op);
  if (!handle || torch_impl::declaredWithoutKernel(n.op))
    throw ReplayOpMissing(n.op + ": a custom op without a kernel in LibTorch (custom ops cannot be replayed)");
  const c10::FunctionSchema &schema = handle->schema();
  // Note [Operands of a tensor list]: which argument each operand belongs to.
  std::vector<const ArgSpec *> operandArgs = n.schema->operandArgs(operands.size());
  torch::jit::Stack stack;
  size_t next = 0;
  for (const c10::Argument &targ : schema.arguments()) {
    const ArgSpec *arg = n.schema->findArg(targ.name());
    if (!arg) {
      if (!targ.default_value()) throw ReplayOpMissing(n.op + ": LibTorch's schema has an argument '" + targ.name() + "' the IR lacks");
      stack.push_back(*targ.default_value());
    } else if (arg->kind == ArgKind::Tensor) {
      at::Tensor *t = operands.at(next++);
      stack.push_back(t ? c10::IValue(*t) : c10::IValue());
    } else if (arg->kind == ArgKind::TensorList) {
      if (arg->elementsOptional) {  // Tensor?[] (index_put's indices): elements may be None
        c10::List<c10::optional<at::Tensor>> list;
        for (; next < operands.size() && operandArgs[next] == arg; ++next)
          list.push_back(operands[next] ? c10::optional<at::Tensor>(*operands[next]) : c10::nullopt);
        stack.push_back(list);
      } else {
        std::vector<at::Tensor> list;
        for (; next < operands.size() && operandArgs[next] == arg; ++next) list.push_back(*operands[next]);
        stack.push_back(list);
      }
    } else {
      stack.push_back(toIValue(n.attr(arg->name), *arg));
    }
  }
  handle->callBoxed(stack);
  std::vector<at::Tensor> outs;
  for (const c10::IValue &v : stack) {
    if (v.isTensorList()) {  // split, unbind: one IR output per element
      for (const at::Tensor &t : v.toTensorVector()) outs.push_back(t);
      continue;
    }
    // A Scalar result (_local_scalar_dense, Tensor.item()) is a 0-dim tensor in the IR.
    if (v.isScalar() && outs.size() < n.outputs.size()) {
      outs.push_back(at::scalar_tensor(v.toScalar(), at::TensorOptions().dtype(toTorchDType(n.outputs[outs.size()]->type.dtype))));
      continue;
    }
    if (!v.isTensor()) throw ReplayError(n.op + ": returned a non-tensor " + v.tagKind());
    outs.push_back(v.toTensor());
  }
  return outs;
}

}  // namespace

namespace torch_impl {

bool canReplay(const OpSchema &s) {
  if (s.name == "prim::constant") return true;  // built directly
  if (declaredWithoutKernel(s.name)) return false;
  auto handle = findOp(s.name);
  if (!handle) return false;
  for (const c10::Argument &a : handle->schema().arguments())
    if (!s.findArg(a.name()) && !a.default_value()) return false;
  return true;
}

void setThreads(int n) { at::set_num_threads(n); }

std::vector<ConcreteTensor> replayGraph(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                        std::map<const Value *, ConcreteTensor> *trace, const ReplayObserver *observer) {
  if (inputs.size() != g.inputs().size())
    throw ReplayError("graph @" + g.name() + " takes " + std::to_string(g.inputs().size()) + " inputs, got " +
                      std::to_string(inputs.size()));
  at::NoGradGuard noGrad;
  std::map<const Value *, at::Tensor> vals;
  std::map<std::string, int64_t> symbols;
  // The IR's declared type is the contract: a concrete tensor must fit it, with
  // each symbol bound to one size throughout.
  auto check = [&](const Value *v, const ConcreteTensor &c, const std::string &what) {
    TensorType type = v->type;
    if (isComplex(type.dtype)) {  // held as its pair tensor (fromTorch)
      type.dtype = componentOf(type.dtype);
      type.shape.push_back(2);
    }
    bool ok = c.type.dtype == type.dtype && c.type.rank() == type.rank();
    for (size_t i = 0; ok && i < type.shape.size(); ++i) {
      const Dim &want = type.shape[i];
      int64_t have = c.type.shape[i].isConcrete() ? c.type.shape[i].size() : -1;
      if (want.isConcrete()) ok = want.size() == have;
      else ok = symbols.emplace(want.symbolName(), have).first->second == have;
    }
    if (!ok) throw ReplayError(what + " has type " + c.type.str() + ", the graph says " + v->type.str());
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value *v = g.inputs()[i];
    if (isComplex(v->type.dtype)) throw ReplayError("input %" + v->name + " is complex: complex inputs are not replayed");
    check(v, inputs[i], "input %" + v->name);
    vals[v] = toTorch(inputs[i]);
    if (trace) (*trace)[v] = inputs[i];
  }
  for (const auto &node : g.nodes()) {
    const Node &n = *node;
    std::vector<at::Tensor> outs;
    if (observer) (*observer)(g, n);
    try {
      if (n.op == "prim::constant") {
        outs.push_back(constantTensor(n));
      } else {
        std::vector<at::Tensor *> operands;
        for (Value *in : n.inputs) operands.push_back(in ? &vals.at(in) : nullptr);
        outs = callOp(n, operands);
      }
    } catch (const c10::Error &e) {
      throw ReplayKernelRaised(n.op + " (result %" + n.outputs.at(0)->name + "): LibTorch failed: " +
                        torch_impl::firstLine(e.what_without_backtrace()));
    }
    if (outs.size() != n.outputs.size())
      throw ReplayError(n.op + ": returned " + std::to_string(outs.size()) + " tensors, the IR has " +
                        std::to_string(n.outputs.size()));
    for (size_t i = 0; i < outs.size(); ++i) {
      const Value *v = n.outputs[i];
      ConcreteTensor c = fromTorch(outs[i], "%" + v->name);
      check(v, c, n.op + " result %" + v->name);
      vals[v] = outs[i];
      if (trace) (*trace)[v] = std::move(c);
    }
  }
  std::vector<ConcreteTensor> results;
  for (const Value *v : g.outputs()) {
    if (trace && trace->count(v)) results.push_back(trace->at(v));
    else results.push_back(fromTorch(vals.at(v), "output %" + v->name));
  }
  return results;
}

}  // namespace torch_impl
}  // namespace torchtv
