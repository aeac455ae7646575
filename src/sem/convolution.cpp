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
#include <algorithm>
#include <cmath>
#include <functional>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

using Idx = std::vector<IndexExpr>;

struct Window {
  std::vector<int64_t> stride, padding, dilation;
};

// An int[N] attribute (a schema default like `int[2] padding=0` may be one int).
std::vector<int64_t> intsOf(OpEnv &e, const char *name) {
  const Attribute &a = e.node.attr(name);
  if (a.isInt()) return {a.asInt()};
  if (a.isNone()) return {};
  return a.asInts();
}

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
  if (e.node.attrs.count("transposed") && e.node.attr("transposed").asBool()) e.unsupported("transposed convolution");
  if (e.node.attr("padding").isString()) e.unsupported("padding=\"" + e.node.attr("padding").asString() + "\"");
  DType d = e.outType().dtype;
  const Shape &x = e.inType(0).shape, &w = e.inType(1).shape;
  if (x.size() < 3 || w.size() != x.size()) e.unsupported("an unbatched input");
  Window win{intsOf(e, "stride"), intsOf(e, "padding"), intsOf(e, "dilation")};
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

// convolution_backward(grad_output [N, O, *P], input [N, C, *S], weight [O, C/g, *K], bias_sizes,
// stride, padding, dilation, transposed, output_padding, groups, output_mask):
//   grad_input[n, c, s...]  = sum_{o in group(c), k...} [s = tap(p, k) for an output p] g[n, o, p...] * w[o, c % Cg, k...]
//     where p = (s + padding - k * dilation) / stride when that divides and lies in [0, P)
//   grad_weight[o, c, k...] = sum_{n, p...} g[n, o, p...] * input[n, g(o) * Cg + c, tap(p, k)...] (0 at padding)
//   grad_bias[o]            = sum_{n, p...} g[n, o, p...]
TermPtr convolutionBackward(OpEnv &e) {
  if (e.node.attr("transposed").asBool()) e.unsupported("transposed convolution");
  const std::vector<int64_t> &mask = e.node.attr("output_mask").asInts();
  if (!mask.at(e.output)) e.unsupported("an output excluded by output_mask");
  DType d = e.outType().dtype;
  const Shape &gs = e.inType(0).shape, &x = e.inType(1).shape, &w = e.inType(2).shape;
  if (x.size() < 3 || w.size() != x.size()) e.unsupported("an unbatched input");
  Window win{intsOf(e, "stride"), intsOf(e, "padding"), intsOf(e, "dilation")};
  int64_t groups = e.node.attr("groups").asInt();
  size_t spatial = x.size() - 2;
  if (groups != 1 && (!w[0].isConcrete() || !w[1].isConcrete())) e.unsupported("groups with a symbolic channel count");
  const Idx &out = e.index;
  auto g = [&](const Idx &i) { return e.operandAt(0, i, d); };
  if (e.output == 2) {  // grad_bias
    std::vector<int64_t> dims = {0};
    for (size_t k = 0; k < spatial; ++k) dims.push_back(static_cast<int64_t>(2 + k));
    Idx at(gs.size(), IndexExpr::constant(0));
    at[1] = out[0];
    return sumDims(e, gs, dims, at, d, g);
  }
  if (e.output == 1) {  // grad_weight
    int n = e.tc.vars.fresh(gs[0], "n");
    std::vector<int> ps;
    for (size_t k = 0; k < spatial; ++k) ps.push_back(e.tc.vars.fresh(gs[2 + k], "p"));
    IndexExpr channel = out[1];
    if (groups != 1) channel = out[0].floorDiv(w[0].size() / groups, e.tc.vars) * w[1].size() + out[1];
    Idx gi = {IndexExpr::var(n), out[0]}, xi = {IndexExpr::var(n), channel};
    TermPtr inside = nullptr;
    for (size_t k = 0; k < spatial; ++k) {
      Tap t = tap(e, win, k, IndexExpr::var(ps[k]), out[2 + k], x[2 + k]);
      gi.push_back(IndexExpr::var(ps[k]));
      xi.push_back(t.pos);
      inside = both(e.tc, inside, t.inside);
    }
    TermPtr xv = e.operandAt(1, xi, d);
    if (inside) xv = e.tc.select(inside, xv, e.tc.constant(0, d));
    std::vector<int> vars = {n};
    vars.insert(vars.end(), ps.begin(), ps.end());
    return reduceAll(e, TOp::Sum, vars, e.tc.make(TOp::Mul, {g(gi), xv}, d), d);
  }
  // grad_input
  Shape kernel(w.begin() + 2, w.end());
  for (size_t k = 0; k < spatial; ++k)
    if (!gs[2 + k].isConcrete()) e.unsupported("grad_input with a symbolic output size");
  int64_t og = groups == 1 ? 0 : w[0].size() / groups;  // output channels per group
  Dim oExtent = groups == 1 ? w[0] : Dim(og);
  int o = e.tc.vars.fresh(oExtent, "o");
  std::vector<int> ks = kernelVars(e, kernel);
  IndexExpr oc = IndexExpr::var(o), wc = out[1];
  if (groups != 1) {
    oc = out[1].floorDiv(w[1].size(), e.tc.vars) * og + IndexExpr::var(o);
    wc = out[1].mod(w[1].size(), e.tc.vars);
  }
  Idx gi = {out[0], oc}, wi = {oc, wc};
  TermPtr hit = nullptr;
  for (size_t k = 0; k < spatial; ++k) {
    int64_t s = at(win.stride, k, 1), p = at(win.padding, k, 0), dl = at(win.dilation, k, 1);
    IndexExpr num = out[2 + k] + p + IndexExpr::var(ks[k]) * (-dl);  // s + padding - k * dilation
    IndexExpr pos = s == 1 ? num : num.floorDiv(s, e.tc.vars);
    TermPtr lo = e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(0), num);
    TermPtr hi = e.tc.indexCmp(IndexCmpKind::Lt, pos, IndexExpr::constant(gs[2 + k].size()));
    TermPtr h = both(e.tc, lo, hi);
    if (s != 1) h = both(e.tc, h, e.tc.indexCmp(IndexCmpKind::Eq, num.mod(s, e.tc.vars), IndexExpr::constant(0)));
    hit = both(e.tc, hit, h);
    gi.push_back(pos);
    wi.push_back(IndexExpr::var(ks[k]));
  }
  // A tap no output reads adds nothing (not 0 * weight: ATen skips it).
  TermPtr prod = e.tc.select(hit, e.tc.make(TOp::Mul, {g(gi), e.operandAt(2, wi, d)}, d), e.tc.constant(0, d));
  std::vector<int> vars = {o};
  vars.insert(vars.end(), ks.begin(), ks.end());
  return reduceAll(e, TOp::Sum, vars, prod, d);
}

