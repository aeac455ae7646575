// sort and topk: the values output, as the element of each rank.
//
// Note [Ranks]
// The value at sorted position i of a dim is the element x[j] whose rank is i,
// where the rank of j counts the elements that sort before it, and the equal
// ones at earlier positions:
//   rank(j) = #{m : x[m] before x[j]} + #{m < j : x[m] same as x[j]}
// (ascending: a before b when a < b, or b is NaN and a is not: NaN sorts last,
// as in ATen; descending and topk(largest): a > b, or a is NaN and b is not).
// Ranks are a permutation of the positions, so exactly one j has rank i; the
// value is a max over j of x[j] where rank(j) = i and the dtype's lowest value
// elsewhere (NaN wins a max, so a NaN at rank i comes through). The position i
// becomes a value by counting (Note [Positions as values] in reduction.cpp).
// Every count is an integer sum: exact; the value is a fold, opaque at level
// bitwise. The indices output has no term: ATen's sort (stable=False) and
// topk order equal elements as their kernels happen to, so the index of a tie
// is not a function of the input (and among +0/-0 ties nor is the sign of a
// zero in the values, which the real level does not distinguish). sort.stable
// with stable=true orders ties by position: its indices are the rank's j.
#include <cmath>
#include <functional>
#include <limits>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

using Idx = std::vector<IndexExpr>;

TermPtr count(OpEnv &e, const Dim &extent, const std::function<TermPtr(const IndexExpr &)> &cond) {
  int v = e.tc.vars.fresh(extent, "m");
  TermPtr one = e.tc.intConstant(1, DType::I64), zero = e.tc.intConstant(0, DType::I64);
  return e.tc.reduce(TOp::Sum, v, e.tc.select(cond(IndexExpr::var(v)), one, zero), DType::I64, e.node.op);
}

TermPtr lowest(OpEnv &e, DType d) {
  if (isFloating(d)) return e.tc.constant(-INFINITY, d);
  if (d == DType::Bool) return e.tc.boolConstant(false);
  return e.tc.intConstant(d == DType::I32 ? std::numeric_limits<int32_t>::min()
                          : d == DType::I16 ? std::numeric_limits<int16_t>::min()
                          : d == DType::I8  ? std::numeric_limits<int8_t>::min()
                          : d == DType::U8  ? 0
                                            : std::numeric_limits<int64_t>::min(),
                          d);
}

struct Order {
  int64_t dim;
  bool descending;
  Dim extent;  // of the sorted dim of the operand
};

// Operand 0 with the sorted dim at position p, the other dims at the output index.
Idx atPos(OpEnv &e, const Order &o, const IndexExpr &p) {
  Idx idx = e.index;
  idx[o.dim] = p;
  return idx;
}

TermPtr before(OpEnv &e, const Order &o, TermPtr a, TermPtr b, DType d) {
  TermPtr strict = e.tc.make(o.descending ? TOp::Gt : TOp::Lt, {a, b}, d);
  if (!isFloating(d)) return strict;
  TermPtr nanA = e.tc.make(TOp::IsNan, {a}, d), nanB = e.tc.make(TOp::IsNan, {b}, d);
  TermPtr nanOrder = o.descending ? e.tc.make(TOp::And, {nanA, e.tc.make(TOp::Not, {nanB}, DType::Bool)}, DType::Bool)
                                  : e.tc.make(TOp::And, {nanB, e.tc.make(TOp::Not, {nanA}, DType::Bool)}, DType::Bool);
  return e.tc.make(TOp::Or, {strict, nanOrder}, DType::Bool);
}

TermPtr same(OpEnv &e, TermPtr a, TermPtr b, DType d) {
  TermPtr eq = e.tc.make(TOp::Eq, {a, b}, d);
  if (!isFloating(d)) return eq;
  TermPtr nans = e.tc.make(TOp::And, {e.tc.make(TOp::IsNan, {a}, d), e.tc.make(TOp::IsNan, {b}, d)}, DType::Bool);
  return e.tc.make(TOp::Or, {eq, nans}, DType::Bool);
}

