// Composite ATen ops that autograd emits, by their formulas (as PyTorch's CPU
// kernels compute them, up to the order of reductions).
//
// Note [Composite ops: which definition rules]
// An ATen op with a kernel of its own (a composite op that autograd emits, an
// activation) is defined by its C++ semantics in src/sem; a definition of it
// in fusions/*.tvir is derived from that one. The C++ is what the evaluator
// runs, what the prover encodes at level bitwise, what the semantics audit
// measures against LibTorch (ir/bitwise_faithful.cpp), and it covers every
// dtype, rank and attribute the op accepts; the .tvir restates it in graph
// ops, for the cases its templates match, so that a graph that calls the op
// and one that spells out its formula meet node for node in the matcher.
// Neither can be generated from the other (a term is per element, a template
// is graph ops), so both stay, and they must agree: tests/unit/test_fusions.cpp
// proves every bundled definition equal to the C++ semantics at two sets of
// shapes (multi-output native_layer_norm through its goldens), and
// tests/oracle/run_decomp_oracle.py holds the .tvir against torch._decomp.
// When they disagree the C++ is the reference and the .tvir the bug. An op
// with no C++ semantics (a user's fused kernel, Inductor's kernels) is
// defined by its .tvir alone. Formulas shared between ops (sigmoid, silu,
// gelu) are written once in src/sem/derived.h (Note [Derived operations]).
#include <cmath>

#include "ir/op_registry.h"
#include "src/sem/derived.h"
#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

using Idx = std::vector<IndexExpr>;

// Sum over dim `dim` of operand-derived body, at the output index `at`
// (the dim's coordinate is replaced by the binder).
TermPtr sumAlong(OpEnv &e, int64_t dim, const Dim &extent, DType d, const std::function<TermPtr(const Idx &)> &body,
                 TOp op = TOp::Sum) {
  int v = e.tc.vars.fresh(extent, "k");
  Idx idx = e.index;
  idx[dim] = IndexExpr::var(v);
  return e.tc.reduce(op, v, body(idx), d, e.node.op);
}

int64_t dimAttr(OpEnv &e) {
  auto d = wrapDim(e.node.attr("dim").asInt(), e.outType().rank());
  if (!d) e.unsupported("dim out of range");
  return *d;
}

// softmax (or log-softmax) of the operand along `dim`; `rowMax` gets the max.
TermPtr softmaxAlong(OpEnv &e, int64_t dim, DType d, bool log, TermPtr *rowMax = nullptr) {
  const Dim &n = e.outType().shape[dim];
  auto x = [&](const Idx &i) { return e.operandAt(0, i, d); };
  TermPtr m = sumAlong(e, dim, n, d, x, TOp::RMax);
  if (rowMax) *rowMax = m;
  auto shifted = [&](const Idx &i) { return e.tc.make(TOp::Sub, {x(i), m}, d); };
  TermPtr s = sumAlong(e, dim, n, d, [&](const Idx &i) { return e.tc.make(TOp::Exp, {shifted(i)}, d); });
  if (log) return e.tc.make(TOp::Sub, {shifted(e.index), e.tc.make(TOp::Log, {s}, d)}, d);
  return e.tc.make(TOp::Div, {e.tc.make(TOp::Exp, {shifted(e.index)}, d), s}, d);
}

TermPtr softmaxLike(OpEnv &e, bool log) {
  if (e.node.attr("half_to_float").asBool()) e.unsupported("half_to_float");
  return softmaxAlong(e, dimAttr(e), e.outType().dtype, log);
}

// Note [_safe_softmax]
// torch >= 2.5's math attention (_scaled_dot_product_attention_math) calls
// _safe_softmax: softmax, except that a row whose elements are all -inf gives
// 0 instead of NaN. A row is all -inf exactly when its max is -inf, hence
// select(isinf(max) and max < 0, 0, softmax): bit for bit what ATen returns,
// NaN and +inf rows included. Over the reals no value is infinite, so the real
// normal form reads it as the softmax; a row masked with -inf is covered by
// the assumption of Note [Masked -inf] that some element is not masked.
TermPtr safeSoftmax(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!e.node.attr("dtype").isNone() || e.inType(0).dtype != d) e.unsupported("a dtype argument");
  TermPtr m;
  TermPtr y = softmaxAlong(e, dimAttr(e), d, false, &m);
  TermPtr allMasked = e.tc.make(TOp::And, {e.tc.make(TOp::IsInf, {m}, d),
                                           e.tc.make(TOp::Lt, {m, e.tc.constant(0, d)}, d)}, d);
  return e.tc.select(allMasked, e.tc.constant(0, d), y);
}