// col2im(self [N?, C * KH * KW, L], output_size [H, W], kernel_size, dilation,
// padding, stride): the inverse layout of im2col (unfold), overlapping
// blocks added: with blocks BH x BW (L = BH * BW),
//   out[n, c, h, w] = sum_{kh, kw} [h = bh * sh - ph + kh * dh for a bh in [0, BH)] [same for w]
//                                  self[n, (c * KH + kh) * KW + kw, bh * BW + bw]
// as convolution_backward's grad_input finds its taps.
TermPtr col2im(OpEnv &e) {
  DType d = e.outType().dtype;
  const Shape &in = e.inType(0).shape, &out = e.outType().shape;
  if (in.size() != 2 && in.size() != 3) e.unsupported("rank other than 2 or 3");
  size_t lead = out.size() - 3;  // 1 with the batch dim
  Window win{intsOf(e, "stride"), intsOf(e, "padding"), intsOf(e, "dilation")};
  std::vector<int64_t> ks = intsOf(e, "kernel_size"), size = intsOf(e, "output_size");
  std::vector<int64_t> blocks;
  for (size_t k = 0; k < 2; ++k) {
    int64_t kk = at(ks, k, 1), s = at(win.stride, k, 1), p = at(win.padding, k, 0), dl = at(win.dilation, k, 1);
    blocks.push_back((at(size, k, 1) + 2 * p - dl * (kk - 1) - 1) / s + 1);
  }
  std::vector<int> kv = kernelVars(e, Shape{Dim(at(ks, 0, 1)), Dim(at(ks, 1, 1))});
  TermPtr hit = nullptr;
  IndexExpr block = IndexExpr::constant(0);
  for (size_t k = 0; k < 2; ++k) {
    int64_t s = at(win.stride, k, 1), p = at(win.padding, k, 0), dl = at(win.dilation, k, 1);
    IndexExpr num = e.index[lead + 1 + k] + p + IndexExpr::var(kv[k]) * (-dl);
    IndexExpr pos = s == 1 ? num : num.floorDiv(s, e.tc.vars);
    TermPtr h = both(e.tc, e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(0), num),
                     e.tc.indexCmp(IndexCmpKind::Lt, pos, IndexExpr::constant(blocks[k])));
    if (s != 1) h = both(e.tc, h, e.tc.indexCmp(IndexCmpKind::Eq, num.mod(s, e.tc.vars), IndexExpr::constant(0)));
    hit = both(e.tc, hit, h);
    block = block * blocks[k] + pos;
  }
  IndexExpr channel = (e.index[lead] * at(ks, 0, 1) + IndexExpr::var(kv[0])) * at(ks, 1, 1) + IndexExpr::var(kv[1]);
  Idx xi(e.index.begin(), e.index.begin() + lead);
  xi.push_back(channel);
  xi.push_back(block);
  TermPtr v = e.tc.select(hit, e.operandAt(0, xi, d), e.tc.constant(0, d));
  return reduceAll(e, TOp::Sum, kv, v, d);
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
  std::vector<int64_t> ks = intsOf(e, "kernel_size");
  std::vector<int64_t> stride = intsOf(e, "stride");
  for (size_t k = 0; k < p.spatial; ++k) {
    p.kernel.push_back(at(ks, k, 1));
    if (stride.empty()) p.win.stride.push_back(p.kernel.back());  // stride defaults to the kernel size
  }
  if (!stride.empty()) p.win.stride = stride;
  p.win.padding = intsOf(e, "padding");
  if (e.node.attrs.count("dilation")) p.win.dilation = intsOf(e, "dilation");
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

