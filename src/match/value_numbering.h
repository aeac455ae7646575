// Hash-consing of two graphs into one value-numbering table.
//
// Note [Value numbering]
// Graph inputs are bound by position: input i of the reference and input i of
// the production graph get the same number. A node's outputs are numbered by
// the key (op, attributes, result type, operand numbers, output index); equal
// keys get equal numbers, so two values with the same number compute the same
// function of the inputs, bit for bit, provided every op is deterministic.
// Operands of bitwise-commutative ops are sorted first (Note [Commutative ops]).
// Nodes that no output depends on never matter (dead code is ignored), and
// repeated computations share a number (common subexpressions).
#pragma once

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
  std::unordered_map<std::string, int> table_;
  std::unordered_map<const Value *, int> numbers_;
  size_t numInputs_ = 0;
};

// Note [Unspecified values]
// Uninitialized memory (empty, empty_like, new_empty, empty_strided) holds
// values nobody wrote, and random ops (rand, randn, bernoulli, dropout in
// training) draw new ones each call: two such calls are never equal, even with
// equal operands. Value numbering gives each result a number of its own and
// CSE never merges them, so an output that reads them is decided only where it
// does not depend on them (`addmm(empty_like(a), x, y, beta=0)`).
bool producesUnspecifiedValues(const Node &n);

// Note [Commutative ops]
// Ops whose operands can be swapped without changing a single bit of the
// result. IEEE addition and multiplication commute exactly (NaN payloads aside,
// and every NaN counts as equal). maximum/minimum are NOT here: for -0.0 and
// +0.0 they return whichever operand comes first.
bool isBitwiseCommutative(const Node &n);

}  // namespace torchtv