// Note [logsumexp as ATen computes it]
// ATen (CPU, torch 1.13 and 2.x) computes logsumexp(x, dims) as
//   m  = amax(x, dims, keepdim=true);  m' = |m| == inf ? 0 : m
//   log(sum(exp(x - m'), dims)) + m'
// (the in-place masked_fill_ on the squeezed maxima also changes the kept
// ones: they share storage). The shift keeps exp from overflowing; over the
// reals any shift independent of the reduced index cancels, so the real normal
// form sees log(sum exp(x)). An all -inf row gives -inf, a +inf gives +inf
// (log(inf) + 0), a NaN propagates: the same as the select below in IEEE.
TermPtr logsumexpOf(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d) || e.inType(0).dtype != d) e.unsupported("an integral input (ATen casts it first)");
  const Shape &in = e.inType(0).shape;
  // An empty dim list reduces every dim, in amax and sum alike.
  std::vector<int64_t> dims = reductionDims(e.node.attr("dim"), static_cast<int64_t>(in.size()));
  bool keepdim = e.node.attr("keepdim").asBool();
  auto x = [&](const Idx &i) { return e.operandAt(0, i, d); };
  TermPtr m = reduceDims(e, TOp::RMax, dims, keepdim, d, x);
  TermPtr inf = e.tc.make(TOp::IsInf, {m}, d);
  TermPtr shift = e.tc.select(inf, e.tc.constant(0, d), m);
  TermPtr s = reduceDims(e, TOp::Sum, dims, keepdim, d, [&](const Idx &i) {
    return e.tc.make(TOp::Exp, {e.tc.make(TOp::Sub, {x(i), shift}, d)}, d);
  });
  return e.tc.make(TOp::Add, {e.tc.make(TOp::Log, {s}, d), shift}, d);
}

// Note [Batch norm] (below).
TermPtr batchNorm(OpEnv &e) {
  DType d = e.outType().dtype;
  const std::string &op = e.node.op;
  bool training = op != "aten::_native_batch_norm_legit_no_training" && e.node.attr("training").asBool();
  bool stats = op != "aten::_native_batch_norm_legit.no_stats";  // operands 3, 4 are the running statistics
  auto has = [&](size_t i) { return e.node.inputs.size() > i && e.node.inputs[i]; };
  const Shape &xs = e.inType(0).shape;
  if (xs.size() < 2) e.unsupported("rank below 2");
  DType in = e.inType(0).dtype;
  if (in != d && e.output == 0) e.unsupported("mixed dtypes");
  if (!isFloating(d)) e.unsupported("integer input");
  const Idx &o = e.index;
  IndexExpr ch = e.output == 0 ? o[1] : (o.empty() ? IndexExpr::constant(0) : o[0]);
  TermPtr eps = e.tc.constant(e.node.attr("eps").asDouble(), d);
  TermPtr one = e.tc.constant(1, d);
  TermPtr mean, var;  // var: what invstd is computed from
  TermPtr unbiased = nullptr;
  if (training) {
    std::vector<int64_t> dims = {0};
    for (size_t k = 2; k < xs.size(); ++k) dims.push_back(static_cast<int64_t>(k));
    int64_t n = countOf(xs, dims, e);
    Idx at(xs.size(), IndexExpr::constant(0));
    at[1] = ch;
    auto sum = [&](const std::function<TermPtr(const Idx &)> &body) { return sumDims(e, xs, dims, at, d, body); };
    mean = e.tc.make(TOp::Div, {sum([&](const Idx &i) { return e.operandAt(0, i, d); }), e.tc.intConstant(n, d)}, d);
    TermPtr sq = sum([&](const Idx &i) {
      TermPtr c = e.tc.make(TOp::Sub, {e.operandAt(0, i, d), mean}, d);
      return e.tc.make(TOp::Mul, {c, c}, d);
    });
    var = e.tc.make(TOp::Div, {sq, e.tc.intConstant(n, d)}, d);
    unbiased = e.tc.make(TOp::Div, {sq, e.tc.intConstant(std::max<int64_t>(n - 1, 0), d)}, d);
  } else {
    if (!stats || !has(3) || !has(4)) e.unsupported("evaluation without running statistics");
    if (e.output == 3 || e.output == 4) return e.operandAt(e.output, {ch}, d);  // _functional: unchanged
    if (e.output != 0) return e.tc.constant(0, d);  // empty tensors: no element is ever read
    mean = e.operandAt(3, {ch}, d);
    var = e.operandAt(4, {ch}, d);
  }
  TermPtr invstd = e.tc.make(TOp::Div, {one, e.tc.make(TOp::Sqrt, {e.tc.make(TOp::Add, {var, eps}, d)}, d)}, d);
  if (e.output == 1) return mean;
  if (e.output == 2) return invstd;
  if (e.output == 3 || e.output == 4) {  // _functional: the new running statistics
    if (!stats || !has(3 + (e.output - 3))) e.unsupported("running statistics without operands");
    TermPtr m = e.tc.constant(e.node.attr("momentum").asDouble(), d);
    TermPtr old = e.operandAt(e.output, {ch}, d);
    TermPtr batch = e.output == 3 ? mean : unbiased;
    return e.tc.make(TOp::Add, {e.tc.make(TOp::Mul, {e.tc.make(TOp::Sub, {one, m}, d), old}, d),
                                e.tc.make(TOp::Mul, {m, batch}, d)}, d);
  }
  TermPtr alpha = has(1) ? e.tc.make(TOp::Mul, {invstd, e.operandAt(1, {ch}, d)}, d) : invstd;
  TermPtr bias = has(2) ? e.operandAt(2, {ch}, d) : e.tc.constant(0, d);
  TermPtr beta = e.tc.make(TOp::Sub, {bias, e.tc.make(TOp::Mul, {mean, alpha}, d)}, d);
  return e.tc.make(TOp::Add, {e.tc.make(TOp::Mul, {e.operand(0, d), alpha}, d), beta}, d);
}

