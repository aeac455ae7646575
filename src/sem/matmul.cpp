// Matrix products as sums over the contracted index.
#include <functional>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

// sum_k a[aIdx(k)] * b[bIdx(k)] over a contraction of extent `k`.
TermPtr contract(OpEnv &e, int a, int b, const Dim &k, const std::function<std::vector<IndexExpr>(const IndexExpr &)> &aIdx,
                 const std::function<std::vector<IndexExpr>(const IndexExpr &)> &bIdx, DType d) {
  int v = e.tc.vars.fresh(k, "k");
  IndexExpr kv = IndexExpr::var(v);
  TermPtr body = e.tc.make(TOp::Mul, {e.operandAt(a, aIdx(kv), d), e.operandAt(b, bIdx(kv), d)}, d);
  return e.tc.reduce(TOp::Sum, v, body, d, e.node.op);
}

// matmul with torch.matmul's rank rules (1-D operands get a dim added and removed).
TermPtr matmulTerm(OpEnv &e, int a, int b, DType d) {
  const Shape &sa = e.inType(a).shape, &sb = e.inType(b).shape;
  const std::vector<IndexExpr> &o = e.index;
  size_t ra = sa.size(), rb = sb.size();
  if (ra == 0 || rb == 0) e.unsupported("0-dim operand");
  const Dim &k = sa.back();
  // Output index layout: batch..., [i if ra > 1], [j if rb > 1].
  size_t nBatch = o.size() - (ra > 1 ? 1 : 0) - (rb > 1 ? 1 : 0);
  std::vector<IndexExpr> batch(o.begin(), o.begin() + nBatch);
  IndexExpr i = ra > 1 ? o[nBatch] : IndexExpr::constant(0);
  IndexExpr j = rb > 1 ? o.back() : IndexExpr::constant(0);
  auto aIdx = [&](const IndexExpr &kv) {
    std::vector<IndexExpr> idx;
    if (ra > 2) {
      Shape batchShape(sa.begin(), sa.end() - 2);
      idx = broadcastIndex(batchShape, batch);
    }
    if (ra > 1) idx.push_back(i);
    idx.push_back(kv);
    return idx;
  };
  auto bIdx = [&](const IndexExpr &kv) {
    std::vector<IndexExpr> idx;
    if (rb > 2) {
      Shape batchShape(sb.begin(), sb.end() - 2);
      idx = broadcastIndex(batchShape, batch);
    }
    idx.push_back(kv);
    if (rb > 1) idx.push_back(j);
    return idx;
  };
  return contract(e, a, b, k, aIdx, bIdx, d);
}

// The p-norm distance of two rows, (sum_k |a(k) - b(k)|^p)^(1/p) over k in
// [0, m): p = 0 counts the differing entries (as ATen: min(ceil(|d|), 1), NaN
// for a NaN), p = 1 sums |d|, p = 2 is sqrt(sum d * d). Other p have no term
// (p = inf: ATen's max of |d| drops a NaN in its scalar loop and keeps it in
// its vector loop; semantics audit).
TermPtr pDistance(OpEnv &e, double p, const Dim &m, const std::function<TermPtr(const IndexExpr &)> &a,
                  const std::function<TermPtr(const IndexExpr &)> &b, DType d) {
  if (p != 0 && p != 1 && p != 2) e.unsupported("p other than 0, 1 and 2");
  int v = e.tc.vars.fresh(m, "k");
  TermPtr diff = e.tc.make(TOp::Sub, {a(IndexExpr::var(v)), b(IndexExpr::var(v))}, d);
  if (p == 0) {
    TermPtr ceil = e.tc.make(TOp::Ceil, {e.tc.make(TOp::Abs, {diff}, d)}, d);
    return e.tc.reduce(TOp::Sum, v, e.tc.make(TOp::Minimum, {ceil, e.tc.constant(1, d)}, d), d, e.node.op);
  }
  if (p == 2) return e.tc.make(TOp::Sqrt, {e.tc.reduce(TOp::Sum, v, e.tc.make(TOp::Mul, {diff, diff}, d), d, e.node.op)}, d);
  return e.tc.reduce(TOp::Sum, v, e.tc.make(TOp::Abs, {diff}, d), d, e.node.op);
}

