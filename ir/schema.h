// Operator signatures in ATen's schema language, e.g.
//   aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute.h"

namespace torchtv {

// What an argument carries. Tensor kinds become node inputs (SSA values); all
// others become node attributes.
enum class ArgKind {
  Tensor,
  TensorList,  // Tensor[] and Tensor?[]
  Int,         // int, SymInt
  IntList,     // int[], int[N], SymInt[]
  Float,
  FloatList,
  Bool,
  BoolList,    // stored as ints (0/1)
  Scalar,      // a number whose int/float kind matters for promotion
  ScalarType,
  String,
  Device,
  Layout,
  MemoryFormat,
  Other,       // Generator, Dimname, ...: accepted only as None
};

struct ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  bool optional = false;    // `T?`: may be None
  bool elementsOptional = false;  // `Tensor?[]`: list elements may be None
  bool kwargOnly = false;   // after `*`
  bool mutates = false;     // `Tensor(a!)`: in-place or out= argument
  bool aliased = false;     // any alias annotation, `Tensor(a)` or `Tensor(a!)` (read for results)
  // Note [Fixed-length lists]
  // `int[2] stride`: 2. PyTorch reads a single value given for such an
  // argument as that many copies (the schema's own `int[2] stride=1` default
  // means [1, 1]); the builder stores it so, so that `stride=1`, `[1]` and
  // `[1, 1]` are one attribute and calls that spell it differently match.
  size_t fixedLength = 0;   // 0: no fixed length
  std::optional<Attribute> defaultValue;
  std::string typeText;     // as written, for messages

  bool isTensor() const { return kind == ArgKind::Tensor || kind == ArgKind::TensorList; }
};

struct OpSchema {
  std::string name;      // "aten::mean.dim"; the overload "default" is dropped
  std::vector<ArgSpec> args;
  int numReturns = 1;    // tensors returned
  bool returnsList = false;  // `-> Tensor[]`
  bool returnsAlias = false; // a result carries an alias annotation (`-> Tensor(a)`): it may share an operand's memory
  std::string text;      // the schema as parsed

  const ArgSpec *findArg(std::string_view argName) const;
  std::vector<const ArgSpec *> tensorArgs() const;
  // The argument each of a node's `numOperands` operands belongs to (Note
  // [Operands of a tensor list]); throws InputError when the count does not fit.
  std::vector<const ArgSpec *> operandArgs(size_t numOperands) const;
  bool mutatesInput() const;
};

// Parses an ATen schema string; throws InputError with the column on failure.
OpSchema parseSchema(std::string_view text);

// "aten::add" + "Tensor" -> "aten::add.Tensor"; overload "" or "default" -> "aten::add".
std::string canonicalOpName(std::string_view qualifiedName, std::string_view overload);

}  // namespace torchtv