// native_group_norm(input [N, C, *S], weight?, bias?, N, C, HxW, group, eps) ->
// (out, mean [N, G], rstd [N, G]): the statistics of each (n, group) over the group's
// C / G channels and every spatial position (biased variance), rstd = 1 / sqrt(var + eps);
// ATen (CPU) then computes x * (rstd * w) + (b - mean * rstd * w): real-only at level
// bitwise (ir/bitwise_faithful.cpp), like batch norm.
TermPtr groupNorm(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer input");
  const Shape &xs = e.inType(0).shape;
  if (xs.size() < 2 || !xs[1].isConcrete()) e.unsupported("a symbolic channel count");
  int64_t groups = e.node.attr("group").asInt();
  int64_t cg = xs[1].size() / groups;
  auto has = [&](size_t i) { return e.node.inputs.size() > i && e.node.inputs[i]; };
  IndexExpr n = e.index.at(0);
  IndexExpr grp = e.output == 0 ? e.index[1].floorDiv(cg, e.tc.vars) : e.index.at(1);
  // Sum over the group's channels and the spatial dims, at (n, grp).
  auto sum = [&](const std::function<TermPtr(const Idx &)> &body) {
    std::vector<int> vars = {e.tc.vars.fresh(Dim(cg), "c")};
    Idx at = {n, grp * cg + IndexExpr::var(vars[0])};
    for (size_t k = 2; k < xs.size(); ++k) {
      vars.push_back(e.tc.vars.fresh(xs[k], "s"));
      at.push_back(IndexExpr::var(vars.back()));
    }
    TermPtr t = body(at);
    for (auto it = vars.rbegin(); it != vars.rend(); ++it) t = e.tc.reduce(TOp::Sum, *it, t, d, e.node.op);
    return t;
  };
  std::vector<int64_t> spatialDims;
  for (size_t k = 2; k < xs.size(); ++k) spatialDims.push_back(static_cast<int64_t>(k));
  TermPtr count = e.tc.intConstant(cg * countOf(xs, spatialDims, e), d);
  TermPtr mean = e.tc.make(TOp::Div, {sum([&](const Idx &i) { return e.operandAt(0, i, d); }), count}, d);
  TermPtr var = e.tc.make(TOp::Div, {sum([&](const Idx &i) {
                                       TermPtr c = e.tc.make(TOp::Sub, {e.operandAt(0, i, d), mean}, d);
                                       return e.tc.make(TOp::Mul, {c, c}, d);
                                     }), count}, d);
  TermPtr eps = e.tc.constant(e.node.attr("eps").asDouble(), d);
  TermPtr rstd = e.tc.make(TOp::Div, {e.tc.constant(1, d), e.tc.make(TOp::Sqrt, {e.tc.make(TOp::Add, {var, eps}, d)}, d)}, d);
  if (e.output == 1) return mean;
  if (e.output == 2) return rstd;
  TermPtr scale = has(1) ? e.tc.make(TOp::Mul, {rstd, e.operandAt(1, {e.index[1]}, d)}, d) : rstd;
  TermPtr beta = has(2) ? e.operandAt(2, {e.index[1]}, d) : e.tc.constant(0, d);
  TermPtr bias = e.tc.make(TOp::Sub, {beta, e.tc.make(TOp::Mul, {mean, scale}, d)}, d);
  return e.tc.make(TOp::Add, {e.tc.make(TOp::Mul, {e.operand(0, d), scale}, d), bias}, d);
}

