// Layout ops as exact index maps (Note [Index expressions]).
#include <algorithm>
#include <limits>

#include "ir/legacy_cat.h"
#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

std::vector<int64_t> concreteShape(OpEnv &e, const Shape &s) {
  std::vector<int64_t> out;
  for (const Dim &d : s) {
    if (!d.isConcrete()) e.unsupported("a symbolic dim in a reshape");
    out.push_back(d.size());
  }
  return out;
}

int64_t wrapped(OpEnv &e, int64_t dim, int64_t rank) {
  auto d = wrapDim(dim, rank);
  if (!d) e.unsupported("dim out of range");
  return *d;
}

TermPtr passThrough(OpEnv &e, const std::vector<IndexExpr> &idx) {
  return e.operandAt(0, idx, e.outType().dtype);
}

// Row-major flat offset of an index into a shape.
IndexExpr flatOffset(const std::vector<IndexExpr> &idx, const std::vector<int64_t> &shape) {
  IndexExpr flat = IndexExpr::constant(0);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    flat = flat + idx[d] * stride;
    stride *= shape[d];
  }
  return flat;
}

TermPtr view(OpEnv &e) {
  const Shape &inS = e.inType(0).shape, &outS = e.outType().shape;
  if (inS == outS) return passThrough(e, e.index);
  std::vector<int64_t> in = concreteShape(e, inS), out = concreteShape(e, outS);
  IndexExpr flat = flatOffset(e.index, out);
  std::vector<IndexExpr> idx(in.size());
  int64_t stride = 1;
  for (size_t d = in.size(); d-- > 0;) {
    idx[d] = flat.floorDiv(stride, e.tc.vars).mod(in[d], e.tc.vars);
    stride *= in[d];
  }
  return passThrough(e, idx);
}

// Note [_reshape_alias is a reshape]
// The IR is logical: a value is its elements in row-major order, with no
// strides. make_fx records `reshape` that can be a view as
// _reshape_alias(self, size, stride), where `stride` is what ATen's
// computeStride derived from self's physical strides so that the view shows
// self's elements in row-major reshape order (the recorded strides are not
// contiguous after a transpose or an expand, and mean nothing logically).
// So its semantics is reshape(self, size); stride lists of the wrong length
// or with negative entries, which no reshape produces, are refused.
TermPtr reshapeAlias(OpEnv &e) {
  const std::vector<int64_t> &stride = e.node.attr("stride").asInts();
  if (stride.size() != static_cast<size_t>(e.outType().rank())) e.unsupported("a stride list of another rank");
  for (int64_t s : stride)
    if (s < 0) e.unsupported("a negative stride");
  return view(e);
}

TermPtr permuteBy(OpEnv &e, const std::vector<int64_t> &perm) {
  // out[i_0..] = in[j] with j[perm[k]] = i_k
  std::vector<IndexExpr> idx(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) idx[perm[k]] = e.index[k];
  return passThrough(e, idx);
}

TermPtr triangle(OpEnv &e, bool lower) {
  int64_t r = e.outType().rank();
  if (r < 2) e.unsupported("rank below 2");
  int64_t diag = e.node.attr("diagonal").asInt();
  const IndexExpr &i = e.index[r - 2], &j = e.index[r - 1];
  // tril keeps j - i <= diagonal; triu keeps j - i >= diagonal.
  TermPtr keep = lower ? e.tc.indexCmp(IndexCmpKind::Le, j, i + diag) : e.tc.indexCmp(IndexCmpKind::Le, i + diag, j);
  DType d = e.outType().dtype;
  return e.tc.select(keep, e.operand(0, d), e.tc.constant(0, d));
}

}  // namespace