// _cdist_forward(x1 [B..., P, M], x2 [B..., R, M], p, compute_mode): the
// distance of every row pair, out[b, i, j] = pDistance(x1[b, i, :], x2[b, j, :]).
// For p = 2 ATen switches to a matrix-product formula (|a|^2 + |b|^2 - 2 a.b,
// cancelling) when P or R exceeds 25 or compute_mode is 1: not this term.
TermPtr cdist(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer operands");
  const Shape &a = e.inType(0).shape, &b = e.inType(1).shape;
  if (a.size() < 2 || a.size() != b.size()) e.unsupported("operands of different ranks");
  size_t r = a.size();
  for (size_t k = 0; k + 2 < r; ++k)
    if (!(a[k] == b[k])) e.unsupported("unexpanded batch dims");
  double p = e.node.attr("p").asDouble();
  if (p == 2) {
    const Attribute &mode = e.node.attr("compute_mode");
    int64_t m = mode.isNone() ? 0 : mode.asInt();
    bool small = a[r - 2].isConcrete() && b[r - 2].isConcrete() && a[r - 2].size() <= 25 && b[r - 2].size() <= 25;
    if (m == 1 || (m == 0 && !small)) e.unsupported("p=2 through the matrix-product formula (more than 25 rows, or compute_mode=1)");
  }
  auto row = [&](int operand, const IndexExpr &i) {
    return [&e, operand, i, d](const IndexExpr &k) {
      std::vector<IndexExpr> idx(e.index.begin(), e.index.end() - 2);
      idx.push_back(i);
      idx.push_back(k);
      return e.operandAt(operand, idx, d);
    };
  };
  return pDistance(e, p, a[r - 1], row(0, e.index[r - 2]), row(1, e.index[r - 1]), d);
}

// _pdist_forward(x [N, M], p): the distance of every pair of rows i < j, in
// row-major order of (i, j) (out[k] for the k-th pair): a select chain over
// the pairs (concrete N, at most kMaxPairs of them).
TermPtr pdist(OpEnv &e) {
  constexpr int64_t kMaxPairs = 2048;
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer operands");
  const Shape &x = e.inType(0).shape;
  if (x.size() != 2 || !x[0].isConcrete()) e.unsupported("an operand other than [N, M] with a concrete N");
  int64_t n = x[0].size(), pairs = n * (n - 1) / 2;
  if (pairs > kMaxPairs) e.unsupported(std::to_string(pairs) + " row pairs > " + std::to_string(kMaxPairs));
  if (pairs == 0) return e.tc.constant(0, d);  // no element to give
  double p = e.node.attr("p").asDouble();
  std::vector<std::pair<int64_t, int64_t>> ij;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) ij.push_back({i, j});
  auto row = [&](int64_t i) {
    return [&e, i, d](const IndexExpr &k) { return e.operandAt(0, {IndexExpr::constant(i), k}, d); };
  };
  return perPosition(e, e.index.at(0), pairs, [&](int64_t k) {
    return pDistance(e, p, x[1], row(ij[k].first), row(ij[k].second), d);
  });
}

}  // namespace

void addMatmul(HandlerTable &t) {
  t["aten::_cdist_forward"] = cdist;
  t["aten::_pdist_forward"] = pdist;
  for (const char *name : {"aten::mm", "aten::bmm", "aten::matmul", "aten::dot"})
    t[name] = [](OpEnv &e) { return matmulTerm(e, 0, 1, e.outType().dtype); };
  t["aten::addmm"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    TermPtr prod = matmulTerm(e, 1, 2, d);
    const Attribute &alpha = e.node.attr("alpha"), &beta = e.node.attr("beta");
    if (alpha.asDouble() != 1.0) prod = e.tc.make(TOp::Mul, {prod, e.scalar("alpha", d)}, d);
    // beta = 0 ignores self, NaN included: self is not even read (it may be an uninitialized
    // empty_like, which has no semantics: `torch.empty_like(a).addmm_(x, y, beta=0)`).
    if (beta.asDouble() == 0.0) return prod;
    TermPtr self = e.operand(0, d);
    if (beta.asDouble() != 1.0) self = e.tc.make(TOp::Mul, {self, e.scalar("beta", d)}, d);
    return e.tc.make(TOp::Add, {self, prod}, d);
  };
  t["aten::linear"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    const Shape &sx = e.inType(0).shape;
    const Dim &k = sx.back();
    std::vector<IndexExpr> o = e.index;
    IndexExpr j = o.back();
    TermPtr prod = contract(
        e, 0, 1, k,
        [&](const IndexExpr &kv) {
          std::vector<IndexExpr> idx(o.begin(), o.end() - 1);
          idx.push_back(kv);
          return idx;
        },
        [&](const IndexExpr &kv) { return std::vector<IndexExpr>{j, kv}; }, d);
    if (e.node.inputs.size() > 2 && e.node.inputs[2]) prod = e.tc.make(TOp::Add, {prod, e.operand(2, d)}, d);
    return prod;
  };
}

}  // namespace torchtv::sem