// native_group_norm_backward(grad_out, input [N, C, *S], mean [N, G], rstd [N, G], weight?,
// N, C, HxW, group, output_mask), as ATen's CPU kernel (torch 1.13) computes it, with
// ds[n, c] = sum_s g * x and db[n, c] = sum_s g over the spatial positions, D = C / G:
//   grad_input[n, c, s] = rstd * w[c] * g + c2 * x + c3, where over the group's channels
//     dsg = sum_c ds[n, c] * w[c], dbg = sum_c db[n, c] * w[c],
//     c2 = (dbg * mean - dsg) * rstd^3 / (D * HxW), c3 = -c2 * mean - dbg * rstd / (D * HxW)
//   grad_weight[c] = sum_n (ds[n, c] - db[n, c] * mean[n, g]) * rstd[n, g]
//   grad_bias[c]   = sum_n db[n, c]
// Real-only at level bitwise (Note [Batch norm]).
TermPtr groupNormBackward(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer input");
  const std::vector<int64_t> &mask = e.node.attr("output_mask").asInts();
  if (!mask.at(e.output)) e.unsupported("an output excluded by output_mask");
  const Shape &xs = e.inType(1).shape;
  if (xs.size() < 2 || !xs[1].isConcrete()) e.unsupported("a symbolic channel count");
  int64_t groups = e.node.attr("group").asInt(), cg = xs[1].size() / groups;
  bool hasW = e.node.inputs.size() > 4 && e.node.inputs[4];
  std::vector<int64_t> spatial;
  for (size_t k = 2; k < xs.size(); ++k) spatial.push_back(static_cast<int64_t>(k));
  auto w = [&](const IndexExpr &c) { return hasW ? e.operandAt(4, {c}, d) : e.tc.constant(1, d); };
  auto mul = [&](TermPtr a, TermPtr b) { return e.tc.make(TOp::Mul, {a, b}, d); };
  // ds or db at (n, c): sums over the spatial positions.
  auto spatialSum = [&](const IndexExpr &n, const IndexExpr &c, bool withX) {
    Idx at(xs.size(), IndexExpr::constant(0));
    at[0] = n;
    at[1] = c;
    return sumDims(e, xs, spatial, at, d, [&](const Idx &i) {
      TermPtr g = e.operandAt(0, i, d);
      return withX ? mul(g, e.operandAt(1, i, d)) : g;
    });
  };
  if (e.output == 1 || e.output == 2) {
    IndexExpr c = e.index[0];
    int nv = e.tc.vars.fresh(xs[0], "n");
    IndexExpr n = IndexExpr::var(nv);
    TermPtr db = spatialSum(n, c, false);
    TermPtr body = db;
    if (e.output == 1) {
      Idx stat = {n, c.floorDiv(cg, e.tc.vars)};
      TermPtr centered = e.tc.make(TOp::Sub, {spatialSum(n, c, true), mul(db, e.operandAt(2, stat, d))}, d);
      body = mul(centered, e.operandAt(3, stat, d));
    }
    return e.tc.reduce(TOp::Sum, nv, body, d, e.node.op);
  }
  IndexExpr n = e.index[0], grp = e.index[1].floorDiv(cg, e.tc.vars);
  Idx stat = {n, grp};
  TermPtr mean = e.operandAt(2, stat, d), rstd = e.operandAt(3, stat, d);
  auto overGroup = [&](bool withX) {
    int cv = e.tc.vars.fresh(Dim(cg), "c");
    IndexExpr c = grp * cg + IndexExpr::var(cv);
    return e.tc.reduce(TOp::Sum, cv, mul(spatialSum(n, c, withX), w(c)), d, e.node.op);
  };
  TermPtr dsg = overGroup(true), dbg = overGroup(false);
  TermPtr s = e.tc.make(TOp::Div, {e.tc.constant(1, d), e.tc.intConstant(cg * countOf(xs, spatial, e), d)}, d);
  TermPtr rstd3 = mul(mul(rstd, rstd), rstd);
  TermPtr c2 = mul(mul(e.tc.make(TOp::Sub, {mul(dbg, mean), dsg}, d), rstd3), s);
  TermPtr c3 = e.tc.make(TOp::Sub, {mul(e.tc.make(TOp::Neg, {c2}, d), mean), mul(mul(dbg, rstd), s)}, d);
  TermPtr dy = mul(mul(rstd, w(e.index[1])), e.operand(0, d));
  return e.tc.make(TOp::Add, {e.tc.make(TOp::Add, {dy, mul(c2, e.operand(1, d))}, d), c3}, d);
}

