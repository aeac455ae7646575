#include "ir/builder.h"

#include <algorithm>

#include "ir/diagnostic.h"
#include "ir/limits.h"
#include "ir/op_registry.h"

namespace torchtv {

std::optional<OpResolver::Resolved> OpResolver::resolve(const std::string &op) const {
  if (const OpInfo *info = lookupOp(op)) return Resolved{info->schema, true};
  auto it = custom_.find(op);
  if (it != custom_.end()) return Resolved{it->second, false};
  return std::nullopt;
}

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &message) {
  throw InputError(op + ": " + message);
}

// Brings an attribute to the canonical form for its argument kind (ints given
// for a float become floats, a single int for an int list becomes a list), or
// fails when the kinds do not fit.
Attribute coerce(const std::string &op, const ArgSpec &arg, Attribute a) {
  auto bad = [&]() -> Attribute {
    fail(op, "argument '" + arg.name + "' of type " + arg.typeText + " cannot be " + a.str());
  };
  if (a.isNone()) return arg.optional || arg.kind == ArgKind::Other ? a : bad();
  switch (arg.kind) {
  case ArgKind::Int:
    return a.isInt() ? a : bad();
  case ArgKind::Float:
    if (a.isInt()) return static_cast<double>(a.asInt());
    return a.isFloat() ? a : bad();
  case ArgKind::Bool:
    return a.isBool() ? a : bad();
  case ArgKind::Scalar:
    return a.isScalar() ? a : bad();
  case ArgKind::IntList:
  case ArgKind::BoolList: {
    // Note [Fixed-length lists] (ir/schema.h): one value for `int[2]` is two.
    size_t n = std::max<size_t>(arg.fixedLength, 1);
    if (a.isInt()) return std::vector<int64_t>(n, a.asInt());
    if (a.isFloats() && a.asFloats().empty()) return std::vector<int64_t>{};
    if (a.isInts() && a.asInts().size() == 1 && n > 1) return std::vector<int64_t>(n, a.asInts()[0]);
    return a.isInts() ? a : bad();
  }
  case ArgKind::FloatList:
    // prim::constant keeps integer data as ints (its dtype says how to read it);
    // elsewhere a float list is canonically floats.
    if (a.isInts() && arg.name != "data") {
      std::vector<double> v(a.asInts().begin(), a.asInts().end());
      return v;
    }
    return a.isFloats() || a.isInts() ? a : bad();
  case ArgKind::ScalarType:
    return a.isDType() ? a : bad();
  case ArgKind::String:
    return a.isString() ? a : bad();
  case ArgKind::Device:
  case ArgKind::Layout:
  case ArgKind::MemoryFormat:
    return a.isString() || a.isInt() ? a : bad();
  case ArgKind::Other:
  case ArgKind::Tensor:
  case ArgKind::TensorList:
    return bad();
  }
  return bad();
}

}  // namespace

