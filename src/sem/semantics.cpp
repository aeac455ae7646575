#include "src/sem/semantics.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace torchtv::sem {

namespace {

const HandlerTable &handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    addElementwise(t);
    addReductions(t);
    addLayout(t);
    addMatmul(t);
    addComposite(t);
    addIndex(t);
    addAttention(t);
    addConvolution(t);
    addSorting(t);
    return t;
  }();
  return table;
}

}  // namespace

bool hasSemantics(const std::string &op) { return handlers().count(op) != 0; }

TermPtr opTerm(TermContext &tc, const Node &node, int output, const std::vector<IndexExpr> &index,
               const InputFn &input) {
  auto storageOnly = [](const Value *v) { return v && v->type.dtype == DType::U64; };
  if (std::any_of(node.inputs.begin(), node.inputs.end(), storageOnly) ||
      std::any_of(node.outputs.begin(), node.outputs.end(), storageOnly))
    throw Unsupported(node.op + " on a uint64 tensor (no op has semantics over uint64: Note [Storage-only dtypes])");
  // Note [Complex values as pairs of reals]: what the lowering left complex has no semantics; name
  // the value it left, as the op that computed it is the one a user can change.
  auto complex = [](const Value *v) { return v && isComplex(v->type.dtype); };
  auto complexIn = std::find_if(node.inputs.begin(), node.inputs.end(), complex);
  if (complexIn != node.inputs.end() || std::any_of(node.outputs.begin(), node.outputs.end(), complex)) {
    const Value *v = complexIn != node.inputs.end() ? *complexIn : nullptr;
    std::string what = !v ? node.op + " on complex values"
                       : v->producer ? node.op + " on a complex value of " + v->producer->op
                                     : node.op + " on the complex graph input %" + v->name;
    throw Unsupported(what + " (complex values are read as pairs of reals through the ops docs/complex.md lists)");
  }
  auto it = handlers().find(node.op);
  if (it == handlers().end()) throw Unsupported("no semantics for " + node.op, Gap::NoSemantics, node.op);
  OpEnv env{tc, node, output, index, input};
  return it->second(env);
}

const TensorType &OpEnv::inType(int i) const {
  const Value *v = node.inputs.at(i);
  if (!v) unsupported("operand " + std::to_string(i) + " is None");
  return v->type;
}

std::vector<IndexExpr> broadcastIndex(const Shape &shape, const std::vector<IndexExpr> &outIndex) {
  std::vector<IndexExpr> idx;
  size_t lead = outIndex.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    const Dim &dim = shape[d];
    if (dim.isConcrete() && dim.size() == 1) idx.push_back(IndexExpr::constant(0));
    else idx.push_back(outIndex[lead + d]);
  }
  return idx;
}

TermPtr OpEnv::operand(int i, DType dtype) const {
  return operandAt(i, broadcastIndex(inType(i).shape, index), dtype);
}

TermPtr OpEnv::operandAt(int i, const std::vector<IndexExpr> &idx, DType dtype) const {
  (void)inType(i);
  return tc.cast(input(i, idx), dtype);
}

TermPtr OpEnv::scalar(const std::string &name, DType dtype) const {
  const Attribute &a = node.attr(name);
  if (a.isNone()) unsupported("attribute " + name + " is None");
  if (a.isInt()) return tc.intConstant(a.asInt(), dtype);
  if (a.isBool()) return tc.intConstant(a.asBool() ? 1 : 0, dtype);
  return tc.constant(a.asDouble(), dtype);
}

DType OpEnv::computeDType() const {
  std::vector<const TensorType *> ins;
  for (const Value *v : node.inputs) ins.push_back(v ? &v->type : nullptr);
  std::vector<TensorType> declared;
  ShapeQuery q{*node.schema, ins, node.attrs, declared};
  return inferOutputTypes(ShapeRule::Broadcast, q).at(0).dtype;
}

void OpEnv::unsupported(const std::string &why) const { throw Unsupported(node.op + ": " + why); }

TermPtr perPosition(OpEnv &e, const IndexExpr &o, int64_t count, const std::function<TermPtr(int64_t)> &at) {
  TermPtr r = at(count - 1);
  for (int64_t j = count - 1; j-- > 0;)
    r = e.tc.select(e.tc.indexCmp(IndexCmpKind::Eq, o, IndexExpr::constant(j)), at(j), r);
  return r;
}

TermPtr sumDims(OpEnv &e, const Shape &s, const std::vector<int64_t> &dims, std::vector<IndexExpr> at, DType d,
                const std::function<TermPtr(const std::vector<IndexExpr> &)> &body) {
  std::vector<int> vars;
  for (int64_t k : dims) {
    vars.push_back(e.tc.vars.fresh(s[k], "k"));
    at[k] = IndexExpr::var(vars.back());
  }
  TermPtr t = body(at);
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) t = e.tc.reduce(TOp::Sum, *it, t, d, e.node.op);
  return t;
}

std::vector<int64_t> reductionDims(const Attribute &dimAttr, int64_t rank) {
  std::vector<int64_t> dims;
  if (!dimAttr.isNone()) {
    if (dimAttr.isInt()) dims.push_back(dimAttr.asInt());
    else dims = dimAttr.asInts();
  }
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  for (int64_t &d : dims) d = wrapDim(d, rank).value_or(0);
  std::sort(dims.begin(), dims.end());
  return dims;
}

int64_t countOf(const Shape &shape, const std::vector<int64_t> &dims, const OpEnv &env) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (!shape[d].isConcrete()) env.unsupported("the count of a symbolic dim");
    n *= shape[d].size();
  }
  return n;
}

TermPtr reduceDims(OpEnv &env, TOp op, const std::vector<int64_t> &dims, bool keepdim, DType dtype,
                   const std::function<TermPtr(const std::vector<IndexExpr> &)> &body) {
  const Shape &in = env.inType(0).shape;
  std::vector<IndexExpr> idx;
  std::vector<int> binders;
  size_t out = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    if (std::binary_search(dims.begin(), dims.end(), d)) {
      int v = env.tc.vars.fresh(in[d], "k");
      binders.push_back(v);
      idx.push_back(IndexExpr::var(v));
      if (keepdim) ++out;
    } else {
      idx.push_back(env.index.at(out++));
    }
  }
  TermPtr t = body(idx);
  std::string origin = env.node.op + "/" + std::to_string(dims.size());
  for (auto it = binders.rbegin(); it != binders.rend(); ++it) t = env.tc.reduce(op, *it, t, dtype, origin);
  return t;
}

}  // namespace torchtv::sem
