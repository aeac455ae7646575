// Reductions as sums (or max/min folds) over a bound index (Note [Symbolic terms]).
#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

// Accumulation dtype: PyTorch sums half types in float.
DType accDType(DType d) { return d == DType::F16 || d == DType::BF16 ? DType::F32 : d; }

std::vector<int64_t> dimsOf(OpEnv &e, const char *attr = "dim") {
  const Attribute *a = e.node.attrs.count(attr) ? &e.node.attr(attr) : nullptr;
  static const Attribute none;
  return reductionDims(a ? *a : none, e.inType(0).rank());
}

bool keepdimOf(OpEnv &e) { return e.node.attrs.count("keepdim") && e.node.attr("keepdim").asBool(); }

TermPtr sumOf(OpEnv &e, const std::vector<int64_t> &dims, bool keepdim, DType out) {
  DType acc = accDType(out);
  TermPtr s = reduceDims(e, TOp::Sum, dims, keepdim, acc,
                         [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, acc); });
  return s;
}

// ATen (CPU, torch 1.13) computes mean as sum(x).div_(n): the sum is rounded to
// the result's dtype before the division, so a f16 mean overflows where its sum
// does (found by the semantics audit: torchtv 10936, ATen inf).
TermPtr meanOf(OpEnv &e, const std::vector<int64_t> &dims, bool keepdim, DType out) {
  TermPtr s = e.tc.cast(sumOf(e, dims, keepdim, out), out);
  int64_t n = countOf(e.inType(0).shape, dims, e);
  return e.tc.make(TOp::Div, {s, e.tc.intConstant(n, out)}, out);
}

TermPtr varOf(OpEnv &e, const std::vector<int64_t> &dims, bool keepdim, int64_t correction) {
  DType out = e.outType().dtype;
  DType acc = accDType(out);
  int64_t n = countOf(e.inType(0).shape, dims, e);
  // mean at the reduced position: the output index with the reduced dims at 0.
  TermPtr s = reduceDims(e, TOp::Sum, dims, keepdim, acc,
                         [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, acc); });
  TermPtr mean = e.tc.make(TOp::Div, {s, e.tc.intConstant(n, acc)}, acc);
  TermPtr sq = reduceDims(e, TOp::Sum, dims, keepdim, acc, [&](const std::vector<IndexExpr> &idx) {
    TermPtr d = e.tc.make(TOp::Sub, {e.operandAt(0, idx, acc), mean}, acc);
    return e.tc.make(TOp::Mul, {d, d}, acc);
  });
  TermPtr denom = e.tc.intConstant(std::max<int64_t>(n - correction, 0), acc);
  return e.tc.cast(e.tc.make(TOp::Div, {sq, denom}, acc), out);
}

}  // namespace

