// Reductions as sums (or max/min folds) over a bound index (Note [Symbolic terms]).
#include <functional>

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

// Note [Positions as values]
// An index is not a value in a term (index_ops.cpp), so a position that an op
// returns as data (argmax, max.dim's indices) is written as a count: the first
// position j of a dim where hit(j) holds is the number of positions k with no
// hit at any j <= k. Both counts are integer sums, exact in every interpreter,
// and neither needs a concrete extent. No hit at all gives the extent (ATen
// raises on an empty dim first; the ops below refuse it).
TermPtr firstHit(OpEnv &e, const Dim &extent, const std::function<TermPtr(const IndexExpr &)> &hit) {
  int k = e.tc.vars.fresh(extent, "k"), j = e.tc.vars.fresh(extent, "j");
  TermPtr one = e.tc.intConstant(1, DType::I64), zero = e.tc.intConstant(0, DType::I64);
  TermPtr upToK = e.tc.make(TOp::And, {e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::var(j), IndexExpr::var(k)),
                                       hit(IndexExpr::var(j))},
                            DType::Bool);
  TermPtr hitsUpToK = e.tc.reduce(TOp::Sum, j, e.tc.select(upToK, one, zero), DType::I64, e.node.op);
  TermPtr none = e.tc.make(TOp::Eq, {hitsUpToK, zero}, DType::I64);
  return e.tc.reduce(TOp::Sum, k, e.tc.select(none, one, zero), DType::I64, e.node.op);
}

// The positions an arg-reduction ranges over: one dim of the operand, or
// (dim=None) the flattened operand. at(p) is the operand's index at position p.
struct Along {
  Dim extent;
  std::function<std::vector<IndexExpr>(const IndexExpr &)> at;
};

Along alongDim(OpEnv &e, int64_t dim, bool keepdim) {
  const Shape &in = e.inType(0).shape;
  std::vector<IndexExpr> out = e.index;
  return {in[dim], [out, dim, keepdim](const IndexExpr &p) {
            std::vector<IndexExpr> idx = out;
            if (keepdim) idx[dim] = p;
            else idx.insert(idx.begin() + dim, p);
            return idx;
          }};
}

Along alongFlat(OpEnv &e) {
  const Shape &in = e.inType(0).shape;
  std::vector<int64_t> all;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) all.push_back(d);
  int64_t n = countOf(in, all, e);
  VarTable &vars = e.tc.vars;
  return {Dim(n), [in, &vars](const IndexExpr &p) {
            std::vector<IndexExpr> idx(in.size());
            int64_t stride = 1;
            for (size_t d = in.size(); d-- > 0;) {
              idx[d] = p.floorDiv(stride, vars).mod(in[d].size(), vars);
              stride *= in[d].size();
            }
            return idx;
          }};
}

// The first position of the max (RMax) or min (RMin) along `a`; NaN is both
// (ATen: the first NaN wins), as in the Maximum/Minimum fold that gives `m`.
TermPtr argExtreme(OpEnv &e, TOp fold, const Along &a) {
  if (a.extent.isConcrete() && a.extent.size() == 0) e.unsupported("an empty reduced dim (ATen raises)");
  DType d = e.inType(0).dtype;
  if (d == DType::Bool) e.unsupported("a bool operand");
  int k = e.tc.vars.fresh(a.extent, "k");
  TermPtr m = e.tc.reduce(fold, k, e.operandAt(0, a.at(IndexExpr::var(k)), d), d, e.node.op);
  return firstHit(e, a.extent, [&](const IndexExpr &j) {
    TermPtr x = e.operandAt(0, a.at(j), d);
    TermPtr same = e.tc.make(TOp::Eq, {x, m}, d);
    if (!isFloating(d)) return same;
    return e.tc.make(TOp::Or, {e.tc.make(TOp::IsNan, {x}, d), same}, DType::Bool);
  });
}

// argmax/argmin(self, dim=None, keepdim=False).
TermPtr argReduce(OpEnv &e, TOp fold) {
  const Attribute &dim = e.node.attr("dim");
  int64_t rank = e.inType(0).rank();
  if (rank == 0) return e.tc.intConstant(0, DType::I64);  // a 0-dim tensor is its own extreme
  if (dim.isNone()) return argExtreme(e, fold, alongFlat(e));
  return argExtreme(e, fold, alongDim(e, wrapDim(dim.asInt(), rank).value_or(0), keepdimOf(e)));
}

