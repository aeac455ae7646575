// Convolution and pooling as sums (folds) over the kernel window.
//
// Note [Windows]
// Output position o of a spatial dim reads input position
//   i = o * stride - padding + k * dilation,   k in [0, kernel)
// and a position outside [0, size) is padding: 0 for a convolution, skipped
// for max pooling (-inf, which max ignores), and for average pooling counted
// or not by the op's flags. The guard is a select on index comparisons, so a
// read outside the input is never taken (Note [Data-dependent indices] is not
// needed: the positions are index expressions). Convolution and pooling
// accumulate in the order of their kernels (oneDNN, im2col + GEMM): the sums
// are reductions, opaque at level bitwise (Note [Bitwise regions]) and within
// rounding in the semantics audit. Transposed convolution has no term yet.
#include <cmath>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

using Idx = std::vector<IndexExpr>;

struct Window {
  std::vector<int64_t> stride, padding, dilation;
};

int64_t at(const std::vector<int64_t> &v, size_t k, int64_t dflt) {
  if (v.empty()) return dflt;
  return v.size() == 1 ? v[0] : v.at(k);
}

// The input position read by output position `o` at kernel offset `k`, and
// the condition that it lies inside the input (nullptr: always).
struct Tap {
  IndexExpr pos;
  TermPtr inside = nullptr;
};

Tap tap(OpEnv &e, const Window &w, size_t k, const IndexExpr &o, const IndexExpr &kv, const Dim &size) {
  int64_t s = at(w.stride, k, 1), p = at(w.padding, k, 0), d = at(w.dilation, k, 1);
  Tap t{o * s + kv * d + (-p)};
  if (p == 0) return t;  // with no padding every window lies inside (the output size says so)
  if (!size.isConcrete()) e.unsupported("padding of a symbolic dim");
  TermPtr lo = e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(0), t.pos);
  TermPtr hi = e.tc.indexCmp(IndexCmpKind::Lt, t.pos, IndexExpr::constant(size.size()));
  t.inside = e.tc.make(TOp::And, {lo, hi}, DType::Bool);
  return t;
}

TermPtr both(TermContext &tc, TermPtr a, TermPtr b) {
  if (!a) return b;
  if (!b) return a;
  return tc.make(TOp::And, {a, b}, DType::Bool);
}

// Binds one variable per kernel dim; returns the variables.
std::vector<int> kernelVars(OpEnv &e, const Shape &kernel) {
  std::vector<int> v;
  for (const Dim &k : kernel) v.push_back(e.tc.vars.fresh(k, "k"));
  return v;
}

TermPtr reduceAll(OpEnv &e, TOp op, const std::vector<int> &vars, TermPtr body, DType d) {
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) body = e.tc.reduce(op, *it, body, d, e.node.op);
  return body;
}

// convolution(input [N, C, *S], weight [O, C/groups, *K], bias [O]?):
//   out[n, o, s...] = bias[o] + sum_{c, k...} input[n, g(o) * C/groups + c, tap(s, k)...] * weight[o, c, k...]
TermPtr convolution(OpEnv &e) {
  if (e.node.attr("transposed").asBool()) e.unsupported("transposed convolution");
  DType d = e.outType().dtype;
  const Shape &x = e.inType(0).shape, &w = e.inType(1).shape;
  if (x.size() < 3 || w.size() != x.size()) e.unsupported("an unbatched input");
  Window win{e.node.attr("stride").asInts(), e.node.attr("padding").asInts(), e.node.attr("dilation").asInts()};
  int64_t groups = e.node.attr("groups").asInt();
  const Idx &out = e.index;
  Shape kernel(w.begin() + 2, w.end());
  int c = e.tc.vars.fresh(w[1], "c");
  std::vector<int> ks = kernelVars(e, kernel);
  IndexExpr channel = IndexExpr::var(c);
  if (groups != 1) {  // input channel: group of o times channels per group, plus c
    if (!w[0].isConcrete() || !w[1].isConcrete()) e.unsupported("groups with a symbolic channel count");
    channel = out[1].floorDiv(w[0].size() / groups, e.tc.vars) * w[1].size() + IndexExpr::var(c);
  }
  Idx xi = {out[0], channel};
  Idx wi = {out[1], IndexExpr::var(c)};
  TermPtr inside = nullptr;
  for (size_t k = 0; k < kernel.size(); ++k) {
    Tap t = tap(e, win, k, out[2 + k], IndexExpr::var(ks[k]), x[2 + k]);
    xi.push_back(t.pos);
    wi.push_back(IndexExpr::var(ks[k]));
    inside = both(e.tc, inside, t.inside);
  }
  // A padding tap is a 0 times the weight, as in ATen's kernels (0 * inf is NaN).
  TermPtr xv = e.operandAt(0, xi, d);
  if (inside) xv = e.tc.select(inside, xv, e.tc.constant(0, d));
  TermPtr prod = e.tc.make(TOp::Mul, {xv, e.operandAt(1, wi, d)}, d);
  std::vector<int> vars = {c};
  vars.insert(vars.end(), ks.begin(), ks.end());
  TermPtr sum = reduceAll(e, TOp::Sum, vars, prod, d);
  if (e.node.inputs.size() > 2 && e.node.inputs[2])
    sum = e.tc.make(TOp::Add, {sum, e.operandAt(2, {out[1]}, d)}, d);
  return sum;
}

// Pooling over the last `spatial` dims (1, 2 or 3, from the op's name).
struct Pool {
  size_t spatial, lead;
  Window win;
  std::vector<int64_t> kernel;
  bool ceilMode;
};

