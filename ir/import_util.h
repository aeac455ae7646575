// Helpers shared by the importers of foreign graph files (TorchScript, .pt2,
// capture JSON). In ir/ because the readers of src/import/ and the LibTorch
// module (src/torch/, which links ir/ and nothing else of torchtv) both use them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/diagnostic.h"

namespace torchtv {

// Literal tensors larger than this are refused: a prim::constant stores every
// element in the IR, and a large one is almost always a weight that should be
// a graph input instead.
constexpr int64_t kMaxConstantElements = 4096;

// Adds a prim::constant of `type` holding `data` (row-major; ints for integral
// and bool dtypes, floats otherwise). Throws InputError above the size cap.
Value *addConstantTensor(Graph &g, const OpResolver &ops, const TensorType &type, Attribute data,
                         const std::string &name, const SourceLoc &loc);

// Note [Numbers in tensor slots]
// A graph may pass a Python number where the schema takes a tensor
// (`prims::where(c, 0.0, y)`, `aten::add.Tensor(x, 1e-06)`). ATen wraps the
// number into a 0-dim "wrapped number" tensor: f64 for a float, i64 for an
// int, bool for a bool, which promotes like a Scalar argument. Readers take
// the op's scalar twin where it has one (add.Tensor -> add.Scalar, Note
// [Wrapped numbers]), and otherwise this: a 0-dim constant of the wrapped
// number's dtype, except that a float among only integral or bool tensor
// operands is f32 (the default dtype a wrapped float promotes to; an f64
// 0-dim tensor would make the result f64). Values are the wrapped number's.
// Where every tensor operand is 0-dim, a real 0-dim tensor promotes unlike a
// wrapped number; the types the artifact declares then disagree with the
// shape rule, and the node is refused with both types named.
Value *wrappedNumberTensor(Graph &g, const OpResolver &ops, const Attribute &number,
                           const std::vector<Value *> &operands, const SourceLoc &loc);

// Note [Absent optional outputs]
// An op with optional results (convolution_backward with output_mask false)
// records the ones it did not compute as absent (capture JSON: null; .pt2:
// as_none). `spec.declaredTypes` holds the types of the present results in
// order, `absent` the positions of the others among `count` results. Nothing
// can read an absent result (it has no name in the file), so: an op with a
// shape rule takes the inferred types (the typed ones are checked by
// position); an op whose types are only declared gets a 0-d placeholder of
// the first present result's dtype.
void completeAbsentOutputs(NodeSpec &spec, const std::vector<size_t> &absent, size_t count);

// Whether a node only checks its operands and returns nothing (torch.export's
// aten::_assert_tensor_metadata before each cast): readers drop it.
bool isNoOpCheck(const std::string &op);

// An InputError about one node of a foreign graph: "<op> at <loc>: <message>".
InputError nodeError(const std::string &path, const std::string &op, const SourceLoc &loc,
                     const std::string &message);

// A readable value name from a foreign one ("x.1" -> "x", "12" -> "v").
std::string valueNameHint(const std::string &foreign);

}  // namespace torchtv
