// Which ops' semantics (src/sem) may be used bit for bit: the one place that
// marks an op real-only at level bitwise.
//
// Note [Bitwise-faithful semantics]
// A `bitwise` verdict rests on each op's term being what ATen's kernel
// computes, bit for bit, wherever the bitwise prover reads the term: the
// arithmetic, selects and casts of the term exactly, and each uninterpreted
// atom (exp, tanh, ...) as "the same function of the element's operands". An
// op listed here breaks that: its kernel rounds differently from its formula
// (a fused multiply-add, an inline sigmoid), or an element's bits depend on
// more than its operands (ATen's vectorized loop and its scalar loop for the
// tail round differently, so the element's position in the tensor matters).
// At level bitwise such a node's value is an opaque tensor named by its value
// number (src/verify/region.cpp): a bitwise claim through it rests only on
// value numbering ("same op, same operand tensors") and any other claim
// about it is at most `real`. The semantics audit (tests/audit/,
// `ctest -R audit/semantics`) measured each entry and holds every op not
// listed to bit-for-bit agreement with LibTorch.
#pragma once

#include <string_view>
#include <vector>

namespace torchtv {

struct Node;

struct BitwiseUnfaithfulOp {
  const char *op;      // registry name, e.g. "aten::silu_backward"
  const char *reason;  // what the audit measured
  // Only nodes for which this holds are unfaithful (nullptr: every node of the op).
  bool (*applies)(const Node &) = nullptr;
};

// False for a node whose op's semantics must not be used at level bitwise.
bool bitwiseFaithful(const Node &n);
// The reason a node is real-only at level bitwise, or nullptr.
const char *bitwiseUnfaithfulReason(const Node &n);
const std::vector<BitwiseUnfaithfulOp> &bitwiseUnfaithfulOps();
// A copy that may change the memory layout of its operand (Note [Layout-changing
// copies]): not a no-op for normalization.
bool isLayoutChangingCopy(const Node &n);
// A copy into a fresh row-major tensor (contiguous(), or clone / _to_copy with
// memory_format=contiguous_format): its memory layout is row-major whatever its
// operand's (Note [Copies through copies] in src/normalize/drop_no_ops.cpp).
bool isContiguousCopy(const Node &n);

}  // namespace torchtv