Pool poolOf(OpEnv &e) {
  const std::string &op = e.node.op;
  Pool p;
  p.spatial = op.find("3d") != std::string::npos ? 3 : op.find("1d") != std::string::npos ? 1 : 2;
  const Shape &x = e.inType(0).shape;
  if (x.size() < p.spatial + 1) e.unsupported("rank below " + std::to_string(p.spatial + 1));
  p.lead = x.size() - p.spatial;
  const std::vector<int64_t> &ks = e.node.attr("kernel_size").asInts();
  std::vector<int64_t> stride = e.node.attr("stride").asInts();
  for (size_t k = 0; k < p.spatial; ++k) {
    p.kernel.push_back(at(ks, k, 1));
    if (stride.empty()) p.win.stride.push_back(p.kernel.back());  // stride defaults to the kernel size
  }
  if (!stride.empty()) p.win.stride = stride;
  p.win.padding = e.node.attr("padding").asInts();
  if (e.node.attrs.count("dilation")) p.win.dilation = e.node.attr("dilation").asInts();
  p.ceilMode = e.node.attr("ceil_mode").asBool();
  return p;
}

// The window's taps of output dim k: position and inside-condition; ceil_mode
// lets the last window run past the end even without padding.
Tap poolTap(OpEnv &e, const Pool &p, size_t k, int var) {
  const Dim &size = e.inType(0).shape[p.lead + k];
  Tap t = tap(e, p.win, k, e.index[p.lead + k], IndexExpr::var(var), size);
  if (!t.inside && p.ceilMode) {
    if (!size.isConcrete()) e.unsupported("ceil_mode on a symbolic dim");
    t.inside = e.tc.indexCmp(IndexCmpKind::Lt, t.pos, IndexExpr::constant(size.size()));
  }
  return t;
}

// max_poolNd(_with_indices): the values (the indices output has no term).
// NaN wins (ATen: val > max || isnan(val)), as in a Maximum fold.
TermPtr maxPool(OpEnv &e) {
  if (e.output != 0) e.unsupported("the indices output");
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer max pooling");
  Pool p = poolOf(e);
  Shape kernel(p.kernel.begin(), p.kernel.end());
  std::vector<int> vars = kernelVars(e, kernel);
  Idx xi(e.index.begin(), e.index.begin() + p.lead);
  TermPtr inside = nullptr;
  for (size_t k = 0; k < p.spatial; ++k) {
    Tap t = poolTap(e, p, k, vars[k]);
    xi.push_back(t.pos);
    inside = both(e.tc, inside, t.inside);
  }
  TermPtr v = e.operandAt(0, xi, d);
  if (inside) v = e.tc.select(inside, v, e.tc.constant(-INFINITY, d));
  return reduceAll(e, TOp::RMax, vars, v, d);
}

// avg_poolNd(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override?): ATen (CPU) sums the window's taps inside the input and
// divides by divisor_override, or by the window's size clipped to the padded
// input (count_include_pad), or by the number of taps inside the input.
TermPtr avgPool(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer average pooling");
  Pool p = poolOf(e);
  bool includePad = e.node.attr("count_include_pad").asBool();
  const Shape &x = e.inType(0).shape;
  Shape kernel(p.kernel.begin(), p.kernel.end());
  std::vector<int> vars = kernelVars(e, kernel);
  Idx xi(e.index.begin(), e.index.begin() + p.lead);
  TermPtr inside = nullptr;
  TermPtr count = e.tc.intConstant(1, DType::I64);
  for (size_t k = 0; k < p.spatial; ++k) {
    Tap t = poolTap(e, p, k, vars[k]);
    xi.push_back(t.pos);
    inside = both(e.tc, inside, t.inside);
    // This dim's share of the divisor: the taps inside [0, size) (or [-pad, size + pad)).
    TermPtr counted = t.inside;
    if (includePad && t.inside) {
      int64_t pad = at(p.win.padding, k, 0);
      counted = e.tc.indexCmp(IndexCmpKind::Lt, t.pos, IndexExpr::constant(x[p.lead + k].size() + pad));
    }
    TermPtr n = e.tc.intConstant(p.kernel[k], DType::I64);
    if (counted) {
      int v = e.tc.vars.fresh(kernel[k], "k");
      TermPtr one = e.tc.select(e.tc.substitute(counted, vars[k], IndexExpr::var(v)), e.tc.intConstant(1, DType::I64),
                                e.tc.intConstant(0, DType::I64));
      n = e.tc.reduce(TOp::Sum, v, one, DType::I64, e.node.op);
    }
    count = e.tc.make(TOp::Mul, {count, n}, DType::I64);
  }
  TermPtr v = e.operandAt(0, xi, d);
  if (inside) v = e.tc.select(inside, v, e.tc.constant(0, d));
  TermPtr sum = reduceAll(e, TOp::Sum, vars, v, d);
  const Attribute *over = e.node.attrs.count("divisor_override") ? &e.node.attr("divisor_override") : nullptr;
  TermPtr divisor = over && !over->isNone() ? e.tc.intConstant(over->asInt(), d) : e.tc.cast(count, d);
  return e.tc.make(TOp::Div, {sum, divisor}, d);
}

}  // namespace

void addConvolution(HandlerTable &t) {
  t["aten::convolution"] = convolution;
  // max_pool2d/3d (which LibTorch runs through the _with_indices kernels) for the audit.
  for (const char *name : {"aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices", "aten::max_pool2d",
                           "aten::max_pool3d", "aten::max_pool1d"})
    t[name] = maxPool;
  for (const char *name : {"aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d"}) t[name] = avgPool;
}

}  // namespace torchtv::sem
