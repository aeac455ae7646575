// Hash-consing of two graphs into one value-numbering table.
//
// Note [Value numbering]
// Graph inputs are bound by position: input i of the reference and input i of
// the production graph get the same number. A node's outputs are numbered by
// the key (op, attributes, result type, operand numbers, output index); equal
// keys get equal numbers, so two values with the same number compute the same
// function of the inputs, bit for bit, for deterministic ops (Note [Random calls]).
// Operands of bitwise-commutative ops are sorted first (Note [Commutative ops]).
// Nodes that no output depends on never matter (dead code is ignored), and
// repeated computations share a number (common subexpressions).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

class ValueNumbering {
public:
  // Numbers every value of `g`. Call once per graph; inputs are bound by position.
  void addGraph(const Graph &g);

  // The steps of addGraph, for a pass that numbers a graph node by node and
  // merges values as it goes (Note [Cut points]): bind g's inputs by position,
  // number one node whose operands are numbered, give a numbered value another
  // number (its users numbered after this see it).
  void bindInputs(const Graph &g);
  void numberNode(const Node &node);
  void renumber(const Value *v, int number) { numbers_[v] = number; }

  int number(const Value *v) const { return numbers_.at(v); }
  bool has(const Value *v) const { return numbers_.count(v) != 0; }
  size_t distinctValues() const { return table_.size() + numInputs_; }

private:
  std::optional<int> numberView(const Node &node, std::vector<int> &operands);

  struct ViewOf {
    int number;  // of the value viewed, itself no view
    TensorType type;
  };
  std::unordered_map<std::string, int> table_;
  std::unordered_map<int, ViewOf> viewOf_;  // Note [Views of merged values]
  std::unordered_map<const Value *, int> numbers_;
  size_t numInputs_ = 0;
  size_t randomCalls_ = 0;
};

// Note [Views of merged values]
// Normalization makes a view of a view one view of the first operand, within a graph. A cut
// (Note [Cut points]) gives a production value the number of a reference value, and when that
// reference value is a view of X, production's view of it is a view of a view across the two
// graphs: it is numbered as a view of X, and as X itself where its type is X's (a chunked
// recurrence's state, merged as the [1,4,4] view a matrix product reads, is viewed back to
// the [1,1,4,4] state the reference's next step reads). Bitwise: both views keep the row-major
// order (Note [Canonical layout ops] in src/normalize/canonical_layout.cpp). Only a view with no
// attribute but its size composes.

// Note [Random calls]
// Value numbering equates calls by their op, arguments and operands, which is
// right only for deterministic ops. A call that draws random numbers
// (isRandomCall in ir/op_registry.h: rand, bernoulli, dropout with p > 0 in
// training, ..., and reads of uninitialized memory such as empty_like) gets a number of its own, so it matches nothing, not even an
// identical call; common-subexpression elimination skips it for the same
// reason. Dropout with p=0 or train=False is the identity (drop_no_ops).

// Note [Commutative ops]
// Ops whose operands can be swapped without changing a single bit of the
// result. IEEE addition and multiplication commute exactly (NaN payloads aside,
// and every NaN counts as equal). maximum/minimum are NOT here: for -0.0 and
// +0.0 they return whichever operand comes first.
bool isBitwiseCommutative(const Node &n);
// "op(operands){attributes}": what identifies a node's computation, given its
// operands' ids (numbers, or value ids within one graph; -1 for None), sorted
// for a bitwise-commutative op (value numbering and CSE key nodes by it).
std::string operationKey(const Node &node, std::vector<int> operands);

}  // namespace torchtv