Node *buildNode(Graph &g, const OpResolver &ops, NodeSpec spec) {
  const std::string &op = spec.op;
  auto resolved = ops.resolve(op);
  if (!resolved) fail(op, "unknown op (not in the op registry and not declared)");
  const OpSchema &schema = *resolved->schema;
  if (schema.mutatesInput()) fail(op, "in-place and out= ops are not supported");
  // Note [Input limits]: every reader and the fusion expansion build nodes here.
  if (g.nodes().size() >= limits().maxNodesPerGraph)
    fail(op, "graph @" + g.name() + " " + limitMessage("max_nodes_per_graph", limits().maxNodesPerGraph));
  for (const auto &[name, value] : spec.attrs) {
    size_t n = value.isInts() ? value.asInts().size() : value.isFloats() ? value.asFloats().size() : 0;
    if (n > limits().maxListLength)
      fail(op, "argument '" + name + "': list " + limitMessage("max_list_length", limits().maxListLength));
  }

  // Note [Operands of a tensor list]: which argument each operand is.
  std::vector<const ArgSpec *> operandArgs;
  try {
    operandArgs = schema.operandArgs(spec.inputs.size());
  } catch (const InputError &e) {
    fail(op, e.message());
  }
  for (size_t pos = 0; pos < spec.inputs.size(); ++pos) {
    const ArgSpec &a = *operandArgs[pos];
    bool mayBeNone = a.kind == ArgKind::TensorList ? a.elementsOptional : a.optional;
    // A declared (non-ATen-registry) op keeps PyTorch's habit of passing an undefined tensor
    // for a `Tensor` argument (attn_bias of _scaled_dot_product_efficient_attention_backward);
    // it is uninterpreted or expanded, so an absent operand is just one more argument.
    if (spec.inputs[pos] == nullptr && !mayBeNone && resolved->builtin)
      fail(op, "operand '" + a.name + "'" + (a.kind == ArgKind::TensorList ? " (an element)" : "") +
                   " cannot be none");
  }

  AttributeMap attrs;
  for (const ArgSpec &a : schema.args) {
    if (a.isTensor()) continue;
    auto it = spec.attrs.find(a.name);
    if (it != spec.attrs.end()) {
      attrs[a.name] = coerce(op, a, it->second);
      spec.attrs.erase(it);
    } else if (a.defaultValue) {
      attrs[a.name] = *a.defaultValue;
    } else if (a.optional) {
      attrs[a.name] = NoneValue{};
    } else {
      fail(op, "missing argument '" + a.name + "'");
    }
  }
  if (!spec.attrs.empty())
    fail(op, "unknown argument '" + spec.attrs.begin()->first + "' (schema: " + schema.text + ")");

  std::vector<const TensorType *> inTypes;
  for (Value *v : spec.inputs) inTypes.push_back(v ? &v->type : nullptr);
  ShapeRule rule = resolved->builtin ? lookupOp(op)->rule : ShapeRule::Declared;
  // An op returning a list of tensors (split, unbind) has one output per element;
  // without a shape rule the input file says how many.
  if (rule == ShapeRule::Declared && !schema.returnsList &&
      spec.declaredTypes.size() != static_cast<size_t>(schema.numReturns))
    fail(op, "declares " + std::to_string(spec.declaredTypes.size()) + " result type(s), the schema returns " +
                 std::to_string(schema.numReturns) +
                 (spec.declaredTypes.empty() && lookupOp(op) ? " (the op has no shape rule: its result types "
                                                               "must come from the input file)"
                                                             : ""));
  std::vector<TensorType> types;
  try {
    types = inferOutputTypes(rule, ShapeQuery{schema, inTypes, attrs, spec.declaredTypes});
  } catch (const ShapeError &e) {
    fail(op, e.what());
  }
  if (!spec.declaredTypes.empty()) {
    if (spec.declaredTypes.size() != types.size())
      fail(op, "declares " + std::to_string(spec.declaredTypes.size()) + " result(s), the op has " +
                   std::to_string(types.size()));
    for (size_t i = 0; i < types.size(); ++i)
      if (spec.declaredTypes[i] != types[i])
        fail(op, "result " + std::to_string(i) + " is declared " + spec.declaredTypes[i].str() +
                     " but the op computes " + types[i].str());
  }
  if (!spec.outputNames.empty() && spec.outputNames.size() != types.size())
    fail(op, "names " + std::to_string(spec.outputNames.size()) + " result(s), the op has " +
                 std::to_string(types.size()));

  for (const TensorType &t : types) {
    try {
      checkTensorLimits(t, SourcePos{});
    } catch (const InputError &e) {
      fail(op, "result " + e.message());
    }
  }
  std::vector<std::pair<std::string, TensorType>> outs;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string name = spec.outputNames.empty() ? g.freshName("v") : spec.outputNames[i];
    outs.emplace_back(name, types[i]);
  }
  return g.addNode(op, resolved->schema, std::move(spec.inputs), std::move(attrs), outs,
                   std::move(spec.loc));
}

std::vector<TensorType> inferTypes(const Node &n) {
  std::vector<const TensorType *> inTypes;
  for (Value *v : n.inputs) inTypes.push_back(v ? &v->type : nullptr);
  std::vector<TensorType> declared;
  for (Value *v : n.outputs) declared.push_back(v->type);
  const OpInfo *info = lookupOp(n.op);
  return inferOutputTypes(info ? info->rule : ShapeRule::Declared,
                          ShapeQuery{*n.schema, inTypes, n.attrs, declared});
}

}  // namespace torchtv
