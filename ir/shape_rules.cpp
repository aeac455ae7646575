// Shape and dtype inference, one function per ShapeRule family.
#include <algorithm>
#include <numeric>
#include <set>

#include "ir/legacy_cat.h"
#include "ir/op_registry.h"

namespace torchtv {

namespace {

[[noreturn]] void fail(const std::string &message) { throw ShapeError(message); }

const TensorType &input(const ShapeQuery &q, size_t i) {
  if (i >= q.inputs.size() || q.inputs[i] == nullptr)
    fail("missing tensor operand " + std::to_string(i));
  return *q.inputs[i];
}

const Attribute &attr(const ShapeQuery &q, const std::string &name) {
  auto it = q.attrs.find(name);
  if (it == q.attrs.end()) fail("missing attribute '" + name + "'");
  return it->second;
}

bool hasAttr(const ShapeQuery &q, const std::string &name) {
  auto it = q.attrs.find(name);
  return it != q.attrs.end() && !it->second.isNone();
}

int64_t intAttr(const ShapeQuery &q, const std::string &name) {
  const Attribute &a = attr(q, name);
  if (!a.isInt()) fail("attribute '" + name + "' must be an int, got " + a.str());
  return a.asInt();
}

std::vector<int64_t> intsAttr(const ShapeQuery &q, const std::string &name) {
  const Attribute &a = attr(q, name);
  if (a.isInt()) return {a.asInt()};
  if (!a.isInts()) fail("attribute '" + name + "' must be a list of ints, got " + a.str());
  return a.asInts();
}

std::optional<DType> dtypeAttr(const ShapeQuery &q, const std::string &name = "dtype") {
  auto it = q.attrs.find(name);
  if (it == q.attrs.end() || it->second.isNone()) return std::nullopt;
  if (!it->second.isDType()) fail("attribute '" + name + "' must be a dtype");
  return it->second.asDType();
}

int64_t wrap(int64_t dim, int64_t rank) {
  auto d = wrapDim(dim, rank);
  if (!d) fail("dim " + std::to_string(dim) + " out of range for rank " + std::to_string(rank));
  return *d;
}

// Floating and complex dtypes are kept; bool and integral ones compute in the default f32.
bool inexact(DType t) { return categoryOf(t) >= DTypeCategory::Floating; }
DType floatIfIntegral(DType t) { return inexact(t) ? t : DType::F32; }

// Note [Result type]
// PyTorch's at::result_type: operands are ranked as dimensioned tensors, then
// zero-dim tensors, then wrapped Python numbers. A lower rank only matters
// when it brings a higher category (bool < integral < floating < complex). A wrapped
// float is the default dtype (f32); a wrapped int is i64.
std::optional<DType> promoteOpt(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return promoteTypes(*a, *b);
}

std::optional<DType> combineCategories(std::optional<DType> higher, std::optional<DType> lower) {
  if (higher && (isComplex(*higher) || (isFloating(*higher) && !(lower && isComplex(*lower))))) return higher;
  if ((higher && *higher == DType::Bool) || (lower && inexact(*lower)))
    return promoteOpt(higher, lower);
  return higher ? higher : lower;
}

DType resultType(const std::vector<const TensorType *> &tensors,
                 const std::vector<const Attribute *> &scalars) {
  std::optional<DType> dimR, zeroR, wrappedR;
  for (const TensorType *t : tensors) {
    if (!t) continue;
    if (t->rank() > 0) dimR = promoteOpt(dimR, t->dtype);
    else zeroR = promoteOpt(zeroR, t->dtype);
  }
  for (const Attribute *s : scalars) {
    DType t = s->isBool() ? DType::Bool : s->isInt() ? DType::I64 : DType::F32;
    wrappedR = promoteOpt(wrappedR, t);
  }
  auto r = combineCategories(dimR, combineCategories(zeroR, wrappedR));
  if (!r) fail("no operands to compute a result type from");
  return *r;
}

// Scalar arguments that take part in type promotion (alpha does not).
std::vector<const Attribute *> promotingScalars(const ShapeQuery &q) {
  std::vector<const Attribute *> out;
  for (const ArgSpec &a : q.schema.args) {
    if (a.kind != ArgKind::Scalar || a.name == "alpha") continue;
    auto it = q.attrs.find(a.name);
    if (it == q.attrs.end() || it->second.isNone()) continue;
    if (!it->second.isScalar()) fail("argument '" + a.name + "' must be a number");
    out.push_back(&it->second);
  }
  return out;
}

Shape broadcastAll(const ShapeQuery &q) {
  Shape out;
  bool first = true;
  for (const TensorType *t : q.inputs) {
    if (!t) continue;
    out = first ? t->shape : broadcastShapes(out, t->shape);
    first = false;
  }
  return out;
}

Shape reduceShape(const Shape &in, const std::vector<int64_t> &dims, bool keepdim) {
  int64_t rank = static_cast<int64_t>(in.size());
  std::set<int64_t> reduced;
  if (dims.empty()) {
    for (int64_t i = 0; i < rank; ++i) reduced.insert(i);
  }
  for (int64_t d : dims)
    if (!reduced.insert(wrap(d, rank)).second) fail("dim " + std::to_string(d) + " repeated");
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.count(i)) out.push_back(in[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

void requireSameDim(const Dim &a, const Dim &b, const std::string &what) {
  if (a != b) fail(what + ": " + a.str() + " vs " + b.str());
}

void requireSameDType(const TensorType &a, const TensorType &b, const std::string &op) {
  if (a.dtype != b.dtype)
    fail(op + " expects operands of one dtype, got " + a.str() + " and " + b.str());
}

TensorType matmulType(const TensorType &a, const TensorType &b) {
  requireSameDType(a, b, "matmul");
  if (a.rank() == 0 || b.rank() == 0) fail("matmul needs operands of rank >= 1");
  Shape sa = a.shape, sb = b.shape;
  bool aVec = sa.size() == 1, bVec = sb.size() == 1;
  if (aVec) sa.insert(sa.begin(), 1);
  if (bVec) sb.push_back(1);
  requireSameDim(sa.back(), sb[sb.size() - 2], "matmul contraction dims differ");
  Shape batchA(sa.begin(), sa.end() - 2), batchB(sb.begin(), sb.end() - 2);
  Shape out = broadcastShapes(batchA, batchB);
  if (!aVec) out.push_back(sa[sa.size() - 2]);
  if (!bVec) out.push_back(sb.back());
  return {a.dtype, out};
}

// scaled_dot_product_attention: query [..., L, E], key [..., S, E], value
// [..., S, Ev] -> [..., L, Ev], the leading dims broadcast as in matmul; a mask
// (bool, or query's dtype) broadcasts to [..., L, S]. PyTorch raises for
// is_causal with a mask. With enable_gqa the key/value heads (dim -3) may
// divide the query's; the result keeps the query's leading dims.
TensorType attentionType(const ShapeQuery &q) {
  const TensorType &qt = input(q, 0), &k = input(q, 1), &v = input(q, 2);
  const std::string op = "scaled_dot_product_attention: ";
  if (qt.rank() < 2 || k.rank() < 2 || v.rank() < 2) fail(op + "query, key and value must have rank >= 2");
  if (!isFloating(qt.dtype) || k.dtype != qt.dtype || v.dtype != qt.dtype)
    fail(op + "query, key and value must have one floating dtype");
  requireSameDim(qt.shape.back(), k.shape.back(), op + "the last dims of query and key differ");
  requireSameDim(k.shape[k.shape.size() - 2], v.shape[v.shape.size() - 2], op + "key and value differ in length");
  const Attribute &causal = attr(q, "is_causal"), &gqa = attr(q, "enable_gqa");
  auto lead = [](const TensorType &t) { return Shape(t.shape.begin(), t.shape.end() - 2); };
  Shape batch = lead(qt);
  if (!(gqa.isBool() && gqa.asBool())) batch = broadcastShapes(broadcastShapes(batch, lead(k)), lead(v));
  Shape scores = batch;
  scores.push_back(qt.shape[qt.shape.size() - 2]);
  scores.push_back(k.shape[k.shape.size() - 2]);
  if (q.inputs.size() > 3 && q.inputs[3]) {
    const TensorType &m = *q.inputs[3];
    if (causal.isBool() && causal.asBool())
      fail(op + "is_causal=true with an attn_mask (PyTorch raises: set one or the other)");
    if (m.dtype != DType::Bool && m.dtype != qt.dtype)
      fail(op + "attn_mask must be bool or " + std::string(dtypeName(qt.dtype)) + ", got " + std::string(dtypeName(m.dtype)));
    if (m.rank() > static_cast<int64_t>(scores.size()) || broadcastShapes(scores, m.shape) != scores)
      fail(op + "attn_mask " + shapeStr(m.shape) + " does not broadcast to the scores " + shapeStr(scores));
  }
  Shape out = batch;
  out.push_back(qt.shape[qt.shape.size() - 2]);
  out.push_back(v.shape.back());
  return {qt.dtype, out};
}

Shape viewShape(const Shape &in, const std::vector<int64_t> &size) {
  Shape out;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (inferred >= 0) fail("only one dimension can be inferred");
      inferred = static_cast<int>(i);
      out.push_back(0);
    } else if (size[i] < 0) {
      fail("invalid size " + std::to_string(size[i]));
    } else {
      known *= size[i];
      out.push_back(size[i]);
    }
  }
  auto total = numel(in);
  if (!total) {
    if (inferred >= 0) fail("cannot infer a -1 size from a shape with symbolic dims");
    return out;  // symbolic: trust the requested sizes
  }
  if (inferred >= 0) {
    if (known == 0 || *total % known != 0)
      fail("shape " + shapeStr(in) + " is invalid for a view with an inferred size");
    out[inferred] = *total / known;
  } else if (known != *total) {
    fail("shape " + shapeStr(out) + " is invalid for input of shape " + shapeStr(in));
  }
  return out;
}

Shape expandShape(const Shape &in, const std::vector<int64_t> &size) {
  if (size.size() < in.size()) fail("expand cannot reduce the number of dims");
  size_t lead = size.size() - in.size();
  Shape out;
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      if (size[i] < 0) fail("expand: -1 is not allowed for a new leading dim");
      out.push_back(size[i]);
      continue;
    }
    const Dim &d = in[i - lead];
    if (size[i] == -1 || (d.isConcrete() && d.size() == size[i])) out.push_back(d);
    else if (d.isConcrete() && d.size() == 1 && size[i] >= 0) out.push_back(size[i]);
    else fail("cannot expand " + shapeStr(in) + " to the requested size");
  }
  return out;
}

