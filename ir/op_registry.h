// The op registry: every op torchtv knows, with its ATen schema, the rule that
// computes its output types, and its properties (Note [Op properties]). Adding
// a shape rule = one line in op_registry.cpp; every other ATen/prims overload
// LibTorch knows is generated into ir/aten_schemas.inc (Note [Declared ops]).
#pragma once

#include <memory>
#include <optional>
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
  IndexTensor,     // index.Tensor(self, indices...): integer indices broadcast to B replace their dims
  Attention,       // query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev]
  Split,           // split.Tensor/split_with_sizes/chunk/unbind: pieces of input 0 along `dim`
  ExpandAs,        // dtype of input 0, shape of input 1
  TypeAs,          // shape of input 0, dtype of input 1
  CopyInto,        // like input 0; input 1 broadcasts to its shape (copy; fill.Tensor: 0-dim)
  ConstantPadNd,   // attr pad: (before, after) pairs from the last dim backwards
  VarMean,         // (var, mean), each as Reduce
};

// Note [Op properties]
// Facts about an op that passes act on, kept as columns of the registry (as
// MLIR keeps traits on the op) so that every pass reads the same answer:
//  - elements: how the result's elements come from operand 0's, when they do
//    without arithmetic. Identity: the operand's values (alias, copy);
//    Reshape: in row-major order, possibly repeated (view, expand, squeeze: the
//    same type means the identity); Reorder: other positions (permute, slice,
//    select, flip). Region widening walks through Reshape and Reorder ops;
//    constant folding through all three; drop_no_ops removes Identity ops and
//    Reshape ops of an unchanged type.
//  - commutes: the operands can be swapped without changing a bit of the result
//    (Note [Commutative ops] in src/match/value_numbering.h); add only with alpha=1.
//  - random: results differ from call to call (PyTorch's nondeterministic_seeded
//    tag), so two calls never match. Some random ops are the identity for some
//    arguments (dropout with p=0 or train=False: isIdentityCall()).
//  - uninitialized: the result is memory nobody wrote (empty, empty_like,
//    new_empty, ...): random too; the evaluator gives it no values, so only
//    a result that does not read it (addmm with beta=0, copy, fill) evaluates.
//  - scalarTwin: the overload that takes a number where this one takes a tensor
//    (add.Tensor -> add.Scalar, argument `other`), found from the schemas.
//  - matrixProduct: mm, bmm, matmul, linear, addmm, dot (the prover's frontiers
//    stop at or expand them).
//  - indexes: the argument that holds indices into another argument's dim
//    (gather's `index` into `self` along `dim`, nll_loss's `target` into the
//    classes of `self`), so that random refutation draws them in range
//    (Note [Input domains] in src/verify/input_domains.h).
//  - positiveArg: the argument on which the op is real-valued only where it is
//    positive (log, sqrt, rsqrt); "" when none.
//  - masks: the argument where a large negative value masks an entry: the
//    input of a softmax, logsumexp or amax (which their expansions use), an
//    additive mask being added into it, or attention's attn_mask, so that
//    random refutation draws additive masks as masks (0 or finfo.min, fully
//    masked rows included).
//  - mayAlias: a result may share memory with an operand (a view, or a
//    composite that can return its input itself): the schema annotates a
//    result (`-> Tensor(a)`), or elements is Reshape or Reorder, or the op is
//    one of those whose schemas do not say so (dropout, type_as, unsafe_split,
//    ...: op_registry.cpp); every op the registry does not know. Readers of
//    programs with in-place ops use it (Note [In-place ops in .pt2 programs]).
// Which ops' semantics hold bit for bit is not a column: it depends on the call
// (an alpha, a dtype), so it is one table of its own, ir/bitwise_faithful.h.
enum class ElementMap { None, Identity, Reshape, Reorder };
enum class Commutes { No, Always, UnitAlpha };

// Indices held by argument `index` point into dim `dim` of argument `into`:
// the dim is the int attribute `dimAttr` when set, the class dim (1, or 0 of a
// 1-d `into`) when `classDim`, else `dim`. With `into` empty, the bound is the
// int attribute `boundAttr` (one_hot's num_classes).
struct IndexOperand {
  std::string index, into;
  std::string dimAttr;
  bool classDim = false;
  int dim = 0;
  std::string boundAttr;
};

// An argument where a large negative value masks an entry (Note [Input
// domains]): a softmax's input, into which an additive mask is added
// (`summand`), or attention's attn_mask, which is the mask itself.
struct MaskOperand {
  std::string arg;
  bool summand = false;
};

struct OpProps {
  ElementMap elements = ElementMap::None;
  Commutes commutes = Commutes::No;
  bool random = false;
  bool uninitialized = false;
  bool bitwiseNondeterministic = false;  // PyTorch's tag (atomic adds on GPU); recorded, CPU is deterministic
  bool matrixProduct = false;
  bool mayAlias = false;
  std::string scalarTwin;  // "" when none
  std::string scalarArg;   // the twin's Scalar argument replacing the tensor one
  std::optional<IndexOperand> indexes;
  std::string positiveArg;
  std::optional<MaskOperand> masks;
};

struct OpInfo {
  std::shared_ptr<const OpSchema> schema;
  ShapeRule rule = ShapeRule::Declared;
  OpProps props;
  bool generated = false;  // from ir/aten_schemas.inc only: no shape rule, no hand-written entry

  bool hasShapeRule() const { return rule != ShapeRule::Declared; }
};

// The known op (hand-written or generated), or nullptr.
const OpInfo *lookupOp(std::string_view name);
const std::vector<OpInfo> &allOps();

// Properties of an op by name: the registry's, or for an op it does not know
// (a custom op, an op newer than the LibTorch in use) conservative ones: random
// when its name says so (rand, dropout, bernoulli, ...), nothing else.
OpProps opProps(std::string_view name);

// Whether a node of `op` with these attributes returns operand 0 unchanged
// although the op is random (dropout with p=0 or train=False; Note [Op properties]).
bool isIdentityCall(std::string_view op, const AttributeMap &attrs);

// Whether a call draws random numbers: a random op that is not an identity
// call, or any op with a nonzero `dropout_p` (attention) or a nonzero `dropout`
// while training (rnn). Two such calls never compute the same values.
bool isRandomCall(std::string_view op, const AttributeMap &attrs);

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
