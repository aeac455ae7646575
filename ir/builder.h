// Checked construction of nodes: every importer and pass adds nodes through
// here, so arity, attribute kinds and output types are validated in one place.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Resolves an op name to its schema and shape rule: built-in ops first, then
// custom ops declared by the input (pair-file fusions, `op` lines, captures).
class OpResolver {
public:
  void declare(std::shared_ptr<const OpSchema> schema) { custom_[schema->name] = std::move(schema); }
  const std::map<std::string, std::shared_ptr<const OpSchema>> &custom() const { return custom_; }

  struct Resolved {
    std::shared_ptr<const OpSchema> schema;
    bool builtin = false;
  };
  std::optional<Resolved> resolve(const std::string &op) const;

private:
  std::map<std::string, std::shared_ptr<const OpSchema>> custom_;
};

struct NodeSpec {
  std::string op;
  std::vector<Value *> inputs;  // tensor operands in schema order, nullptr = None
  AttributeMap attrs;           // may omit arguments that have defaults
  // Output names, and the types the input file declares (empty: infer them).
  std::vector<std::string> outputNames;
  std::vector<TensorType> declaredTypes;
  SourceLoc loc;
};

// Validates `spec` against the op's schema, fills defaults, infers output types
// (and checks them against declared ones), then appends the node to `g`.
// Throws InputError (without position; callers add theirs).
Node *buildNode(Graph &g, const OpResolver &ops, NodeSpec spec);

// Output types of an existing node, recomputed from its inputs (used by
// passes that rewrite nodes and by tests).
std::vector<TensorType> inferTypes(const Node &n);

}  // namespace torchtv