// Dim k's share of average pooling's divisor at output position o: the taps of
// the window inside [0, size), or with count_include_pad inside the padded
// input [-pad, size + pad) (ceil_mode's last window may run past both).
TermPtr windowCount(OpEnv &e, const Pool &p, size_t k, const IndexExpr &o, const Dim &size, bool includePad) {
  int64_t pad = at(p.win.padding, k, 0);
  if (pad == 0 && !p.ceilMode) return e.tc.intConstant(p.kernel[k], DType::I64);  // every window lies inside
  if (!size.isConcrete()) e.unsupported("padding or ceil_mode on a symbolic dim");
  int v = e.tc.vars.fresh(Dim(p.kernel[k]), "k");
  IndexExpr pos = o * at(p.win.stride, k, 1) + IndexExpr::var(v) * at(p.win.dilation, k, 1) + (-pad);
  TermPtr below = e.tc.indexCmp(IndexCmpKind::Lt, pos, IndexExpr::constant(size.size() + (includePad ? pad : 0)));
  TermPtr in = includePad ? below : both(e.tc, e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(0), pos), below);
  TermPtr one = e.tc.select(in, e.tc.intConstant(1, DType::I64), e.tc.intConstant(0, DType::I64));
  return e.tc.reduce(TOp::Sum, v, one, DType::I64, e.node.op);
}

// divisor_override when given, else the window's count.
TermPtr avgDivisor(OpEnv &e, TermPtr count, DType d) {
  const Attribute *over = e.node.attrs.count("divisor_override") ? &e.node.attr("divisor_override") : nullptr;
  return over && !over->isNone() ? e.tc.intConstant(over->asInt(), d) : e.tc.cast(count, d);
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
    count = e.tc.make(TOp::Mul, {count, windowCount(e, p, k, e.index[p.lead + k], x[p.lead + k], includePad)}, DType::I64);
  }
  TermPtr v = e.operandAt(0, xi, d);
  if (inside) v = e.tc.select(inside, v, e.tc.constant(0, d));
  TermPtr sum = reduceAll(e, TOp::Sum, vars, v, d);
  return e.tc.make(TOp::Div, {sum, avgDivisor(e, count, d)}, d);
}

// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override): ATen (CPU) adds each output
// position's grad_output / divisor (the forward's divisor) to every input
// position of its window:
//   grad_input[.., h, w] = sum over the windows (oh, ow) holding (h, w) of g[.., oh, ow] / divisor(oh, ow)
// The windows holding h are those of kernel offset k with oh = (h + padding - k) / stride
// where that divides and lies in [0, OH), as in convolution_backward.
TermPtr avgPoolBackward(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer average pooling");
  Pool p = poolOf(e);
  bool includePad = e.node.attr("count_include_pad").asBool();
  const Shape &gs = e.inType(0).shape, &x = e.inType(1).shape;
  std::vector<int> ks = kernelVars(e, Shape(p.kernel.begin(), p.kernel.end()));
  Idx gi(e.index.begin(), e.index.begin() + p.lead);
  TermPtr hit = nullptr, count = e.tc.intConstant(1, DType::I64);
  for (size_t k = 0; k < p.spatial; ++k) {
    if (!gs[p.lead + k].isConcrete()) e.unsupported("a symbolic output size");
    int64_t s = at(p.win.stride, k, 1), pad = at(p.win.padding, k, 0);
    IndexExpr num = e.index[p.lead + k] + pad + IndexExpr::var(ks[k]) * -1;
    IndexExpr pos = s == 1 ? num : num.floorDiv(s, e.tc.vars);
    TermPtr h = both(e.tc, e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(0), num),
                     e.tc.indexCmp(IndexCmpKind::Lt, pos, IndexExpr::constant(gs[p.lead + k].size())));
    if (s != 1) h = both(e.tc, h, e.tc.indexCmp(IndexCmpKind::Eq, num.mod(s, e.tc.vars), IndexExpr::constant(0)));
    hit = both(e.tc, hit, h);
    gi.push_back(pos);
    count = e.tc.make(TOp::Mul, {count, windowCount(e, p, k, pos, x[p.lead + k], includePad)}, DType::I64);
  }
  TermPtr share = e.tc.make(TOp::Div, {e.operandAt(0, gi, d), avgDivisor(e, count, d)}, d);
  return reduceAll(e, TOp::Sum, ks, e.tc.select(hit, share, e.tc.constant(0, d)), d);
}

// adaptive_avg_poolNd(self, output_size): output position o of a dim of
// input size I and output size O averages input [floor(o I / O), ceil((o + 1) I / O)).
// Where O divides I every window is o * (I / O) + [0, I / O); otherwise the
// windows differ per position (a select chain over them; concrete sizes only).
TermPtr adaptiveAvgPool(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer input");
  const std::string &op = e.node.op;
  size_t spatial = op.find("3d") != std::string::npos ? 3 : op.find("1d") != std::string::npos ? 1 : 2;
  const Shape &x = e.inType(0).shape, &y = e.outType().shape;
  if (x.size() < spatial + 1) e.unsupported("rank below " + std::to_string(spatial + 1));
  size_t lead = x.size() - spatial;
  for (size_t k = 0; k < spatial; ++k)
    if (!x[lead + k].isConcrete() || !y[lead + k].isConcrete()) e.unsupported("a symbolic spatial size");
  auto startOf = [&](size_t k, int64_t j) { return j * x[lead + k].size() / y[lead + k].size(); };
  auto endOf = [&](size_t k, int64_t j) {
    int64_t in = x[lead + k].size(), out = y[lead + k].size();
    return ((j + 1) * in + out - 1) / out;
  };
  auto uniform = [&](size_t k) { return y[lead + k].size() > 0 && x[lead + k].size() % y[lead + k].size() == 0; };
  // The window's sum: dim k's window given the earlier dims' positions.
  std::function<TermPtr(size_t, Idx)> sum = [&](size_t k, Idx pos) -> TermPtr {
    if (k == spatial) {
      Idx xi(e.index.begin(), e.index.begin() + lead);
      xi.insert(xi.end(), pos.begin(), pos.end());
      return e.operandAt(0, xi, d);
    }
    const IndexExpr &o = e.index[lead + k];
    auto window = [&](const IndexExpr &start, int64_t size) {
      int v = e.tc.vars.fresh(Dim(size), "k");
      Idx p = pos;
      p.push_back(start + IndexExpr::var(v));
      return e.tc.reduce(TOp::Sum, v, sum(k + 1, p), d, e.node.op);
    };
    int64_t in = x[lead + k].size(), out = y[lead + k].size();
    if (uniform(k)) return window(o * (in / out), in / out);
    return perPosition(e, o, out, [&](int64_t j) {
      return window(IndexExpr::constant(startOf(k, j)), endOf(k, j) - startOf(k, j));
    });
  };
  // ATen divides the window's sum by its number of cells.
  TermPtr cells = e.tc.intConstant(1, DType::I64);
  for (size_t k = 0; k < spatial; ++k) {
    int64_t in = x[lead + k].size(), out = y[lead + k].size();
    TermPtr n = uniform(k) ? e.tc.intConstant(in / out, DType::I64)
                           : perPosition(e, e.index[lead + k], out, [&](int64_t j) {
                               return e.tc.intConstant(endOf(k, j) - startOf(k, j), DType::I64);
                             });
    cells = e.tc.make(TOp::Mul, {cells, n}, DType::I64);
  }
  return e.tc.make(TOp::Div, {sum(0, {}), e.tc.cast(cells, d)}, d);
}