int64_t clampSliceIndex(int64_t idx, int64_t size) {
  if (idx < 0) idx += size;
  return std::clamp<int64_t>(idx, 0, size);
}

Shape sliceShape(const ShapeQuery &q, const Shape &in) {
  int64_t dim = wrap(intAttr(q, "dim"), static_cast<int64_t>(in.size()));
  int64_t step = intAttr(q, "step");
  if (step <= 0) fail("slice step must be positive");
  bool fromStart = !hasAttr(q, "start"), toEnd = !hasAttr(q, "end");
  Shape out = in;
  const Dim &d = in[dim];
  if (!d.isConcrete()) {
    bool whole = (fromStart || intAttr(q, "start") == 0) &&
                 (toEnd || intAttr(q, "end") == INT64_MAX) && step == 1;
    if (!whole) fail("cannot slice a symbolic dim");
    return out;
  }
  int64_t start = fromStart ? 0 : clampSliceIndex(intAttr(q, "start"), d.size());
  int64_t end = toEnd ? d.size() : clampSliceIndex(intAttr(q, "end"), d.size());
  out[dim] = end > start ? (end - start + step - 1) / step : 0;
  return out;
}

std::vector<TensorType> catLike(const ShapeQuery &q, bool stack) {
  if (q.inputs.empty()) fail("expects a non-empty list of tensors");
  // Note [Legacy empty cat operands] (ir/legacy_cat.h): wrap against the first taking part.
  size_t firstTaking = 0;
  while (!stack && firstTaking + 1 < q.inputs.size() && skippedByCat(input(q, firstTaking))) ++firstTaking;
  const TensorType &first = input(q, firstTaking);
  int64_t rank = first.rank();
  int64_t dim = wrap(intAttr(q, "dim"), stack ? rank + 1 : rank);
  DType dtype = first.dtype;
  Shape out = first.shape;
  int64_t catSize = 0;
  bool concrete = true;
  for (size_t i = 0; i < q.inputs.size(); ++i) {
    const TensorType &t = input(q, i);
    dtype = promoteTypes(dtype, t.dtype);
    if (!stack && skippedByCat(t)) continue;
    if (t.rank() != rank) fail("tensors must have the same rank");
    for (int64_t k = 0; k < rank; ++k)
      if (stack || k != dim) requireSameDim(t.shape[k], first.shape[k], "sizes differ");
    if (!stack) {
      if (!t.shape[dim].isConcrete()) concrete = false;
      else catSize += t.shape[dim].size();
    }
  }
  if (stack) out.insert(out.begin() + dim, static_cast<int64_t>(q.inputs.size()));
  else if (concrete) out[dim] = catSize;
  else if (q.inputs.size() > 1) fail("cannot concatenate along a symbolic dim");
  return {{dtype, out}};
}

}  // namespace

