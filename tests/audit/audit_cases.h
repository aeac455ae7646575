// The one-node graphs the semantics audit runs (tests/audit/semantics_audit.cpp).
#pragma once

#include <string>
#include <vector>

namespace torchtv::audit {

// One op at one family of shapes. `graph` is the text of a .tvir graph after
// its name: "(%x: $T$S) -> ($T$S) { ... }". `$T` is replaced by each dtype of
// `dtypes`, `$S` by each shape of `shapes`. Inputs are drawn by name: `%iN`
// (N a number) is an index in [0, N), `%m...` a bool mask, `%zK` a tensor with
  // exactly K nonzero elements (K a number), `%unit...` a value in [0, 1], any other by its
// dtype (random, special and tied values).
struct AuditCase {
  std::string op;
  std::vector<std::string> dtypes;
  std::string graph;
  std::vector<std::string> shapes;
  // Every operand has the output's shape and each output element reads only
  // its own operands' elements: the kernel is also run element by element
  // (Note [Bitwise-faithful semantics]: an element's bits must not depend on
  // its position).
  bool elementwise = false;
};

const std::vector<AuditCase> &auditCases();

}  // namespace torchtv::audit