// _adaptive_avg_pool2d_backward(grad_output, self): ATen (CPU) adds each output
// position's grad_output / kh / kw to every input position of its window
// [floor(o I / O), ceil((o + 1) I / O)) (kh, kw: the window's sizes):
//   grad_input[.., h, w] = sum_{oh, ow} [h in window(oh)] [w in window(ow)] g[.., oh, ow] / kh(oh) / kw(ow)
// The window's bounds are floor divisions of the bound position; its size is
// counted over the input positions.
TermPtr adaptiveAvgPoolBackward(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer input");
  const Shape &gs = e.inType(0).shape, &x = e.inType(1).shape;
  if (x.size() < 3 || gs.size() != x.size()) e.unsupported("rank below 3");
  size_t lead = x.size() - 2;
  Idx gi(e.index.begin(), e.index.begin() + lead);
  std::vector<int> os;
  std::vector<std::function<TermPtr(const IndexExpr &)>> windowHas;
  TermPtr inside = nullptr;
  for (size_t k = 0; k < 2; ++k) {
    const Dim &in = x[lead + k], &out = gs[lead + k];
    if (!in.isConcrete() || !out.isConcrete()) e.unsupported("a symbolic spatial size");
    int64_t I = in.size(), O = out.size();
    if (O == 0) e.unsupported("an empty output");
    os.push_back(e.tc.vars.fresh(out, "o"));
    IndexExpr o = IndexExpr::var(os.back());
    gi.push_back(o);
    IndexExpr start = (o * I).floorDiv(O, e.tc.vars), end = (o * I + (I + O - 1)).floorDiv(O, e.tc.vars);
    windowHas.push_back([&e, start, end](const IndexExpr &pos) {
      return both(e.tc, e.tc.indexCmp(IndexCmpKind::Le, start, pos), e.tc.indexCmp(IndexCmpKind::Lt, pos, end));
    });
    inside = both(e.tc, inside, windowHas.back()(e.index[lead + k]));
  }
  TermPtr g = e.operandAt(0, gi, d);
  for (size_t k = 0; k < 2; ++k) {  // (g / kh) / kw, as ATen divides
    int v = e.tc.vars.fresh(x[lead + k], "k");
    TermPtr one = e.tc.select(windowHas[k](IndexExpr::var(v)), e.tc.intConstant(1, DType::I64), e.tc.intConstant(0, DType::I64));
    g = e.tc.make(TOp::Div, {g, e.tc.cast(e.tc.reduce(TOp::Sum, v, one, DType::I64, e.node.op), d)}, d);
  }
  return reduceAll(e, TOp::Sum, os, e.tc.select(inside, g, e.tc.constant(0, d)), d);
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride,
// padding, dilation, ceil_mode, indices): ATen (CPU) adds each output
// position's grad_output to the input position its index names (flat within
// the plane; -1 names none), without checking that it lies in the window:
//   grad_input[.., h, w] = sum_{oh, ow} [indices[.., oh, ow] == h * W + w] g[.., oh, ow]
// The flat position h * W + w becomes a value by counting (Note [Positions as
// values] in reduction.cpp). An index outside [0, H * W) names no position
// here; ATen writes outside the tensor there (not a defined result).
TermPtr maxPoolBackward(OpEnv &e) {
  DType d = e.outType().dtype;
  if (!isFloating(d)) e.unsupported("integer max pooling");
  const Shape &gs = e.inType(0).shape, &x = e.inType(1).shape;
  if (x.size() < 3 || gs.size() != x.size()) e.unsupported("rank below 3");
  size_t lead = x.size() - 2;
  if (!x[lead].isConcrete() || !x[lead + 1].isConcrete()) e.unsupported("a symbolic spatial size");
  int64_t W = x[lead + 1].size(), plane = x[lead].size() * W;
  IndexExpr flat = e.index[lead] * W + e.index[lead + 1];
  int q = e.tc.vars.fresh(Dim(plane), "q");
  TermPtr position = e.tc.reduce(TOp::Sum, q,
                                 e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, IndexExpr::var(q), flat),
                                             e.tc.intConstant(1, DType::I64), e.tc.intConstant(0, DType::I64)),
                                 DType::I64, e.node.op);
  Idx gi(e.index.begin(), e.index.begin() + lead);
  std::vector<int> os;
  for (size_t k = 0; k < 2; ++k) {
    os.push_back(e.tc.vars.fresh(gs[lead + k], "o"));
    gi.push_back(IndexExpr::var(os.back()));
  }
  TermPtr named = e.tc.make(TOp::Eq, {e.operandAt(2, gi, DType::I64), position}, DType::I64);
  return reduceAll(e, TOp::Sum, os, e.tc.select(named, e.operandAt(0, gi, d), e.tc.constant(0, d)), d);
}