// Whether the element at position j has rank i (the output's index on the dim).
TermPtr rankIs(OpEnv &e, const Order &o, const IndexExpr &j, DType d) {
  TermPtr xj = e.operandAt(0, atPos(e, o, j), d);
  TermPtr rank = count(e, o.extent, [&](const IndexExpr &m) {
    TermPtr xm = e.operandAt(0, atPos(e, o, m), d);
    TermPtr earlierTie = e.tc.make(TOp::And, {e.tc.indexCmp(IndexCmpKind::Lt, m, j), same(e, xm, xj, d)}, DType::Bool);
    return e.tc.make(TOp::Or, {before(e, o, xm, xj, d), earlierTie}, DType::Bool);
  });
  const IndexExpr &i = e.index[o.dim];
  TermPtr position = count(e, o.extent, [&](const IndexExpr &k) { return e.tc.indexCmp(IndexCmpKind::Lt, k, i); });
  return e.tc.make(TOp::Eq, {rank, position}, DType::I64);
}

TermPtr sorted(OpEnv &e, const Order &o) {
  DType d = e.outType().dtype;
  if (o.extent.isConcrete() && o.extent.size() == 0) e.unsupported("an empty dim");
  if (e.output == 0) {
    int j = e.tc.vars.fresh(o.extent, "j");
    TermPtr x = e.operandAt(0, atPos(e, o, IndexExpr::var(j)), d);
    TermPtr picked = e.tc.select(rankIs(e, o, IndexExpr::var(j), d), x, lowest(e, d));
    return e.tc.reduce(TOp::RMax, j, picked, d, e.node.op);
  }
  // The indices of a stable sort: the j of rank i, counted as the positions k below it.
  DType in = e.inType(0).dtype;
  return count(e, o.extent, [&](const IndexExpr &k) {
    TermPtr above = count(e, o.extent, [&](const IndexExpr &j) {
      return e.tc.make(TOp::And, {e.tc.indexCmp(IndexCmpKind::Lt, k, j), rankIs(e, o, j, in)}, DType::Bool);
    });
    return e.tc.make(TOp::Ne, {above, e.tc.intConstant(0, DType::I64)}, DType::I64);
  });
}

Order orderOf(OpEnv &e, bool descending) {
  const Shape &x = e.inType(0).shape;
  if (x.empty()) e.unsupported("a 0-dim operand");
  int64_t dim = wrapDim(e.node.attr("dim").asInt(), static_cast<int64_t>(x.size())).value_or(0);
  return {dim, descending, x[dim]};
}

TermPtr sort(OpEnv &e) {
  bool stable = e.node.attrs.count("stable") && e.node.attr("stable").isBool() && e.node.attr("stable").asBool();
  if (e.output == 1 && !stable) e.unsupported("the indices output (ATen orders equal elements as it happens to)");
  if (e.inType(0).rank() == 0) return e.output == 0 ? e.operand(0, e.outType().dtype) : e.tc.intConstant(0, DType::I64);
  return sorted(e, orderOf(e, e.node.attr("descending").asBool()));
}

TermPtr topk(OpEnv &e) {
  if (e.output == 1) e.unsupported("the indices output (ATen orders equal elements as it happens to)");
  if (!e.node.attr("sorted").asBool()) e.unsupported("sorted=false (the order of the k values is unspecified)");
  if (e.inType(0).rank() == 0) return e.operand(0, e.outType().dtype);
  return sorted(e, orderOf(e, e.node.attr("largest").asBool()));
}

}  // namespace

void addSorting(HandlerTable &t) {
  t["aten::sort"] = sort;
  t["aten::sort.stable"] = sort;
  t["aten::topk"] = topk;
}

}  // namespace torchtv::sem
