// The op registry: every op torchtv knows, with its ATen schema and the rule
// that computes its output types. Adding an op = one line in op_registry.cpp.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute.h"
#include "ir/schema.h"
#include "ir/shape.h"

namespace torchtv {

// Thrown by shape rules; callers attach the node's position.
class ShapeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// How an op's output types follow from its inputs and attributes. One rule
// serves a whole family of ops (see shape_rules.cpp).
enum class ShapeRule {
  Declared,        // custom ops: outputs are as declared, trusted
  Same,            // like input 0
  SameFloat,       // like input 0, integral inputs become f32 (exp, sqrt, ...)
  SameBool,        // like input 0, dtype bool (isnan, logical_not)
  Broadcast,       // broadcast of tensor inputs, promoted dtype (scalar args take part)
  BroadcastFloat,  // as Broadcast, integral result becomes f32 (true division)
  Compare,         // broadcast, dtype bool
  Where,           // where(cond, a, b)
  Reduce,          // attrs dim (list or None = all), keepdim, dtype
  ReduceAll,       // reduces every dim to a scalar
  ReduceOneDim,    // attr dim (int), keepdim; argmax-like: i64 result
  MaxDim,          // (values, indices) over attr dim
  Mm, Bmm, Matmul, Addmm, Linear, Dot,
  View,            // attr size/shape with at most one -1
  Expand,          // attr size
  Permute, Transpose, T, Unsqueeze, Squeeze, SqueezeDim, Slice, Select, Cat, Stack,
  ToCopy,          // attr dtype (None = keep)
  ToDType,         // attr dtype required
  LikeFactory,     // shape of input 0, attr dtype (None = keep)
  Full,            // attr size, fill_value, dtype
  NewFactory,      // new_full/new_zeros: attr size, dtype (None = input 0's)
  ScalarTensor,    // attr s, dtype
  Constant,        // prim::constant: outputs as declared, checked against the data length
  LayerNorm, LayerNormBackward,
  SoftmaxBackward, // like grad_output
  NllLossForward, NllLossBackward, MseLoss, MseLossBackward,
  Embedding, EmbeddingBackward,
  Gather,          // shape of index, dtype of self
  IndexSelect,     // self with dim `dim` resized to index's numel (index of rank <= 1)
  OneHot,          // index shape + [num_classes], i64 (num_classes must be given)
  Scatter,         // like self; index of self's rank, i64, no longer than self (and src) per dim
  IndexPut,        // like self; index_put(self, indices..., values): values of self's dtype
  Attention,       // query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev]
};

struct OpInfo {
  std::shared_ptr<const OpSchema> schema;
  ShapeRule rule = ShapeRule::Declared;
};

// The built-in op, or nullptr.
const OpInfo *lookupOp(std::string_view name);
const std::vector<OpInfo> &allOps();

// Inputs to a shape rule. `inputs` are the node's tensor operands (nullptr for
// None); `attrs` holds every non-tensor argument, defaults filled in.
struct ShapeQuery {
  const OpSchema &schema;
  const std::vector<const TensorType *> &inputs;
  const AttributeMap &attrs;
  const std::vector<TensorType> &declared;  // declared output types, for Declared/Constant
};

// Output types of a node; throws ShapeError when the inputs do not fit.
std::vector<TensorType> inferOutputTypes(ShapeRule rule, const ShapeQuery &q);

// Broadcasts two shapes (PyTorch rules; symbols broadcast only with 1 or themselves).
Shape broadcastShapes(const Shape &a, const Shape &b);

}  // namespace torchtv
