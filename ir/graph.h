// The shared IR: an SSA dataflow graph of tensor operations.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/attribute.h"
#include "ir/capture_evidence.h"
#include "ir/schema.h"
#include "ir/shape.h"

namespace torchtv {

// Where a node came from in the user's source (file:line from the capture's
// stack trace). line == 0 means unknown.
struct SourceLoc {
  std::string file;
  int line = 0;

  bool known() const { return line > 0; }
  std::string str() const { return known() ? file + ":" + std::to_string(line) : "<unknown>"; }
};

class Node;

class Value {
public:
  std::string name;   // unique within its graph, without the leading '%'
  TensorType type;
  Node *producer = nullptr;  // null for graph inputs
  int outputIndex = 0;       // which output of producer
  int id = 0;                // dense index within the graph, in creation order
};

class Node {
public:
  std::string op;  // canonical name, e.g. "aten::mean.dim"
  std::shared_ptr<const OpSchema> schema;
  // Tensor arguments in schema order; a list argument contributes all of its
  // elements. nullptr stands for an absent optional tensor (None).
  std::vector<Value *> inputs;
  // Every non-tensor argument of the schema, defaults filled in.
  AttributeMap attrs;
  std::vector<Value *> outputs;
  SourceLoc loc;

  const Attribute &attr(const std::string &name) const;
  Value *output() const { return outputs.at(0); }
};

class Graph {
public:
  explicit Graph(std::string name = "") : name_(std::move(name)) {}
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  Value *addInput(const std::string &name, TensorType type);
  // Appends a node; its outputs get the given names and types.
  Node *addNode(std::string op, std::shared_ptr<const OpSchema> schema, std::vector<Value *> inputs,
                AttributeMap attrs, const std::vector<std::pair<std::string, TensorType>> &outputs,
                SourceLoc loc = {});
  void addOutput(Value *v, std::string name = "");
  void setOutput(size_t i, Value *v) { outputs_.at(i) = v; }
  // Replaces the outputs and their names (of equal length).
  void setOutputs(std::vector<Value *> values, std::vector<std::string> names);

  const std::vector<Value *> &inputs() const { return inputs_; }
  const std::vector<std::unique_ptr<Node>> &nodes() const { return nodes_; }
  const std::vector<Value *> &outputs() const { return outputs_; }
  const std::vector<std::string> &outputNames() const { return outputNames_; }
  size_t numValues() const { return values_.size(); }

  // Replaces the node list (used by passes that reorder or drop nodes). Every
  // node must already belong to this graph.
  void setNodes(std::vector<std::unique_ptr<Node>> nodes) { nodes_ = std::move(nodes); }
  std::vector<std::unique_ptr<Node>> takeNodes() { return std::move(nodes_); }

  // A fresh value name not used in this graph, based on hint.
  std::string freshName(const std::string &hint);

private:
  Value *newValue(const std::string &name, TensorType type);

  std::string name_;
  std::vector<Value *> inputs_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Value *> outputs_;
  std::vector<std::string> outputNames_;
  std::deque<std::unique_ptr<Value>> values_;
  // Note [Fresh names]: names in use, and per hint the first suffix freshName
  // has not tried yet. Names are never released, so every suffix below it is
  // taken and freshName stays O(1) amortized however many values share a hint.
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, int> nextSuffix_;
};

// A graph named after an op (`graph @aten::gelu(...)`): a fusion definition,
// kept as text when a file is read, and read once into a GraphPattern by the
// fusion library that uses it (Note [Fusion templates] in text_format.h).
// Several may share a name.
struct GraphTemplate {
  std::string name;  // the op it defines, e.g. "aten::gelu"
  std::string path;  // file, and position of `graph`, for error messages
  int line = 1, col = 1;
  std::string text;  // from `graph` to the closing brace
};

// A parsed file: graphs by name (e.g. @reference, @production), fusion
// definitions (graphs named after the op they define), plus declared custom ops.
// Nodes some output of `g` depends on (the union of the outputs' cones), in
// one backward sweep over the nodes (they are in topological order).
std::unordered_set<const Node *> liveNodes(const Graph &g);
// The same for the outputs i with outputs[i] true.
std::unordered_set<const Node *> liveNodes(const Graph &g, const std::vector<bool> &outputs);

struct Module {
  std::string path;
  std::vector<std::unique_ptr<Graph>> graphs;
  std::vector<GraphTemplate> templates;
  std::map<std::string, std::shared_ptr<const OpSchema>> customOps;
  // Set for a capture of a pair file (verify, or check of a capture directory).
  std::optional<CaptureEvidence> capture;

  Graph *find(const std::string &name) const;
};

}  // namespace torchtv