// native_batch_norm_backward(grad_out, input, weight?, running_mean?, running_var?, save_mean?,
// save_invstd?, train, eps, output_mask), as ATen's CPU kernel (torch 1.13) computes it per
// channel c, with sums over N and the spatial dims:
//   train:  mean, invstd = save_mean, save_invstd; dotp = sum (x - mean) * g
//           grad_input = (g - sum(g) / n - (x - mean) * (dotp * invstd * invstd / n)) * invstd * w
//   eval:   mean = running_mean, invstd = 1 / sqrt(running_var + eps); grad_input = g * invstd * w
//   grad_weight = dotp * invstd, grad_bias = sum(g)
// Real-only at level bitwise (Note [Batch norm]).
TermPtr batchNormBackward(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer input");
  const std::vector<int64_t> &mask = e.node.attr("output_mask").asInts();
  if (!mask.at(e.output)) e.unsupported("an output excluded by output_mask");
  auto has = [&](size_t i) { return e.node.inputs.size() > i && e.node.inputs[i]; };
  bool train = e.node.attr("train").asBool();
  const Shape &xs = e.inType(1).shape;
  if (xs.size() < 2) e.unsupported("rank below 2");
  IndexExpr ch = e.output == 0 ? e.index[1] : e.index[0];
  TermPtr one = e.tc.constant(1, d);
  TermPtr mean, invstd;
  if (train) {
    if (!has(5) || !has(6)) e.unsupported("training without saved statistics");
    mean = e.operandAt(5, {ch}, d);
    invstd = e.operandAt(6, {ch}, d);
  } else {
    if (!has(3) || !has(4)) e.unsupported("evaluation without running statistics");
    mean = e.operandAt(3, {ch}, d);
    TermPtr eps = e.tc.constant(e.node.attr("eps").asDouble(), d);
    invstd = e.tc.make(TOp::Div, {one, e.tc.make(TOp::Sqrt, {e.tc.make(TOp::Add, {e.operandAt(4, {ch}, d), eps}, d)}, d)}, d);
  }
  std::vector<int64_t> dims = {0};
  for (size_t k = 2; k < xs.size(); ++k) dims.push_back(static_cast<int64_t>(k));
  Idx at(xs.size(), IndexExpr::constant(0));
  at[1] = ch;
  auto sum = [&](const std::function<TermPtr(const Idx &)> &body) { return sumDims(e, xs, dims, at, d, body); };
  auto g = [&](const Idx &i) { return e.operandAt(0, i, d); };
  auto centered = [&](const Idx &i) { return e.tc.make(TOp::Sub, {e.operandAt(1, i, d), mean}, d); };
  if (e.output == 2) return sum(g);
  TermPtr dotp = sum([&](const Idx &i) { return e.tc.make(TOp::Mul, {centered(i), g(i)}, d); });
  if (e.output == 1) return e.tc.make(TOp::Mul, {dotp, invstd}, d);
  TermPtr w = has(2) ? e.operandAt(2, {ch}, d) : one;
  TermPtr scale = e.tc.make(TOp::Mul, {invstd, w}, d);
  if (!train) return e.tc.make(TOp::Mul, {g(e.index), scale}, d);
  TermPtr n = e.tc.intConstant(countOf(xs, dims, e), d);
  TermPtr k = e.tc.make(TOp::Div, {e.tc.make(TOp::Mul, {e.tc.make(TOp::Mul, {dotp, invstd}, d), invstd}, d), n}, d);
  TermPtr gradMean = e.tc.make(TOp::Div, {sum(g), n}, d);
  TermPtr dx = e.tc.make(TOp::Mul, {centered(e.index), k}, d);
  TermPtr r = e.tc.make(TOp::Sub, {e.tc.make(TOp::Sub, {g(e.index), gradMean}, d), dx}, d);
  return e.tc.make(TOp::Mul, {r, scale}, d);
}

// Index of a layer-norm statistic (mean/rstd have 1 in the normalized dims).
Idx statIndex(const Idx &x, size_t axis) {
  Idx s = x;
  for (size_t k = axis; k < s.size(); ++k) s[k] = IndexExpr::constant(0);
  return s;
}

// The normalized dims of a layer norm over `xs`: axis .. rank-1.
std::vector<int64_t> normalizedDims(const Shape &xs, size_t axis) {
  std::vector<int64_t> dims;
  for (size_t k = axis; k < xs.size(); ++k) dims.push_back(static_cast<int64_t>(k));
  return dims;
}