bool skippedByCat(const TensorType &operand) {
  return operand.rank() == 1 && operand.shape[0].isConcrete() && operand.shape[0].size() == 0;
}

Shape broadcastShapes(const Shape &a, const Shape &b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const Dim *da = i < n - a.size() ? nullptr : &a[i - (n - a.size())];
    const Dim *db = i < n - b.size() ? nullptr : &b[i - (n - b.size())];
    auto isOne = [](const Dim *d) { return !d || (d->isConcrete() && d->size() == 1); };
    if (isOne(da)) out[i] = db ? *db : Dim(1);
    else if (isOne(db) || *da == *db) out[i] = *da;
    else fail("shapes " + shapeStr(a) + " and " + shapeStr(b) + " do not broadcast");
  }
  return out;
}

namespace {

// scatter.value(self, dim, index, value) and scatter.src(self, dim, index, src),
// as ATen checks them: index is i64 of self's rank, no longer than self in any
// dim but `dim`, and no longer than src in any dim; src has self's dtype.
TensorType scatterType(const ShapeQuery &q) {
  const TensorType &x = input(q, 0), &idx = input(q, 1);
  const TensorType *src = q.inputs.size() > 2 ? &input(q, 2) : nullptr;
  if (idx.dtype != DType::I64) fail("scatter index must be i64, got " + std::string(dtypeName(idx.dtype)));
  if (idx.rank() != x.rank()) fail("scatter index must have the rank of self");
  int64_t dim = wrap(intAttr(q, "dim"), std::max<int64_t>(x.rank(), 1));
  if (src && src->dtype != x.dtype) fail("scatter src must have the dtype of self");
  if (src && src->rank() != x.rank()) fail("scatter src must have the rank of self");
  auto longer = [](const Dim &a, const Dim &b) { return a.isConcrete() && b.isConcrete() && a.size() > b.size(); };
  for (int64_t d = 0; d < idx.rank(); ++d) {
    if (d != dim && longer(idx.shape[d], x.shape[d])) fail("scatter index is longer than self in dim " + std::to_string(d));
    if (src && longer(idx.shape[d], src->shape[d])) fail("scatter index is longer than src in dim " + std::to_string(d));
  }
  return x;
}

// index_put(self, indices..., values, accumulate): operand 0 is self, the last
// is values, those between are the `Tensor?[] indices` (Note [Operands of a
// tensor list]). The result is self's type. Where every index is an integer
// tensor (no None, no mask), values must broadcast to the indexed shape:
// broadcast(indices) followed by self's dims that are not indexed.
TensorType indexPutType(const ShapeQuery &q) {
  if (q.inputs.size() < 2) fail("index_put needs self and values");
  const TensorType &x = input(q, 0), &values = input(q, q.inputs.size() - 1);
  size_t given = q.inputs.size() - 2;
  if (values.dtype != x.dtype) fail("index_put values must have the dtype of self");
  if (static_cast<int64_t>(given) > x.rank()) fail("index_put has more indices than self has dims");
  bool plain = given > 0;
  Shape indexed;
  for (size_t k = 1; k <= given; ++k) {
    const TensorType *i = q.inputs[k];
    if (i && !isIntegral(i->dtype) && i->dtype != DType::Bool) fail("index_put indices must be integral or bool");
    if (!i || i->dtype == DType::Bool || i->dtype == DType::U8) plain = false;  // None, or a mask
    else indexed = broadcastShapes(indexed, i->shape);
  }
  if (plain) {
    indexed.insert(indexed.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(given), x.shape.end());
    if (broadcastShapes(indexed, values.shape) != indexed)
      fail("index_put values " + values.str() + " do not broadcast to the indexed shape " +
           TensorType{x.dtype, indexed}.str());
  }
  return x;
}

// index.Tensor(self, [None..., i_0, ..., None...]) with integer index tensors
// broadcast to B: adjacent ones replace their dims by B in place, separated
// ones put B first (indexTensor in src/sem/index_ops.cpp reads it the same
// way). A bool mask's result has as many elements as it has true ones: no rule.
TensorType indexTensorType(const ShapeQuery &q) {
  const TensorType &x = input(q, 0);
  size_t given = q.inputs.size() - 1;
  if (static_cast<int64_t>(given) > x.rank()) fail("index has more indices than self has dims");
  std::vector<int64_t> dims;
  Shape b;
  for (size_t k = 0; k < given; ++k) {
    const TensorType *i = q.inputs[k + 1];
    if (!i) continue;
    if (!isIntegral(i->dtype) || i->dtype == DType::Bool || i->dtype == DType::U8)
      fail("index with a " + std::string(dtypeName(i->dtype)) + " index (a mask's result has a shape that depends on the data)");
    dims.push_back(static_cast<int64_t>(k));
    b = broadcastShapes(b, i->shape);
  }
  if (dims.empty()) fail("index without an index tensor");
  bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  Shape out = adjacent ? Shape{} : b;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (adjacent && d == dims.front()) out.insert(out.end(), b.begin(), b.end());
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) out.push_back(x.shape[d]);
  }
  return {x.dtype, out};
}

