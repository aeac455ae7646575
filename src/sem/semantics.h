// Per-element semantics of IR ops (Note [Symbolic terms]): one entry point,
// one file per op family (elementwise.cpp, reduction.cpp, layout.cpp,
// matmul.cpp, composite.cpp, index_ops.cpp, attention.cpp, convolution.cpp,
// sorting.cpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/sem/term.h"

namespace torchtv::sem {

// Reads element `index` of the node's tensor operand `operand` (in the
// operand's own dtype).
using InputFn = std::function<TermPtr(int operand, const std::vector<IndexExpr> &index)>;

// The term for element `index` of output `output` of `node`. Throws
// Unsupported naming the op when it has no semantics.
TermPtr opTerm(TermContext &tc, const Node &node, int output, const std::vector<IndexExpr> &index,
               const InputFn &input);

// Whether opTerm knows the op (some attribute combinations may still throw).
bool hasSemantics(const std::string &op);

// What a family's handler sees.
struct OpEnv {
  TermContext &tc;
  const Node &node;
  int output;
  const std::vector<IndexExpr> &index;
  const InputFn &input;

  const TensorType &outType() const { return node.outputs.at(output)->type; }
  const TensorType &inType(int i) const;
  // Operand i read at the output index with broadcasting, cast to `dtype`.
  TermPtr operand(int i, DType dtype) const;
  // Operand i read at an explicit index, cast to `dtype`.
  TermPtr operandAt(int i, const std::vector<IndexExpr> &idx, DType dtype) const;
  // A Scalar attribute as a constant of `dtype`.
  TermPtr scalar(const std::string &name, DType dtype) const;
  // The dtype PyTorch computes a broadcasting op in (type promotion over the
  // operands and the Scalar attributes that take part).
  DType computeDType() const;
  [[noreturn]] void unsupported(const std::string &why) const;
};

using Handler = std::function<TermPtr(OpEnv &)>;
using HandlerTable = std::map<std::string, Handler>;

void addElementwise(HandlerTable &t);
void addReductions(HandlerTable &t);
void addLayout(HandlerTable &t);
void addMatmul(HandlerTable &t);
void addComposite(HandlerTable &t);
void addIndex(HandlerTable &t);  // index_ops.cpp: gather, index_select, embedding, nll_loss (issue 4)
void addAttention(HandlerTable &t);  // attention.cpp: scaled_dot_product_attention
void addConvolution(HandlerTable &t);  // convolution.cpp: convolution, pooling
void addSorting(HandlerTable &t);  // sorting.cpp: sort, topk (values)

// Helpers shared by families.
// Index of operand with `shape` broadcast against an output index.
std::vector<IndexExpr> broadcastIndex(const Shape &shape, const std::vector<IndexExpr> &outIndex);
// Reduces operand 0 over `dims` (wrapped, sorted) at the output index;
// body maps the operand's index to the term summed.
TermPtr reduceDims(OpEnv &env, TOp op, const std::vector<int64_t> &dims, bool keepdim, DType dtype,
                   const std::function<TermPtr(const std::vector<IndexExpr> &)> &body);
// Σ over `dims` of shape `s` of body, the other dims at `at` (the summed
// dims' entries of `at` are replaced by fresh binders).
TermPtr sumDims(OpEnv &e, const Shape &s, const std::vector<int64_t> &dims, std::vector<IndexExpr> at, DType d,
                const std::function<TermPtr(const std::vector<IndexExpr> &)> &body);
// A term that depends on position o of `count` positions through `at(o)`: a
// select chain over the positions (Note [Data-dependent indices] does the same
// for data; here the position is an index).
TermPtr perPosition(OpEnv &e, const IndexExpr &o, int64_t count, const std::function<TermPtr(int64_t)> &at);
// The dims list of a reduction attribute (None or [] = all dims), wrapped and sorted.
std::vector<int64_t> reductionDims(const Attribute &dimAttr, int64_t rank);
// Number of elements of the given dims of a shape (concrete dims only).
int64_t countOf(const Shape &shape, const std::vector<int64_t> &dims, const OpEnv &env);

}  // namespace torchtv::sem