void addLayout(HandlerTable &t) {
  // Sizes as values (torch >= 2.0; a 0-dim result): known where the dims are concrete.
  t["aten::sym_size.int"] = [](OpEnv &e) {
    const Shape &x = e.inType(0).shape;
    auto d = wrapDim(e.node.attr("dim").asInt(), static_cast<int64_t>(x.size()));
    if (!d || !x[*d].isConcrete()) e.unsupported("a symbolic dim");
    return e.tc.intConstant(x[*d].size(), e.outType().dtype);
  };
  t["aten::sym_numel"] = [](OpEnv &e) {
    const Shape &x = e.inType(0).shape;
    std::vector<int64_t> all;
    for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) all.push_back(d);
    return e.tc.intConstant(countOf(x, all, e), e.outType().dtype);
  };
  // _local_scalar_dense(self) (Tensor.item()): the one element of self.
  t["aten::_local_scalar_dense"] = [](OpEnv &e) {
    const Shape &x = e.inType(0).shape;
    for (const Dim &d : x)
      if (!d.isConcrete() || d.size() != 1) e.unsupported("a tensor of more than one element (ATen raises)");
    return e.operandAt(0, std::vector<IndexExpr>(x.size(), IndexExpr::constant(0)), e.outType().dtype);
  };
  t["prims::item"] = t.at("aten::_local_scalar_dense");
  // prims::maximum_value(dtype): the largest finite value of dtype, as a Python number (a
  // 0-dim tensor of the dtype the artifact gives: dtype itself, or f64 / i64 as Python holds it).
  t["prims::maximum_value"] = [](OpEnv &e) {
    DType of = e.node.attr("dtype").asDType(), out = e.outType().dtype;
    if (out != of && out != (isFloating(of) ? DType::F64 : DType::I64)) e.unsupported("a result of another dtype");
    switch (of) {
    case DType::Bool: return e.tc.intConstant(1, out);
    case DType::U8: return e.tc.intConstant(std::numeric_limits<uint8_t>::max(), out);
    case DType::I8: return e.tc.intConstant(std::numeric_limits<int8_t>::max(), out);
    case DType::I16: return e.tc.intConstant(std::numeric_limits<int16_t>::max(), out);
    case DType::I32: return e.tc.intConstant(std::numeric_limits<int32_t>::max(), out);
    case DType::I64: return e.tc.intConstant(std::numeric_limits<int64_t>::max(), out);
    case DType::F16: return e.tc.constant(65504.0, out);
    case DType::BF16: return e.tc.constant(3.3895313892515355e38, out);
    case DType::F32: return e.tc.constant(std::numeric_limits<float>::max(), out);
    case DType::F64: return e.tc.constant(std::numeric_limits<double>::max(), out);
    default: e.unsupported("dtype " + std::string(dtypeName(of)));
    }
  };
    // copy(self, src): src broadcast to self's shape, in self's dtype (self is
  // not read); fill.Tensor(self, value) the same with a 0-dim value.
  t["aten::copy"] = [](OpEnv &e) { return e.operand(1, e.outType().dtype); };
  t["aten::fill.Tensor"] = t.at("aten::copy");
  // repeat(x, repeats): the output has len(repeats) dims; x's dims are the
  // trailing ones, each read modulo its size.
  t["aten::repeat"] = [](OpEnv &e) {
    const Shape &in = e.inType(0).shape;
    size_t lead = e.index.size() - in.size();
    std::vector<IndexExpr> idx;
    for (size_t d = 0; d < in.size(); ++d) {
      if (!in[d].isConcrete()) e.unsupported("repeat of a symbolic dim");
      idx.push_back(in[d].size() == 0 ? e.index[lead + d] : e.index[lead + d].mod(in[d].size(), e.tc.vars));
    }
    return passThrough(e, idx);
  };
  // select_scatter(self, src, dim, index): src at position `index` of `dim`, self elsewhere.
  t["aten::select_scatter"] = [](OpEnv &e) {
    const Shape &in = e.inType(0).shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(in.size()));
    if (!in[d].isConcrete()) e.unsupported("select_scatter along a symbolic dim");
    int64_t at = e.node.attr("index").asInt();
    if (at < 0) at += in[d].size();
    if (at < 0 || at >= in[d].size()) e.unsupported("index out of range");
    DType dt = e.outType().dtype;
    std::vector<IndexExpr> srcIdx = e.index;
    srcIdx.erase(srcIdx.begin() + d);
    TermPtr hit = e.tc.indexCmp(IndexCmpKind::Eq, e.index[d], IndexExpr::constant(at));
    return e.tc.select(hit, e.operandAt(1, srcIdx, dt), e.operandAt(0, e.index, dt));
  };
  // diagonal(x, offset, dim1, dim2): dim1 and dim2 removed, a last dim k added:
  // x[..., k + max(-offset, 0) at dim1, k + max(offset, 0) at dim2, ...].
  t["aten::diagonal"] = [](OpEnv &e) {
    int64_t r = e.inType(0).rank();
    int64_t d1 = wrapped(e, e.node.attr("dim1").asInt(), r), d2 = wrapped(e, e.node.attr("dim2").asInt(), r);
    if (d1 == d2) e.unsupported("dim1 == dim2");
    int64_t off = e.node.attr("offset").asInt();
    std::vector<IndexExpr> idx(r);
    size_t o = 0;
    for (int64_t d = 0; d < r; ++d)
      if (d != d1 && d != d2) idx[d] = e.index[o++];
    const IndexExpr &k = e.index.back();
    idx[d1] = k + std::max<int64_t>(-off, 0);
    idx[d2] = k + std::max<int64_t>(off, 0);
    return passThrough(e, idx);
  };
  // Note [Reflection and replication padding]
  // reflection_padNd / replication_padNd pad the last N dims by pad = [left, right, ...]
  // (last dim first). Output position i reads input position j = i - left mapped into
  // [0, size): reflection mirrors without repeating the edge (j < 0: -j; j >= size:
  // 2 (size - 1) - j), replication clamps. Selects on index comparisons; concrete dims only.
  for (const char *name : {"aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d",
                           "aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d"}) {
    bool reflect = std::string(name).find("reflection") != std::string::npos;
    t[name] = [reflect](OpEnv &e) {
      const std::vector<int64_t> &pad = e.node.attr("padding").asInts();
      const Shape &in = e.inType(0).shape;
      int64_t r = static_cast<int64_t>(in.size());
      DType dt = e.outType().dtype;
      // Every combination of (below, inside, above) per padded dim is one read.
      std::vector<std::vector<std::pair<TermPtr, IndexExpr>>> choices;  // per padded dim: (condition, position)
      std::vector<int64_t> dims;
      for (size_t k = 0; 2 * k < pad.size(); ++k) {
        int64_t d = r - 1 - static_cast<int64_t>(k);
        if (!in[d].isConcrete()) e.unsupported("padding a symbolic dim");
        int64_t size = in[d].size(), left = pad[2 * k];
        if (reflect && (left >= size || pad[2 * k + 1] >= size)) e.unsupported("padding not smaller than the dim");
        IndexExpr j = e.index[d] + (-left);
        TermPtr below = e.tc.indexCmp(IndexCmpKind::Lt, j, IndexExpr::constant(0));
        TermPtr above = e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(size), j);
        choices.push_back({{below, reflect ? j * -1 : IndexExpr::constant(0)},
                           {above, reflect ? j * -1 + 2 * (size - 1) : IndexExpr::constant(size - 1)},
                           {nullptr, j}});
        dims.push_back(d);
      }
      std::function<TermPtr(size_t, std::vector<IndexExpr>)> build = [&](size_t k, std::vector<IndexExpr> idx) -> TermPtr {
        if (k == dims.size()) return e.operandAt(0, idx, dt);
        TermPtr result = nullptr;
        for (auto it = choices[k].rbegin(); it != choices[k].rend(); ++it) {
          idx[dims[k]] = it->second;
          TermPtr v = build(k + 1, idx);
          result = it->first ? e.tc.select(it->first, v, result) : v;
        }
        return result;
      };
      return build(0, e.index);
    };
  }
  t["aten::view"] = view;
  t["aten::flatten.using_ints"] = view;
  // diff(self, n=1, dim, prepend?, append?): z = cat(prepend, self, append) along dim;
  // out[i] = z[i + 1] - z[i] (for bool, z[i + 1] != z[i]). Higher n: no term.
  t["aten::diff"] = [](OpEnv &e) {
    if (e.node.attr("n").asInt() != 1) e.unsupported("n other than 1");
    int64_t r = e.inType(0).rank();
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), r);
    DType dt = e.outType().dtype;
    std::vector<std::pair<int, int64_t>> parts;  // (operand, its size along d), in order
    for (int op : {1, 0, 2}) {
      if (op != 0 && (e.node.inputs.size() <= static_cast<size_t>(op) || !e.node.inputs[op])) continue;
      const Dim &n = e.inType(op).shape.at(d);
      if (!n.isConcrete()) e.unsupported("a symbolic dim");
      parts.push_back({op, n.size()});
    }
    auto z = [&](const IndexExpr &p) {  // element p of the concatenation
      TermPtr result = nullptr;
      int64_t start = 0;
      std::vector<std::pair<TermPtr, TermPtr>> pieces;
      for (auto [op, n] : parts) {
        std::vector<IndexExpr> idx = e.index;
        idx[d] = p + (-start);
        TermPtr v = e.operandAt(op, broadcastIndex(e.inType(op).shape, idx), dt);
        pieces.push_back({e.tc.indexCmp(IndexCmpKind::Lt, p, IndexExpr::constant(start + n)), v});
        start += n;
      }
      for (auto it = pieces.rbegin(); it != pieces.rend(); ++it)
        result = result ? e.tc.select(it->first, it->second, result) : it->second;
      return result;
    };
    TermPtr hi = z(e.index[d] + 1), lo = z(e.index[d]);
    if (dt == DType::Bool) return e.tc.make(TOp::Ne, {hi, lo}, DType::Bool);
    return e.tc.make(TOp::Sub, {hi, lo}, dt);
  };
  // select_backward(grad, input_sizes, dim, index): zeros with grad at position `index` of `dim`.
  t["aten::select_backward"] = [](OpEnv &e) {
    const Shape &s = e.outType().shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(s.size()));
    if (!s[d].isConcrete()) e.unsupported("select_backward along a symbolic dim");
    int64_t at = e.node.attr("index").asInt();
    if (at < 0) at += s[d].size();
    DType dt = e.outType().dtype;
    std::vector<IndexExpr> g = e.index;
    g.erase(g.begin() + d);
    TermPtr hit = e.tc.indexCmp(IndexCmpKind::Eq, e.index[d], IndexExpr::constant(at));
    return e.tc.select(hit, e.operandAt(0, g, dt), e.tc.constant(0, dt));
  };
  // slice_backward(grad, input_sizes, dim, start, end, step): zeros with grad at
  // positions start, start + step, ... before end of `dim`.
  t["aten::slice_backward"] = [](OpEnv &e) {
    const Shape &s = e.outType().shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(s.size()));
    if (!s[d].isConcrete()) e.unsupported("slice_backward along a symbolic dim");
    const int64_t size = s[d].size();
    int64_t step = e.node.attr("step").asInt();
    if (step < 1) e.unsupported("a step below 1");
    auto bound = [&](const char *name) {
      int64_t v = e.node.attr(name).asInt();
      if (v < 0) v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t start = bound("start"), end = std::max(bound("end"), start);
    DType dt = e.outType().dtype;
    std::vector<IndexExpr> g = e.index;
    IndexExpr off = e.index[d] + (-start);
    g[d] = step == 1 ? off : off.floorDiv(step, e.tc.vars);
    TermPtr in = e.tc.make(TOp::And, {e.tc.indexCmp(IndexCmpKind::Le, IndexExpr::constant(start), e.index[d]),
                                      e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(end))},
                           DType::Bool);
    if (step != 1)
      in = e.tc.make(TOp::And, {in, e.tc.indexCmp(IndexCmpKind::Eq, off.mod(step, e.tc.vars), IndexExpr::constant(0))},
                     DType::Bool);
    return e.tc.select(in, e.operandAt(0, g, dt), e.tc.constant(0, dt));
  };
  t["aten::reshape"] = view;
  // The prims' views (torch._refs): collapse_view and split_dim merge or split
  // dims in row-major order, and the result's type gives the new shape.
  t["prims::collapse_view"] = view;
  t["prims::split_dim"] = view;
  // broadcast_in_dim(a, shape, broadcast_dimensions): input dim j becomes
  // output dim broadcast_dimensions[j] (an input dim of size 1 is broadcast);
  // the output's other dims are new.
  t["prims::broadcast_in_dim"] = [](OpEnv &e) {
    const std::vector<int64_t> &dims = e.node.attr("broadcast_dimensions").asInts();
    const Shape &in = e.inType(0).shape;
    if (dims.size() != in.size()) e.unsupported("broadcast_dimensions of another rank than the input");
    std::vector<IndexExpr> idx;
    for (size_t j = 0; j < dims.size(); ++j) {
      int64_t d = wrapped(e, dims[j], e.outType().rank());
      bool one = in[j].isConcrete() && in[j].size() == 1;
      if (!one && !(in[j] == e.outType().shape[d])) e.unsupported("an input dim that is neither 1 nor the output's");
      idx.push_back(one ? IndexExpr::constant(0) : e.index[d]);
    }
    return passThrough(e, idx);
  };
  t["aten::_unsafe_view"] = view;
  t["aten::_reshape_alias"] = reshapeAlias;
  t["aten::expand"] = [](OpEnv &e) { return e.operand(0, e.outType().dtype); };
  t["aten::expand_as"] = [](OpEnv &e) { return e.operand(0, e.outType().dtype); };
  t["aten::permute"] = [](OpEnv &e) {
    std::vector<int64_t> perm;
    for (int64_t d : e.node.attr("dims").asInts()) perm.push_back(wrapped(e, d, e.outType().rank()));
    return permuteBy(e, perm);
  };
  t["aten::transpose.int"] = [](OpEnv &e) {
    int64_t r = e.outType().rank();
    std::vector<int64_t> perm(r);
    for (int64_t k = 0; k < r; ++k) perm[k] = k;
    if (r > 0) std::swap(perm[wrapped(e, e.node.attr("dim0").asInt(), r)], perm[wrapped(e, e.node.attr("dim1").asInt(), r)]);
    return permuteBy(e, perm);
  };
  t["aten::t"] = [](OpEnv &e) {
    std::vector<IndexExpr> idx(e.index.rbegin(), e.index.rend());
    return passThrough(e, idx);
  };
  t["aten::unsqueeze"] = [](OpEnv &e) {
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), e.outType().rank());
    std::vector<IndexExpr> idx = e.index;
    idx.erase(idx.begin() + d);
    return passThrough(e, idx);
  };
  auto squeezeLike = [](OpEnv &e) {
    // Put a 0 back for every dim of size 1 that the output lacks.
    const Shape &in = e.inType(0).shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<bool> listed(in.size(), e.node.op == "aten::squeeze");
    if (e.node.op != "aten::squeeze" && rank > 0) {
      const Attribute &dims = e.node.attr("dim");
      for (int64_t d : dims.isInt() ? std::vector<int64_t>{dims.asInt()} : dims.asInts())
        listed[wrapped(e, d, rank)] = true;
    }
    std::vector<IndexExpr> idx;
    size_t out = 0;
    for (int64_t d = 0; d < rank; ++d) {
      bool one = in[d].isConcrete() && in[d].size() == 1;
      if (one && listed[d]) idx.push_back(IndexExpr::constant(0));
      else idx.push_back(e.index.at(out++));
    }
    return passThrough(e, idx);
  };
  t["aten::squeeze"] = squeezeLike;
  t["aten::squeeze.dim"] = squeezeLike;
  t["aten::squeeze.dims"] = squeezeLike;
  // slice_scatter(self, src, dim, start, end, 1): src inside [start, end) of `dim`, self elsewhere.
  t["aten::slice_scatter"] = [](OpEnv &e) {
    const Shape &in = e.inType(0).shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(in.size()));
    if (e.node.attr("step").asInt() != 1) e.unsupported("slice_scatter with a step other than 1");
    if (!in[d].isConcrete()) e.unsupported("slice_scatter along a symbolic dim");
    const int64_t size = in[d].size();
    auto bound = [&](const char *name, int64_t absent) {
      const Attribute &a = e.node.attr(name);
      int64_t v = a.isNone() ? absent : a.asInt();
      if (v < 0) v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t start = bound("start", 0), end = std::max(bound("end", size), start);
    DType dt = e.outType().dtype;
    std::vector<IndexExpr> srcIdx = e.index;
    srcIdx[d] = e.index[d] + (-start);
    TermPtr self = e.operandAt(0, e.index, dt), src = e.operandAt(1, srcIdx, dt);
    TermPtr inside = e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(end)), src, self);
    return e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(start)), self, inside);
  };
  t["aten::slice.Tensor"] = [](OpEnv &e) {
    const Shape &in = e.inType(0).shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(in.size()));
    int64_t step = e.node.attr("step").asInt();
    int64_t start = 0;
    if (!e.node.attr("start").isNone()) {
      start = e.node.attr("start").asInt();
      if (start != 0) {
        if (!in[d].isConcrete()) e.unsupported("slice of a symbolic dim");
        if (start < 0) start += in[d].size();
        start = std::clamp<int64_t>(start, 0, in[d].size());
      }
    }
    std::vector<IndexExpr> idx = e.index;
    idx[d] = e.index[d] * step + start;
    return passThrough(e, idx);
  };
  t["aten::select.int"] = [](OpEnv &e) {
    const Shape &in = e.inType(0).shape;
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), static_cast<int64_t>(in.size()));
    int64_t i = e.node.attr("index").asInt();
    if (i < 0) {
      if (!in[d].isConcrete()) e.unsupported("negative index into a symbolic dim");
      i += in[d].size();
    }
    std::vector<IndexExpr> idx = e.index;
    idx.insert(idx.begin() + d, IndexExpr::constant(i));
    return passThrough(e, idx);
  };
  t["aten::cat"] = [](OpEnv &e) {
    int64_t r = e.outType().rank();
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), r);
    DType dt = e.outType().dtype;
    std::vector<std::pair<int64_t, int64_t>> ranges;  // offset, size
    int64_t offset = 0;
    std::vector<int> taking;  // Note [Legacy empty cat operands] (ir/legacy_cat.h)
    for (int k = 0; k < static_cast<int>(e.node.inputs.size()); ++k)
      if (!skippedByCat(e.inType(k))) taking.push_back(k);
    if (taking.empty()) taking.push_back(0);  // every operand skipped: the result is the first, [0]
    for (int k : taking) {
      const Dim &s = e.inType(k).shape.at(d);
      if (!s.isConcrete()) e.unsupported("cat along a symbolic dim");
      ranges.push_back({offset, s.size()});
      offset += s.size();
    }
    TermPtr result = nullptr;
    for (size_t k = ranges.size(); k-- > 0;) {
      std::vector<IndexExpr> idx = e.index;
      idx[d] = e.index[d] + (-ranges[k].first);
      TermPtr part = e.operandAt(taking[k], idx, dt);
      if (!result) result = part;
      else result = e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(ranges[k].first + ranges[k].second)), part, result);
    }
    return result;
  };
  t["prims::cat"] = t.at("aten::cat");  // the same arguments (tensors, dim)

  t["aten::stack"] = [](OpEnv &e) {
    int64_t r = e.outType().rank();
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), r);
    DType dt = e.outType().dtype;
    std::vector<IndexExpr> idx = e.index;
    idx.erase(idx.begin() + d);
    TermPtr result = nullptr;
    for (size_t k = e.node.inputs.size(); k-- > 0;) {
      TermPtr part = e.operandAt(static_cast<int>(k), idx, dt);
      if (!result) result = part;
      else result = e.tc.select(e.tc.indexCmp(IndexCmpKind::Eq, e.index[d], IndexExpr::constant(static_cast<int64_t>(k))), part, result);
    }
    return result;
  };
  // Piece `output` of a split: operand 0 read `offset` further along dim, the
  // offset being the sizes of the pieces before it (the node's output types).
  auto piece = [](OpEnv &e) {
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), e.outType().rank());
    int64_t offset = 0;
    for (int k = 0; k < e.output; ++k) {
      const Dim &s = e.node.outputs[k]->type.shape.at(d);
      if (!s.isConcrete()) e.unsupported("split along a symbolic dim");
      offset += s.size();
    }
    std::vector<IndexExpr> idx = e.index;
    idx[d] = e.index[d] + offset;
    return passThrough(e, idx);
  };
  for (const char *name : {"aten::split.Tensor", "aten::split_with_sizes", "aten::chunk"}) t[name] = piece;
  t["aten::unbind.int"] = [](OpEnv &e) {
    int64_t d = wrapped(e, e.node.attr("dim").asInt(), e.inType(0).rank());
    std::vector<IndexExpr> idx = e.index;
    idx.insert(idx.begin() + d, IndexExpr::constant(e.output));
    return passThrough(e, idx);
  };
  // constant_pad_nd: operand 0 shifted by the leading pads, `value` outside it
  // (negative pads crop).
  t["aten::constant_pad_nd"] = [](OpEnv &e) {
    const std::vector<int64_t> &pad = e.node.attr("pad").asInts();
    const Shape &in = e.inType(0).shape;
    DType dt = e.outType().dtype;
    int64_t r = static_cast<int64_t>(in.size());
    std::vector<IndexExpr> idx = e.index;
    std::vector<std::pair<int64_t, int64_t>> ranges;  // dim, [before, before + size)
    for (size_t k = 0; 2 * k < pad.size(); ++k) {
      int64_t d = r - 1 - static_cast<int64_t>(k);
      if (!in[d].isConcrete()) e.unsupported("padding a symbolic dim");
      idx[d] = e.index[d] + (-pad[2 * k]);
      ranges.push_back({d, pad[2 * k]});
    }
    TermPtr result = e.operandAt(0, idx, dt);
    TermPtr fill = e.scalar("value", dt);
    for (auto [d, before] : ranges) {
      int64_t end = before + in[d].size();
      if (end < e.outType().shape[d].size())
        result = e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(end)), result, fill);
      if (before > 0)
        result = e.tc.select(e.tc.indexCmp(IndexCmpKind::Lt, e.index[d], IndexExpr::constant(before)), fill, result);
    }
    return result;
  };
  t["aten::flip"] = [](OpEnv &e) {
    const Shape &s = e.outType().shape;
    std::vector<IndexExpr> idx = e.index;
    for (int64_t d : e.node.attr("dims").asInts()) {
      int64_t w = wrapped(e, d, static_cast<int64_t>(s.size()));
      if (!s[w].isConcrete()) e.unsupported("flip of a symbolic dim");
      idx[w] = e.index[w] * -1 + (s[w].size() - 1);
    }
    return passThrough(e, idx);
  };
  t["aten::tril"] = [](OpEnv &e) { return triangle(e, true); };
  t["aten::triu"] = [](OpEnv &e) { return triangle(e, false); };
  t["prim::constant"] = [](OpEnv &e) {
    const Attribute &data = e.node.attr("data");
    DType d = e.outType().dtype;
    std::vector<TermPtr> values;
    if (data.isInts())
      for (int64_t v : data.asInts()) values.push_back(e.tc.intConstant(v, d));
    else
      for (double v : data.asFloats()) values.push_back(e.tc.constant(v, d));
    if (values.size() > 256) e.unsupported("a constant of more than 256 elements");
    // An empty constant (transformers' caches start as torch.tensor([])) has no element to read.
    if (values.empty()) e.unsupported("an element of an empty constant");
    IndexExpr flat = flatOffset(e.index, concreteShape(e, e.outType().shape));
    TermPtr result = values.back();
    for (size_t k = values.size() - 1; k-- > 0;)
      result = e.tc.select(e.tc.indexCmp(IndexCmpKind::Eq, flat, IndexExpr::constant(static_cast<int64_t>(k))), values[k], result);
    return result;
  };
}

}  // namespace torchtv::sem