// upsample_nearest2d.vec(input, output_size?, scale_factors?): output position o
// reads input position min(floor(o * scale), I - 1) with scale = 1 / scale_factor
// or I / O, in float, as ATen's nearest_idx (O == I: o; O == 2 I: o / 2).
TermPtr upsampleNearest(OpEnv &e) {
  const Shape &x = e.inType(0).shape, &y = e.outType().shape;
  if (x.size() != 4) e.unsupported("rank other than 4");
  const Attribute &factors = e.node.attr("scale_factors");
  Idx xi = {e.index[0], e.index[1]};
  std::vector<std::pair<size_t, std::vector<int64_t>>> chains;  // dims mapped per position
  for (size_t k = 0; k < 2; ++k) {
    if (!x[2 + k].isConcrete() || !y[2 + k].isConcrete()) e.unsupported("a symbolic spatial size");
    int64_t in = x[2 + k].size(), out = y[2 + k].size();
    const IndexExpr &o = e.index[2 + k];
    float scale = static_cast<float>(in) / static_cast<float>(out);
    if (!factors.isNone()) {
      double f = factors.isInts() ? static_cast<double>(factors.asInts().at(k)) : factors.asFloats().at(k);
      if (f > 0) scale = static_cast<float>(1.0 / f);
    }
    if (out == in) {
      xi.push_back(o);
    } else if (out == 2 * in) {
      xi.push_back(o.floorDiv(2, e.tc.vars));
    } else {
      std::vector<int64_t> map;
      for (int64_t j = 0; j < out; ++j)
        map.push_back(std::min(static_cast<int64_t>(std::floor(static_cast<float>(j) * scale)), in - 1));
      chains.push_back({k, map});
      xi.push_back(IndexExpr::constant(0));
    }
  }
  DType d = e.outType().dtype;
  std::function<TermPtr(size_t, Idx)> build = [&](size_t c, Idx at) -> TermPtr {
    if (c == chains.size()) return e.operandAt(0, at, d);
    auto [k, map] = chains[c];
    return perPosition(e, e.index[2 + k], static_cast<int64_t>(map.size()), [&, k = k, map = map](int64_t j) {
      Idx a = at;
      a[2 + k] = IndexExpr::constant(map[j]);
      return build(c + 1, a);
    });
  };
  return build(0, xi);
}

// upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?):
// ATen (CPU, upsample_generic_Nd_kernel_impl) reads, per output position o of
// a dim of input size I and output size O, the source position
//   r = align_corners ? o * (I - 1) / (O - 1) : max((o + 0.5) / scale - 0.5, 0)
// (scale = scale_factor, or O / I), in the dtype's compute type (float for
// f32, double for f64), taps i0 = floor(r) and i1 = i0 + (i0 < I - 1), and
// weights l1 = clamp(r - i0, 0, 1), l0 = 1 - l1, stored in the dtype; then
//   out = (x[h0, w0] * lw0 + x[h0, w1] * lw1) * lh0 + (x[h1, w0] * lw0 + x[h1, w1] * lw1) * lh1.
// The taps and weights are constants per position (a select chain over the
// positions, concrete sizes). Real-only at level bitwise (ir/bitwise_faithful.cpp).
TermPtr upsampleBilinear(OpEnv &e) {
  DType d = e.outType().dtype;
  if (d != DType::F32 && d != DType::F64) e.unsupported("a dtype other than f32 and f64");
  const Shape &x = e.inType(0).shape, &y = e.outType().shape;
  if (x.size() != 4) e.unsupported("rank other than 4");
  bool alignCorners = e.node.attr("align_corners").asBool();
  const Attribute &factors = e.node.attr("scale_factors");
  struct Taps {
    std::vector<int64_t> i0, i1;
    std::vector<double> l0, l1;
  };
  Taps taps[2];
  for (size_t k = 0; k < 2; ++k) {
    if (!x[2 + k].isConcrete() || !y[2 + k].isConcrete()) e.unsupported("a symbolic spatial size");
    int64_t in = x[2 + k].size(), out = y[2 + k].size();
    double f = 0;
    if (!factors.isNone()) f = factors.isInts() ? static_cast<double>(factors.asInts().at(k)) : factors.asFloats().at(k);
    auto source = [&](auto zero) {  // in the compute type of `zero`
      using T = decltype(zero);
      for (int64_t o = 0; o < out; ++o) {
        T scale = alignCorners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                               : (f > 0 ? static_cast<T>(1.0 / f) : static_cast<T>(in) / static_cast<T>(out));
        T r = alignCorners ? scale * static_cast<T>(o)
                           : std::max(scale * (static_cast<T>(o) + T(0.5)) - T(0.5), T(0));
        auto i0 = static_cast<int64_t>(r);
        T l1 = std::min(std::max(r - static_cast<T>(i0), T(0)), T(1));
        taps[k].i0.push_back(i0);
        taps[k].i1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
        taps[k].l1.push_back(static_cast<double>(l1));
        taps[k].l0.push_back(static_cast<double>(T(1) - l1));
      }
    };
    if (d == DType::F32) source(0.0f);
    else source(0.0);
  }
  auto mul = [&](TermPtr a, TermPtr b) { return e.tc.make(TOp::Mul, {a, b}, d); };
  auto add = [&](TermPtr a, TermPtr b) { return e.tc.make(TOp::Add, {a, b}, d); };
  return perPosition(e, e.index[2], static_cast<int64_t>(taps[0].i0.size()), [&](int64_t oh) {
    return perPosition(e, e.index[3], static_cast<int64_t>(taps[1].i0.size()), [&](int64_t ow) {
      auto at = [&](int64_t h, int64_t w) {
        return e.operandAt(0, {e.index[0], e.index[1], IndexExpr::constant(h), IndexExpr::constant(w)}, d);
      };
      auto row = [&](int64_t h) {
        return add(mul(at(h, taps[1].i0[ow]), e.tc.constant(taps[1].l0[ow], d)),
                   mul(at(h, taps[1].i1[ow]), e.tc.constant(taps[1].l1[ow], d)));
      };
      return add(mul(row(taps[0].i0[oh]), e.tc.constant(taps[0].l0[oh], d)),
                 mul(row(taps[0].i1[oh]), e.tc.constant(taps[0].l1[oh], d)));
    });
  });
}

}  // namespace

void addConvolution(HandlerTable &t) {
  t["aten::convolution"] = convolution;
  // conv1d/2d/3d(input, weight, bias?, stride, padding, dilation, groups): convolution, not transposed.
  for (const char *name : {"aten::conv1d", "aten::conv2d", "aten::conv3d"}) t[name] = convolution;
  t["aten::convolution_backward"] = convolutionBackward;
  t["aten::col2im"] = col2im;
  for (const char *name : {"aten::_adaptive_avg_pool2d", "aten::adaptive_avg_pool1d", "aten::_adaptive_avg_pool3d",
                           "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d"})
    t[name] = adaptiveAvgPool;
  t["aten::upsample_nearest2d.vec"] = upsampleNearest;
  t["aten::upsample_bilinear2d.vec"] = upsampleBilinear;
  // max_pool2d/3d (which LibTorch runs through the _with_indices kernels) for the audit.
  for (const char *name : {"aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices", "aten::max_pool2d",
                           "aten::max_pool3d", "aten::max_pool1d"})
    t[name] = maxPool;
  for (const char *name : {"aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d"}) t[name] = avgPool;
  t["aten::avg_pool2d_backward"] = avgPoolBackward;
  t["aten::_adaptive_avg_pool2d_backward"] = adaptiveAvgPoolBackward;
  t["aten::max_pool2d_with_indices_backward"] = maxPoolBackward;
}

}  // namespace torchtv::sem