// The sizes of the pieces split/chunk/unbind cut dim `dim` of `in` into
// (ATen's rules: the last piece of split takes the rest; chunk pieces are
// ceil(size / chunks) long, so there may be fewer than `chunks`).
std::vector<int64_t> splitSizes(const ShapeQuery &q, const TensorType &in, int64_t dim) {
  const std::string &op = q.schema.name;
  if (!in.shape[dim].isConcrete()) fail(op + " along a symbolic dim");
  int64_t size = in.shape[dim].size();
  if (op == "aten::unbind.int") return std::vector<int64_t>(static_cast<size_t>(size), 1);
  if (op == "aten::split.Tensor" || op == "aten::chunk") {
    int64_t piece;
    if (op == "aten::chunk") {
      int64_t chunks = intAttr(q, "chunks");
      if (chunks <= 0) fail("chunk expects chunks > 0, got " + std::to_string(chunks));
      piece = (size + chunks - 1) / chunks;
      if (piece == 0) return std::vector<int64_t>(static_cast<size_t>(chunks), 0);
    } else {
      piece = intAttr(q, "split_size");
      if (piece < 0 || (piece == 0 && size != 0)) fail("split expects split_size > 0, got " + std::to_string(piece));
      if (piece == 0) return {0};
    }
    std::vector<int64_t> out;
    for (int64_t at = 0; at < size || out.empty(); at += piece) out.push_back(std::min(piece, size - at));
    return out;
  }
  std::vector<int64_t> sizes = intsAttr(q, "split_sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail("split_with_sizes expects sizes >= 0");
    total += s;
  }
  if (total != size) fail("split_with_sizes: the sizes sum to " + std::to_string(total) + ", dim " +
                          std::to_string(dim) + " has " + std::to_string(size));
  return sizes;
}

}  // namespace

