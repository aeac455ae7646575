// scaled_dot_product_attention, in the math form of PyTorch's
// _scaled_dot_product_attention_math (aten/src/ATen/native/transformers/attention.cpp).
//
// Note [Attention semantics]
// For query [..., L, E], key [..., S, E], value [..., S, Ev] (leading dims
// broadcast), at output element [..., i, c]:
//   s_j  = (sum_e q[i, e] * k[j, e]) * scale      scale = 1/sqrt(E) when None,
//                                                  as the double 1.0 / std::sqrt(E)
//   s'_j = s_j + mask[i, j]                        a float mask
//        = mask[i, j] ? s_j : -inf                 a bool mask (true keeps)
//        = j <= i ? s_j : -inf                     is_causal (tril of ones(L, S),
//                                                  aligned top-left, as PyTorch)
//   out  = sum_j softmax_j(s') * v[j, c]
// This is the op over the reals; the kernels differ by rounding only:
//   - the math kernel multiplies q and k each by sqrt(scale), the flash kernels
//     the scores by scale: equal with exact square roots, but torchtv's reals
//     read the rounded double sqrt(scale) as exact, so it does not prove the
//     math kernel's graph equal to this (docs/inductor.md);
//   - PyTorch adds a bool mask as 0 / -inf; the select is that sum wherever s_j
//     is finite (Note [Masked -inf] reads it);
//   - a row whose every key is masked is NaN here (softmax of -inf's), as in
//     torch 2.0-2.4; torch >= 2.5 (_safe_softmax) returns 0 there. A real-level
//     proof assumes some key of each row is kept and says so (Note [Masked -inf]).
// dropout_p > 0 draws random numbers (no semantics: Unsupported) and
// enable_gqa=true (repeated key/value heads) is not modelled (Unsupported).
#include <cmath>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

using Idx = std::vector<IndexExpr>;

// The index of operand `op` ([lead..., a, b]) at the output's leading dims.
Idx attentionIndex(OpEnv &e, int op, const Idx &batch, const IndexExpr &a, const IndexExpr &b) {
  const Shape &s = e.inType(op).shape;
  Idx idx = broadcastIndex(Shape(s.begin(), s.end() - 2), batch);
  idx.push_back(a);
  idx.push_back(b);
  return idx;
}

double attentionScale(OpEnv &e) {
  const Attribute &scale = e.node.attr("scale");
  if (!scale.isNone()) return scale.asDouble();
  const Dim &n = e.inType(0).shape.back();
  if (!n.isConcrete()) e.unsupported("scale=None with a symbolic last dim of query");
  return 1.0 / std::sqrt(static_cast<double>(n.size()));
}

TermPtr attention(OpEnv &e) {
  DType d = e.outType().dtype;
  if (e.node.attr("dropout_p").asDouble() != 0.0) e.unsupported("dropout_p > 0 (random)");
  if (e.node.attr("enable_gqa").asBool()) e.unsupported("enable_gqa=true");
  bool causal = e.node.attr("is_causal").asBool();
  bool hasMask = e.node.inputs.size() > 3 && e.node.inputs[3];
  if (causal && hasMask) e.unsupported("is_causal with an attn_mask (PyTorch raises)");
  const size_t nb = e.index.size() - 2;
  const Idx batch(e.index.begin(), e.index.begin() + static_cast<std::ptrdiff_t>(nb));
  const IndexExpr &i = e.index[nb], &c = e.index[nb + 1];
  const Shape &ks = e.inType(1).shape;
  const Dim &keys = ks[ks.size() - 2];
  TermPtr scale = e.tc.constant(attentionScale(e), d);
  TermPtr negInf = e.tc.constant(-INFINITY, d);

  // s'_j of Note [Attention semantics], j a free index.
  auto masked = [&](const IndexExpr &j) {
    int v = e.tc.vars.fresh(e.inType(0).shape.back(), "k");
    IndexExpr ev = IndexExpr::var(v);
    TermPtr qk = e.tc.make(TOp::Mul, {e.operandAt(0, attentionIndex(e, 0, batch, i, ev), d),
                                      e.operandAt(1, attentionIndex(e, 1, batch, j, ev), d)}, d);
    TermPtr s = e.tc.make(TOp::Mul, {e.tc.reduce(TOp::Sum, v, qk, d, e.node.op), scale}, d);
    if (causal) return e.tc.select(e.tc.indexCmp(IndexCmpKind::Le, j, i), s, negInf);
    if (!hasMask) return s;
    Idx scores = batch;
    scores.push_back(i);
    scores.push_back(j);
    Idx at = broadcastIndex(e.inType(3).shape, scores);
    if (e.inType(3).dtype == DType::Bool) return e.tc.select(e.operandAt(3, at, DType::Bool), s, negInf);
    return e.tc.make(TOp::Add, {s, e.operandAt(3, at, d)}, d);
  };
  // Σ_j (or max_j) of f(j) over the keys.
  auto overKeys = [&](TOp op, const std::function<TermPtr(const IndexExpr &)> &f) {
    int v = e.tc.vars.fresh(keys, "k");
    return e.tc.reduce(op, v, f(IndexExpr::var(v)), d, e.node.op);
  };
  TermPtr m = overKeys(TOp::RMax, masked);
  auto weight = [&](const IndexExpr &j) { return e.tc.make(TOp::Exp, {e.tc.make(TOp::Sub, {masked(j), m}, d)}, d); };
  TermPtr z = overKeys(TOp::Sum, weight);
  return overKeys(TOp::Sum, [&](const IndexExpr &j) {
    TermPtr p = e.tc.make(TOp::Div, {weight(j), z}, d);
    return e.tc.make(TOp::Mul, {p, e.operandAt(2, attentionIndex(e, 2, batch, j, c), d)}, d);
  });
}

}  // namespace

void addAttention(HandlerTable &t) { t["aten::scaled_dot_product_attention"] = attention; }

}  // namespace torchtv::sem