// max.dim/min.dim: output 0 the values, output 1 the first position of each.
TermPtr extremeDim(OpEnv &e, TOp fold) {
  int64_t rank = e.inType(0).rank();
  int64_t dim = wrapDim(e.node.attr("dim").asInt(), std::max<int64_t>(rank, 1)).value_or(0);
  if (e.output == 1) {
    if (rank == 0) return e.tc.intConstant(0, DType::I64);
    return argExtreme(e, fold, alongDim(e, dim, keepdimOf(e)));
  }
  DType d = e.outType().dtype;
  if (rank == 0) return e.operand(0, d);
  return reduceDims(e, fold, {dim}, keepdimOf(e), d, [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
}

// prod: a product fold in the result's dtype (integers and bool widen to
// int64; ATen's CPU kernel has no f16 product). Integer products wrap, in any
// order; floating ones are rounded in the kernel's order (a reduction: within
// rounding).
TermPtr prodOf(OpEnv &e, const std::vector<int64_t> &dims, bool keepdim) {
  DType d = e.outType().dtype;
  if (!e.node.attr("dtype").isNone() && d != e.inType(0).dtype && !isIntegral(d)) e.unsupported("dtype argument");
  if (d == DType::Bool) e.unsupported("a bool result");
  return reduceDims(e, TOp::Prod, dims, keepdim, d, [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
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
  // all: whether every element is nonzero, as a count of zero elements compared with 0.
  for (const char *name : {"aten::any", "aten::any.dim", "aten::all", "aten::all.dim"}) {
    t[name] = [](OpEnv &e) {
      if (e.outType().dtype != DType::Bool) e.unsupported("a result that is not bool");
      DType in = e.inType(0).dtype;
      bool any = e.node.op.rfind("aten::any", 0) == 0;
      bool whole = e.node.op == "aten::any" || e.node.op == "aten::all";
      std::vector<int64_t> dims = whole ? dimsOf(e, "none") : dimsOf(e);
      TermPtr n = reduceDims(e, TOp::Sum, dims, keepdimOf(e), DType::I64, [&](const std::vector<IndexExpr> &idx) {
        TermPtr x = e.operandAt(0, idx, in);
        TermPtr nonzero = in == DType::Bool ? x : e.tc.make(TOp::Ne, {x, e.tc.constant(0, in)}, in);
        if (!any) nonzero = e.tc.make(TOp::Not, {e.tc.cast(nonzero, DType::Bool)}, DType::Bool);
        return e.tc.cast(nonzero, DType::I64);
      });
      return e.tc.make(any ? TOp::Ne : TOp::Eq, {n, e.tc.intConstant(0, DType::I64)}, DType::I64);
    };
  }
  t["aten::max.dim"] = [](OpEnv &e) { return extremeDim(e, TOp::RMax); };
  t["aten::min.dim"] = [](OpEnv &e) { return extremeDim(e, TOp::RMin); };
  t["aten::argmax"] = [](OpEnv &e) { return argReduce(e, TOp::RMax); };
  t["aten::argmin"] = [](OpEnv &e) { return argReduce(e, TOp::RMin); };
  t["aten::prod"] = [](OpEnv &e) { return prodOf(e, dimsOf(e, "none"), false); };
  t["aten::prod.dim_int"] = [](OpEnv &e) { return prodOf(e, dimsOf(e), keepdimOf(e)); };
  // prims::prod(inp, dims): torch 1.13 runs aten::prod.dim_int once per dim, the last dim
  // first (impl_aten in torch/_prims), which is the nesting reduceDims builds; dims=[] returns
  // inp. Its meta keeps inp's dtype while aten::prod widens integers to int64: only results
  // that the two agree on (floating, or int64) have semantics.
  t["prims::prod"] = [](OpEnv &e) {
    const Attribute &dims = e.node.attr("dims");
    if (dims.isNone()) e.unsupported("dims=None");
    if (!e.node.attr("output_dtype").isNone()) e.unsupported("an output_dtype argument");
    DType d = e.outType().dtype;
    if (d != e.inType(0).dtype || d == DType::Bool || (isIntegral(d) && d != DType::I64))
      e.unsupported("a result dtype on which prims::prod's meta and kernel disagree");
    bool none = dims.isInts() ? dims.asInts().empty() : dims.isFloats() && dims.asFloats().empty();
    if (none) return e.operand(0, d);
    return reduceDims(e, TOp::Prod, dimsOf(e, "dims"), false, d,
                      [&](const std::vector<IndexExpr> &idx) { return e.operandAt(0, idx, d); });
  };
}

}  // namespace torchtv::sem