std::vector<TensorType> inferOutputTypes(ShapeRule rule, const ShapeQuery &q) {
  const std::string &op = q.schema.name;
  switch (rule) {
  case ShapeRule::Declared:
    return q.declared;
  case ShapeRule::Constant: {
    if (q.declared.size() != 1) fail("a constant has exactly one output");
    const Attribute &data = attr(q, "data");
    size_t count = data.isFloats() ? data.asFloats().size() : data.isInts() ? data.asInts().size() : 0;
    if (!data.isFloats() && !data.isInts()) fail("constant data must be a list of numbers");
    auto n = numel(q.declared[0].shape);
    if (!n || static_cast<size_t>(*n) != count)
      fail("constant has " + std::to_string(count) + " values for shape " +
           shapeStr(q.declared[0].shape));
    return q.declared;
  }
  case ShapeRule::Same:
    return {input(q, 0)};
  case ShapeRule::SameFloat:
    return {{floatIfIntegral(input(q, 0).dtype), input(q, 0).shape}};
  case ShapeRule::SameBool:
    return {{DType::Bool, input(q, 0).shape}};
  case ShapeRule::Broadcast:
    return {{resultType(q.inputs, promotingScalars(q)), broadcastAll(q)}};
  case ShapeRule::BroadcastFloat:
    return {{floatIfIntegral(resultType(q.inputs, promotingScalars(q))), broadcastAll(q)}};
  case ShapeRule::Compare:
    resultType(q.inputs, promotingScalars(q));  // operands must be promotable
    return {{DType::Bool, broadcastAll(q)}};
  case ShapeRule::Where: {
    const TensorType &cond = input(q, 0);
    if (cond.dtype != DType::Bool && cond.dtype != DType::U8) fail("where expects a bool condition");
    return {{resultType({q.inputs[1], q.inputs[2]}, {}), broadcastAll(q)}};
  }
  case ShapeRule::Reduce:
  case ShapeRule::ReduceAll: {
    const TensorType &in = input(q, 0);
    std::vector<int64_t> dims;
    bool keepdim = false;
    if (rule == ShapeRule::Reduce) {
      if (hasAttr(q, "dim")) dims = intsAttr(q, "dim");
      keepdim = attr(q, "keepdim").asBool();
    }
    DType dtype = in.dtype;
    if (auto d = dtypeAttr(q)) dtype = *d;
    else if ((op == "aten::sum" || op == "aten::sum.dim_IntList" || op == "aten::prod" || op == "aten::prod.dim_int") &&
             !inexact(in.dtype))
      dtype = DType::I64;  // integral sums accumulate in int64
    if (op == "aten::any" || op == "aten::all") dtype = DType::Bool;
    if ((op.rfind("aten::mean", 0) == 0 || op.rfind("aten::var", 0) == 0) && !inexact(dtype))
      fail(op + " needs a floating-point input, got " + in.str());
    return {{dtype, reduceShape(in.shape, dims, keepdim)}};
  }
  case ShapeRule::ReduceOneDim: {
    const TensorType &in = input(q, 0);
    bool keepdim = attr(q, "keepdim").asBool();
    if (!hasAttr(q, "dim")) return {{DType::I64, keepdim ? Shape(in.shape.size(), 1) : Shape{}}};
    return {{DType::I64, reduceShape(in.shape, {intAttr(q, "dim")}, keepdim)}};
  }
  case ShapeRule::MaxDim: {
    const TensorType &in = input(q, 0);
    Shape s = reduceShape(in.shape, {intAttr(q, "dim")}, attr(q, "keepdim").asBool());
    return {{in.dtype, s}, {DType::I64, s}};
  }
  case ShapeRule::Mm: {
    const TensorType &a = input(q, 0), &b = input(q, 1);
    if (a.rank() != 2 || b.rank() != 2) fail("mm expects 2-D operands, got " + a.str() + " and " + b.str());
    return {matmulType(a, b)};
  }
  case ShapeRule::Bmm: {
    const TensorType &a = input(q, 0), &b = input(q, 1);
    if (a.rank() != 3 || b.rank() != 3) fail("bmm expects 3-D operands, got " + a.str() + " and " + b.str());
    requireSameDim(a.shape[0], b.shape[0], "bmm batch dims differ");
    return {matmulType(a, b)};
  }
  case ShapeRule::Matmul:
    return {matmulType(input(q, 0), input(q, 1))};
  case ShapeRule::Dot: {
    const TensorType &a = input(q, 0), &b = input(q, 1);
    if (a.rank() != 1 || b.rank() != 1) fail("dot expects 1-D operands");
    return {matmulType(a, b)};
  }
  case ShapeRule::Addmm: {
    const TensorType &self = input(q, 0), &a = input(q, 1), &b = input(q, 2);
    if (a.rank() != 2 || b.rank() != 2) fail("addmm expects 2-D matrices");
    TensorType out = matmulType(a, b);
    requireSameDType(self, out, "addmm");
    if (broadcastShapes(self.shape, out.shape) != out.shape) fail("addmm: self does not broadcast to the product");
    return {out};
  }
  case ShapeRule::Linear: {
    const TensorType &x = input(q, 0), &w = input(q, 1);
    if (w.rank() != 2 || x.rank() < 1) fail("linear expects a 2-D weight and an input of rank >= 1");
    requireSameDType(x, w, "linear");
    requireSameDim(x.shape.back(), w.shape[1], "linear: input features differ from weight");
    Shape out = x.shape;
    out.back() = w.shape[0];
    if (q.inputs.size() > 2 && q.inputs[2]) {
      if (broadcastShapes(q.inputs[2]->shape, out) != out) fail("linear: bias does not broadcast");
    }
    return {{x.dtype, out}};
  }
  case ShapeRule::View: {
    const TensorType &in = input(q, 0);
    std::string sizeArg = q.schema.findArg("size") ? "size" : "shape";
    return {{in.dtype, viewShape(in.shape, intsAttr(q, sizeArg))}};
  }
  case ShapeRule::Split: {
    const TensorType &in = input(q, 0);
    if (in.rank() == 0) fail(op + " of a 0-dim tensor");
    int64_t d = wrap(intAttr(q, "dim"), in.rank());
    std::vector<TensorType> out;
    for (int64_t size : splitSizes(q, in, d)) {
      TensorType piece = in;
      if (op == "aten::unbind.int") piece.shape.erase(piece.shape.begin() + d);
      else piece.shape[d] = size;
      out.push_back(piece);
    }
    return out;
  }
  case ShapeRule::ExpandAs: {
    std::vector<int64_t> size;
    for (const Dim &d : input(q, 1).shape) {
      if (!d.isConcrete()) fail("expand_as to a symbolic shape");
      size.push_back(d.size());
    }
    return {{input(q, 0).dtype, expandShape(input(q, 0).shape, size)}};
  }
  case ShapeRule::TypeAs:
    return {{input(q, 1).dtype, input(q, 0).shape}};
  case ShapeRule::CopyInto: {
    // copy_(self, src) writes src, broadcast and converted, into self; fill_
    // takes only a 0-dim value (ATen refuses any other).
    const TensorType &self = input(q, 0), &src = input(q, 1);
    if (q.schema.name == "aten::fill.Tensor" && src.rank() != 0)
      fail("fill_ takes a 0-dim value tensor, got " + shapeStr(src.shape));
    if (src.rank() > self.rank() || broadcastShapes(self.shape, src.shape) != self.shape)
      fail("cannot write a " + shapeStr(src.shape) + " tensor into a " + shapeStr(self.shape) + " one");
    return {self};
  }
  case ShapeRule::ConstantPadNd: {
    TensorType out = input(q, 0);
    std::vector<int64_t> pad = intsAttr(q, "pad");
    if (pad.size() % 2 || static_cast<int64_t>(pad.size() / 2) > out.rank())
      fail("constant_pad_nd: pad has " + std::to_string(pad.size()) + " entries for rank " + std::to_string(out.rank()));
    for (size_t k = 0; k < pad.size() / 2; ++k) {
      Dim &d = out.shape[out.rank() - 1 - static_cast<int64_t>(k)];
      if (!d.isConcrete()) fail("constant_pad_nd of a symbolic dim");
      int64_t size = d.size() + pad[2 * k] + pad[2 * k + 1];
      if (size < 0) fail("constant_pad_nd: negative result size");
      d = size;
    }
    return {out};
  }
  case ShapeRule::VarMean: {
    std::vector<TensorType> var = inferOutputTypes(ShapeRule::Reduce, q);
    return {var[0], var[0]};
  }
  case ShapeRule::Expand:
    return {{input(q, 0).dtype, expandShape(input(q, 0).shape, intsAttr(q, "size"))}};
  case ShapeRule::Permute: {
    const TensorType &in = input(q, 0);
    std::vector<int64_t> dims = intsAttr(q, "dims");
    if (static_cast<int64_t>(dims.size()) != in.rank()) fail("permute needs one entry per dim");
    Shape out;
    std::set<int64_t> seen;
    for (int64_t d : dims) {
      int64_t w = wrap(d, in.rank());
      if (!seen.insert(w).second) fail("permute: repeated dim");
      out.push_back(in.shape[w]);
    }
    return {{in.dtype, out}};
  }
  case ShapeRule::Transpose: {
    TensorType out = input(q, 0);
    int64_t a = wrap(intAttr(q, "dim0"), out.rank()), b = wrap(intAttr(q, "dim1"), out.rank());
    if (out.rank() > 0) std::swap(out.shape[a], out.shape[b]);
    return {out};
  }
  case ShapeRule::T: {
    TensorType out = input(q, 0);
    if (out.rank() > 2) fail("t expects a tensor of rank <= 2");
    std::reverse(out.shape.begin(), out.shape.end());
    return {out};
  }
  case ShapeRule::Unsqueeze: {
    TensorType out = input(q, 0);
    int64_t d = wrap(intAttr(q, "dim"), out.rank() + 1);
    out.shape.insert(out.shape.begin() + d, 1);
    return {out};
  }
  case ShapeRule::Squeeze: {
    TensorType out = input(q, 0);
    Shape s;
    for (const Dim &d : out.shape)
      if (!(d.isConcrete() && d.size() == 1)) s.push_back(d);
    out.shape = s;
    return {out};
  }
  case ShapeRule::SqueezeDim: {  // squeeze.dim (one dim) and squeeze.dims (a list)
    TensorType out = input(q, 0);
    if (out.rank() == 0) return {out};
    std::vector<bool> squeezed(out.rank(), false);
    for (int64_t dim : intsAttr(q, "dim")) squeezed[wrap(dim, out.rank())] = true;
    Shape s;
    for (int64_t d = 0; d < out.rank(); ++d)
      if (!(squeezed[d] && out.shape[d].isConcrete() && out.shape[d].size() == 1)) s.push_back(out.shape[d]);
    out.shape = s;
    return {out};
  }
  case ShapeRule::Slice:
    return {{input(q, 0).dtype, sliceShape(q, input(q, 0).shape)}};
  case ShapeRule::Select: {
    TensorType out = input(q, 0);
    if (out.rank() == 0) fail("select on a 0-d tensor");
    int64_t d = wrap(intAttr(q, "dim"), out.rank());
    int64_t idx = intAttr(q, "index");
    if (out.shape[d].isConcrete() && (idx < -out.shape[d].size() || idx >= out.shape[d].size()))
      fail("select index " + std::to_string(idx) + " out of range for dim of size " + out.shape[d].str());
    out.shape.erase(out.shape.begin() + d);
    return {out};
  }
  case ShapeRule::Cat:
    return catLike(q, false);
  case ShapeRule::Stack:
    return catLike(q, true);
  case ShapeRule::ToCopy:
  case ShapeRule::LikeFactory:
    return {{dtypeAttr(q).value_or(input(q, 0).dtype), input(q, 0).shape}};
  case ShapeRule::ToDType: {
    auto d = dtypeAttr(q);
    if (!d) fail("to.dtype needs a dtype");
    return {{*d, input(q, 0).shape}};
  }
  case ShapeRule::NewFactory: {
    Shape s;
    for (int64_t d : intsAttr(q, "size")) {
      if (d < 0) fail("negative size");
      s.push_back(d);
    }
    return {{dtypeAttr(q).value_or(input(q, 0).dtype), s}};
  }
  case ShapeRule::Full: {
    Shape s;
    for (int64_t d : intsAttr(q, "size")) {
      if (d < 0) fail("negative size");
      s.push_back(d);
    }
    DType dtype = DType::F32;
    if (auto d = dtypeAttr(q)) dtype = *d;
    else if (hasAttr(q, "fill_value")) {
      const Attribute &v = attr(q, "fill_value");
      dtype = v.isBool() ? DType::Bool : v.isInt() ? DType::I64 : DType::F32;
    }
    return {{dtype, s}};
  }
  case ShapeRule::ScalarTensor:
    return {{dtypeAttr(q).value_or(DType::F32), {}}};
  case ShapeRule::LayerNorm: {
    const TensorType &x = input(q, 0);
    std::vector<int64_t> norm = intsAttr(q, "normalized_shape");
    int64_t axis = x.rank() - static_cast<int64_t>(norm.size());
    if (axis < 0) fail("normalized_shape has more dims than the input");
    for (size_t i = 0; i < norm.size(); ++i)
      requireSameDim(x.shape[axis + i], norm[i], "normalized_shape does not match the input");
    for (size_t i = 1; i < 3; ++i)
      if (q.inputs.size() > i && q.inputs[i] && q.inputs[i]->shape != Shape(norm.begin(), norm.end()))
        fail("layer_norm weight/bias must have shape " + shapeStr(Shape(norm.begin(), norm.end())));
    Shape stats(x.shape.begin(), x.shape.begin() + axis);
    stats.resize(x.shape.size(), 1);
    return {x, {x.dtype, stats}, {x.dtype, stats}};
  }
  case ShapeRule::LayerNormBackward: {
    const TensorType &gy = input(q, 0), &x = input(q, 1);
    if (gy.shape != x.shape) fail("grad_out and input shapes differ");
    std::vector<int64_t> norm = intsAttr(q, "normalized_shape");
    TensorType param{x.dtype, Shape(norm.begin(), norm.end())};
    return {x, q.inputs.size() > 4 && q.inputs[4] ? *q.inputs[4] : param,
            q.inputs.size() > 5 && q.inputs[5] ? *q.inputs[5] : param};
  }
  case ShapeRule::SoftmaxBackward: {
    const TensorType &g = input(q, 0), &out = input(q, 1);
    if (g.shape != out.shape) fail("grad_output and output shapes differ");
    return {g};
  }
  case ShapeRule::NllLossForward: {
    const TensorType &x = input(q, 0), &target = input(q, 1);
    if (x.rank() < 1 || x.rank() > 2) fail("nll_loss expects input of rank 1 or 2");
    if (!isIntegral(target.dtype)) fail("nll_loss target must be integral");
    Shape out = intAttr(q, "reduction") == 0 && x.rank() == 2 ? Shape{x.shape[0]} : Shape{};
    return {{x.dtype, out}, {x.dtype, {}}};
  }
  case ShapeRule::NllLossBackward:
    return {input(q, 1)};
  case ShapeRule::MseLoss: {
    Shape s = broadcastShapes(input(q, 0).shape, input(q, 1).shape);
    return {{input(q, 0).dtype, intAttr(q, "reduction") == 0 ? s : Shape{}}};
  }
  case ShapeRule::MseLossBackward:
    return {input(q, 1)};
  case ShapeRule::Embedding: {
    const TensorType &w = input(q, 0), &idx = input(q, 1);
    if (w.rank() != 2) fail("embedding weight must be 2-D");
    if (!isIntegral(idx.dtype)) fail("embedding indices must be integral");
    Shape out = idx.shape;
    out.push_back(w.shape[1]);
    return {{w.dtype, out}};
  }
  case ShapeRule::EmbeddingBackward: {
    const TensorType &g = input(q, 0);
    if (g.rank() < 1) fail("embedding backward grad must have rank >= 1");
    return {{g.dtype, {intAttr(q, "num_weights"), g.shape.back()}}};
  }
  // ---- Index ops (issue 4)
  case ShapeRule::Gather: {
    const TensorType &x = input(q, 0), &idx = input(q, 1);
    if (!isIntegral(idx.dtype)) fail("gather index must be integral");
    if (idx.rank() != x.rank()) fail("gather index must have the rank of self");
    if (!wrapDim(intAttr(q, "dim"), std::max<int64_t>(x.rank(), 1))) fail("gather dim out of range");
    return {{x.dtype, idx.shape}};
  }
  case ShapeRule::IndexSelect: {
    const TensorType &x = input(q, 0), &idx = input(q, 1);
    if (!isIntegral(idx.dtype)) fail("index_select index must be integral");
    if (idx.rank() > 1) fail("index_select index must have rank 0 or 1");
    auto d = wrapDim(intAttr(q, "dim"), std::max<int64_t>(x.rank(), 1));
    if (!d) fail("index_select dim out of range");
    Shape out = x.shape;
    if (!out.empty()) out[*d] = idx.rank() == 0 ? Dim(1) : idx.shape[0];
    return {{x.dtype, out}};
  }
  case ShapeRule::OneHot: {
    const TensorType &idx = input(q, 0);
    if (!isIntegral(idx.dtype)) fail("one_hot index must be integral");
    int64_t n = intAttr(q, "num_classes");
    if (n < 0) fail("one_hot needs num_classes (its inference from the data is not supported)");
    Shape out = idx.shape;
    out.push_back(n);
    return {{DType::I64, out}};
  }
  case ShapeRule::Scatter: return {scatterType(q)};
  case ShapeRule::IndexPut: return {indexPutType(q)};
  case ShapeRule::IndexTensor: return {indexTensorType(q)};
  case ShapeRule::Attention: return {attentionType(q)};
  // ---- end of index ops
  }
  fail("unhandled shape rule");
}

}  // namespace torchtv