// ATen's CPU kernel (GeluKernel.cpp), with b = sqrt(2/pi), k = 0.044715:
//   t = tanh(b * (x + k * x^3))
//   g * (0.5 * (1 + t) + 0.5 * x * (1 - t^2) * b * (1 + 3 * k * x^2))
TermPtr geluTanhBackward(OpEnv &e, DType d) {
  auto c = [&](double v) { return e.tc.constant(v, d); };
  auto mul = [&](TermPtr a, TermPtr b) { return e.tc.make(TOp::Mul, {a, b}, d); };
  auto add = [&](TermPtr a, TermPtr b) { return e.tc.make(TOp::Add, {a, b}, d); };
  TermPtr x = e.operand(1, d);
  TermPtr x2 = mul(x, x);
  TermPtr inner = mul(c(kGeluTanhBeta), add(x, mul(c(kGeluTanhKappa), mul(x2, x))));
  TermPtr t = e.tc.make(TOp::Tanh, {inner}, d);
  TermPtr left = mul(c(0.5), add(c(1), t));
  TermPtr oneMinusT2 = e.tc.make(TOp::Sub, {c(1), mul(t, t)}, d);
  TermPtr slope = mul(c(kGeluTanhBeta), add(c(1), mul(mul(c(3), c(kGeluTanhKappa)), x2)));
  TermPtr right = mul(mul(mul(c(0.5), x), oneMinusT2), slope);
  return mul(e.operand(0, d), add(left, right));
}

}  // namespace