void addReductions(HandlerTable &t) {
  t["aten::sum"] = [](OpEnv &e) {
    if (!e.node.attr("dtype").isNone()) e.unsupported("dtype argument");
    return e.tc.cast(sumOf(e, dimsOf(e, "none"), false, e.outType().dtype), e.outType().dtype);
  };
  t["aten::sum.dim_IntList"] = [](OpEnv &e) {
    if (!e.node.attr("dtype").isNone()) e.unsupported("dtype argument");
    return e.tc.cast(sumOf(e, dimsOf(e), keepdimOf(e), e.outType().dtype), e.outType().dtype);
  };
  t["aten::mean"] = [](OpEnv &e) {
    if (!e.node.attr("dtype").isNone()) e.unsupported("dtype argument");
    return meanOf(e, dimsOf(e, "none"), false, e.outType().dtype);
  };
  t["aten::mean.dim"] = [](OpEnv &e) {
    if (!e.node.attr("dtype").isNone()) e.unsupported("dtype argument");
    return meanOf(e, dimsOf(e), keepdimOf(e), e.outType().dtype);
  };
  for (auto [name, op] : std::vector<std::pair<const char *, TOp>>{{"aten::amax", TOp::RMax},
                                                                   {"aten::amin", TOp::RMin}}) {
    TOp o = op;
    t[name] = [o](OpEnv &e) {
      DType d = e.outType().dtype;
      return reduceDims(e, o, dimsOf(e), keepdimOf(e), d,
                        [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
    };
  }
  t["aten::var.correction"] = [](OpEnv &e) {
    const Attribute &c = e.node.attr("correction");
    return varOf(e, dimsOf(e), keepdimOf(e), c.isNone() ? 1 : c.asInt());
  };
  t["aten::var.dim"] = [](OpEnv &e) {
    return varOf(e, dimsOf(e), keepdimOf(e), e.node.attr("unbiased").asBool() ? 1 : 0);
  };
  // cumsum(x, dim)[..i..] = sum_{k <= i} x[..k..]: a sum over the whole dim
  // with the terms past i replaced by 0. ATen (CPU) accumulates in the dtype's
  // accumulation type (double for float, float for half types).
  t["aten::cumsum"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    if (!e.node.attr("dtype").isNone() && e.inType(0).dtype != d) e.unsupported("dtype argument");
    if (d == DType::Bool) e.unsupported("bool result");
    DType acc = d == DType::F32 ? DType::F64 : accDType(d);
    const Shape &in = e.inType(0).shape;
    if (in.empty()) return e.operand(0, d);  // a 0-dim tensor is its own cumulative sum
    int64_t dim = wrapDim(e.node.attr("dim").asInt(), static_cast<int64_t>(in.size())).value_or(0);
    int k = e.tc.vars.fresh(in[dim], "k");
    std::vector<IndexExpr> idx = e.index;
    idx[dim] = IndexExpr::var(k);
    TermPtr upTo = e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::var(k), e.index[dim]);
    TermPtr body = e.tc.select(upTo, e.operandAt(0, idx, acc), e.tc.constant(0, acc));
    return e.tc.cast(e.tc.reduce(TOp::Sum, k, body, acc, e.node.op), d);
  };
  // any: whether some element is nonzero (NaN is), as a count of nonzero
  // elements compared with 0 (an integer sum: exact, and every interpreter has it).
  for (const char *name : {"aten::any", "aten::any.dim"}) {
    t[name] = [](OpEnv &e) {
      if (e.outType().dtype != DType::Bool) e.unsupported("a result that is not bool");
      DType in = e.inType(0).dtype;
      std::vector<int64_t> dims = e.node.op == "aten::any" ? dimsOf(e, "none") : dimsOf(e);
      TermPtr n = reduceDims(e, TOp::Sum, dims, keepdimOf(e), DType::I64, [&](const std::vector<IndexExpr> &idx) {
        TermPtr x = e.operandAt(0, idx, in);
        TermPtr nonzero = in == DType::Bool ? x : e.tc.make(TOp::Ne, {x, e.tc.constant(0, in)}, in);
        return e.tc.cast(nonzero, DType::I64);
      });
      return e.tc.make(TOp::Ne, {n, e.tc.intConstant(0, DType::I64)}, DType::I64);
    };
  }
  t["aten::max.dim"] = [](OpEnv &e) {
    if (e.output != 0) e.unsupported("the indices output");
    DType d = e.outType().dtype;
    return reduceDims(e, TOp::RMax, {wrapDim(e.node.attr("dim").asInt(), e.inType(0).rank()).value_or(0)},
                      keepdimOf(e), d, [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
  };
  t["aten::min.dim"] = [](OpEnv &e) {
    if (e.output != 0) e.unsupported("the indices output");
    DType d = e.outType().dtype;
    return reduceDims(e, TOp::RMin, {wrapDim(e.node.attr("dim").asInt(), e.inType(0).rank()).value_or(0)},
                      keepdimOf(e), d, [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
  };
}

}  // namespace torchtv::sem
