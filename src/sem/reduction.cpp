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