void addComposite(HandlerTable &t) {
  t["aten::_softmax"] = [](OpEnv &e) { return softmaxLike(e, false); };
  t["aten::_log_softmax"] = [](OpEnv &e) { return softmaxLike(e, true); };
  t["aten::_safe_softmax"] = safeSoftmax;
  // softmax.int / log_softmax.int without a dtype, or with the operand's own
  // (ATen casts to it: a copy), are _softmax / _log_softmax.
  for (const char *name : {"aten::softmax.int", "aten::log_softmax.int"}) {
    bool log = std::string(name).find("log_") != std::string::npos;
    t[name] = [log](OpEnv &e) {
      DType d = e.outType().dtype;
      if (e.inType(0).dtype != d) e.unsupported("a dtype argument other than the operand's");
      return softmaxAlong(e, dimAttr(e), d, log);
    };
  }
  t["aten::logsumexp"] = logsumexpOf;
  t["aten::_softmax_backward_data"] = [](OpEnv &e) {  // y * (g - sum(g * y))
    DType d = e.outType().dtype;
    int64_t dim = dimAttr(e);
    TermPtr s = sumAlong(e, dim, e.outType().shape[dim], d, [&](const Idx &i) {
      return e.tc.make(TOp::Mul, {e.operandAt(0, i, d), e.operandAt(1, i, d)}, d);
    });
    TermPtr y = e.operand(1, d);
    return e.tc.make(TOp::Mul, {y, e.tc.make(TOp::Sub, {e.operand(0, d), s}, d)}, d);
  };
  t["aten::_log_softmax_backward_data"] = [](OpEnv &e) {  // g - exp(out) * sum(g)
    DType d = e.outType().dtype;
    int64_t dim = dimAttr(e);
    TermPtr s = sumAlong(e, dim, e.outType().shape[dim], d, [&](const Idx &i) { return e.operandAt(0, i, d); });
    TermPtr p = e.tc.make(TOp::Exp, {e.operand(1, d)}, d);
    return e.tc.make(TOp::Sub, {e.operand(0, d), e.tc.make(TOp::Mul, {p, s}, d)}, d);
  };
  // Note [Batch norm]
  // native_batch_norm(input [N, C, *S], weight?, bias?, running_mean?, running_var?, training,
  // momentum, eps) and torch.export's _native_batch_norm_legit* (the same operands; no_training
  // has no `training`, _functional returns the new running statistics too). ATen's CPU kernel
  // (torch 1.13) normalizes as x * alpha + beta with invstd = 1 / sqrt(var + eps),
  // alpha = invstd * weight, beta = bias - mean * alpha; the statistics are the running ones in
  // evaluation and the batch's (biased variance) in training, where save_mean/save_invstd are
  // those and the running statistics become (1 - momentum) * running + momentum * batch (the
  // variance unbiased). Evaluation returns empty statistics. Real-only at level bitwise
  // (ir/bitwise_faithful.cpp): the kernel's order of rounding is its own.
  // (_native_batch_norm_legit itself updates the running statistics in place: the .pt2
  // reader reads it as the _functional form, Note [Batch norm's running statistics].)
  for (const char *name : {"aten::native_batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::_native_batch_norm_legit_functional",
                           "aten::_native_batch_norm_legit.no_stats"})
    t[name] = batchNorm;
  t["aten::native_group_norm"] = groupNorm;
  t["aten::native_group_norm_backward"] = groupNormBackward;
  // batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps,
  // cudnn_enabled): native_batch_norm's output (its running statistics update is a side effect
  // that a functional graph writes out separately).
  t["aten::batch_norm"] = batchNorm;
  t["aten::native_batch_norm_backward"] = batchNormBackward;
  t["aten::native_layer_norm"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    const Shape &xs = e.inType(0).shape;
    size_t axis = xs.size() - e.node.attr("normalized_shape").asInts().size();
    std::vector<int64_t> dims = normalizedDims(xs, axis);
    int64_t n = countOf(xs, dims, e);
    // Statistics at the output index with the normalized dims at 0.
    Idx at = statIndex(e.index, axis);
    auto sumBody = [&](const std::function<TermPtr(const Idx &)> &body) { return sumDims(e, xs, dims, at, d, body); };
    TermPtr count = e.tc.intConstant(n, d);
    TermPtr mean = e.tc.make(TOp::Div, {sumBody([&](const Idx &i) { return e.operandAt(0, i, d); }), count}, d);
    TermPtr var = e.tc.make(TOp::Div, {sumBody([&](const Idx &i) {
                                         TermPtr c = e.tc.make(TOp::Sub, {e.operandAt(0, i, d), mean}, d);
                                         return e.tc.make(TOp::Mul, {c, c}, d);
                                       }), count}, d);
    TermPtr rstd = e.tc.make(TOp::Rsqrt, {e.tc.make(TOp::Add, {var, e.tc.constant(e.node.attr("eps").asDouble(), d)}, d)}, d);
    if (e.output == 1) return mean;
    if (e.output == 2) return rstd;
    TermPtr y = e.tc.make(TOp::Mul, {e.tc.make(TOp::Sub, {e.operand(0, d), mean}, d), rstd}, d);
    Idx p(e.index.begin() + axis, e.index.end());
    if (e.node.inputs.size() > 1 && e.node.inputs[1]) y = e.tc.make(TOp::Mul, {y, e.operandAt(1, p, d)}, d);
    if (e.node.inputs.size() > 2 && e.node.inputs[2]) y = e.tc.make(TOp::Add, {y, e.operandAt(2, p, d)}, d);
    return y;
  };
  // layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable): native_layer_norm's output.
  t["aten::layer_norm"] = t.at("aten::native_layer_norm");
  t["aten::native_layer_norm_backward"] = [](OpEnv &e) {
    // operands: grad_out, input, mean, rstd, weight, bias
    DType d = e.outType().dtype;
    const std::vector<int64_t> &mask = e.node.attr("output_mask").asInts();
    if (!mask.at(e.output)) e.unsupported("an output excluded by output_mask");
    const Shape &xs = e.inType(1).shape;
    size_t axis = xs.size() - e.node.attr("normalized_shape").asInts().size();
    bool hasW = e.node.inputs.size() > 4 && e.node.inputs[4];
    auto w = [&](const Idx &i) {
      Idx p(i.begin() + axis, i.end());
      return hasW ? e.operandAt(4, p, d) : e.tc.constant(1, d);
    };
    auto xhat = [&](const Idx &i) {
      Idx s = statIndex(i, axis);
      return e.tc.make(TOp::Mul, {e.tc.make(TOp::Sub, {e.operandAt(1, i, d), e.operandAt(2, s, d)}, d), e.operandAt(3, s, d)}, d);
    };
    auto g = [&](const Idx &i) { return e.operandAt(0, i, d); };
    if (e.output == 0) {
      std::vector<int64_t> dims = normalizedDims(xs, axis);
      int64_t n = countOf(xs, dims, e);
      Idx at = statIndex(e.index, axis);
      auto sumN = [&](const std::function<TermPtr(const Idx &)> &body) { return sumDims(e, xs, dims, at, d, body); };
      // dx = rstd * (g*w - mean(g*w) - xhat * mean(g*w*xhat))
      auto gw = [&](const Idx &i) { return e.tc.make(TOp::Mul, {g(i), w(i)}, d); };
      TermPtr count = e.tc.intConstant(n, d);
      TermPtr m1 = e.tc.make(TOp::Div, {sumN(gw), count}, d);
      TermPtr m2 = e.tc.make(TOp::Div, {sumN([&](const Idx &i) { return e.tc.make(TOp::Mul, {gw(i), xhat(i)}, d); }), count}, d);
      TermPtr inner = e.tc.make(TOp::Sub, {e.tc.make(TOp::Sub, {gw(e.index), m1}, d), e.tc.make(TOp::Mul, {xhat(e.index), m2}, d)}, d);
      return e.tc.make(TOp::Mul, {e.operandAt(3, at, d), inner}, d);
    }
    // grad_weight / grad_bias: sums over the leading (batch) dims.
    std::vector<int> vars;
    Idx idx;
    for (size_t k = 0; k < axis; ++k) {
      vars.push_back(e.tc.vars.fresh(xs[k], "k"));
      idx.push_back(IndexExpr::var(vars.back()));
    }
    for (const IndexExpr &p : e.index) idx.push_back(p);
    TermPtr s = e.output == 1 ? e.tc.make(TOp::Mul, {g(idx), xhat(idx)}, d) : g(idx);
    for (auto it = vars.rbegin(); it != vars.rend(); ++it) s = e.tc.reduce(TOp::Sum, *it, s, d, e.node.op);
    return s;
  };
  t["aten::mse_loss"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    int64_t red = e.node.attr("reduction").asInt();
    if (red == 0) {
      TermPtr diff = e.tc.make(TOp::Sub, {e.operand(0, d), e.operand(1, d)}, d);
      return e.tc.make(TOp::Mul, {diff, diff}, d);
    }
    // Input and target broadcast (as ATen does, with a warning); the loss
    // reduces over the broadcast shape.
    const Shape s = broadcastShapes(e.inType(0).shape, e.inType(1).shape);
    std::vector<int64_t> dims;
    for (size_t k = 0; k < s.size(); ++k) dims.push_back(static_cast<int64_t>(k));
    TermPtr sum = sumDims(e, s, dims, Idx(s.size()), d, [&](const Idx &i) {
      TermPtr x = e.operandAt(0, broadcastIndex(e.inType(0).shape, i), d);
      TermPtr diff = e.tc.make(TOp::Sub, {x, e.operandAt(1, broadcastIndex(e.inType(1).shape, i), d)}, d);
      return e.tc.make(TOp::Mul, {diff, diff}, d);
    });
    if (red == 2) return sum;
    return e.tc.make(TOp::Div, {sum, e.tc.intConstant(countOf(s, dims, e), d)}, d);
  };
  t["aten::mse_loss_backward"] = [](OpEnv &e) {  // norm * (x - t) * g
    DType d = e.outType().dtype;
    int64_t red = e.node.attr("reduction").asInt();
    double norm = 2.0;
    if (red == 1) {
      auto n = numel(e.outType().shape);
      if (!n) e.unsupported("symbolic numel");
      norm = 2.0 / static_cast<double>(*n);
    }
    TermPtr diff = e.tc.make(TOp::Sub, {e.operand(1, d), e.operand(2, d)}, d);
    return e.tc.make(TOp::Mul, {e.tc.make(TOp::Mul, {e.tc.constant(norm, d), diff}, d), e.operand(0, d)}, d);
  };
  t["aten::gelu_backward"] = [](OpEnv &e) {
    DType d = e.outType().dtype;
    const std::string &approx = e.node.attr("approximate").asString();
    if (approx == "tanh") return geluTanhBackward(e, d);
    if (approx != "none") e.unsupported("approximate=" + approx);
    // cdf = 0.5 * (1 + erf(x * kGeluErfScale)); pdf = kGeluPdfScale * exp(-0.5 * x * x); g * (cdf + x * pdf)
    TermPtr x = e.operand(1, d);
    TermPtr cdf = e.tc.make(TOp::Mul, {e.tc.constant(0.5, d),
                                       e.tc.make(TOp::Add, {e.tc.constant(1, d), e.tc.make(TOp::Erf, {e.tc.make(TOp::Mul, {x, e.tc.constant(kGeluErfScale, d)}, d)}, d)}, d)}, d);
    TermPtr ex = e.tc.make(TOp::Exp, {e.tc.make(TOp::Mul, {e.tc.make(TOp::Mul, {e.tc.constant(-0.5, d), x}, d), x}, d)}, d);
    TermPtr pdf = e.tc.make(TOp::Mul, {e.tc.constant(kGeluPdfScale, d), ex}, d);
    return e.tc.make(TOp::Mul, {e.operand(0, d), e.tc.make(TOp::Add, {cdf, e.tc.make(TOp::Mul, {x, pdf}, d)}, d)}, d);
  };
  t["aten::silu_backward"] = [](OpEnv &e) {  // g * s * (1 + x * (1 - s)), s = sigmoid(x)
    DType d = e.outType().dtype;
    TermPtr x = e.operand(1, d);
    TermPtr s = e.tc.make(TOp::Sigmoid, {x}, d);
    TermPtr one = e.tc.constant(1, d);
    TermPtr inner = e.tc.make(TOp::Add, {one, e.tc.make(TOp::Mul, {x, e.tc.make(TOp::Sub, {one, s}, d)}, d)}, d);
    return e.tc.make(TOp::Mul, {e.tc.make(TOp::Mul, {e.operand(0, d), s}, d), inner}, d);
  };
}

}  // namespace torchtv::sem
