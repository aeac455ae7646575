// The state every normalization pass shares: the graph, a resolver for the
// ops it may build, and which values are only known equal at level real.
#pragma once

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"

namespace torchtv {

// Note [Levels of rewrites]
// Normalization must never let the matcher claim `bitwise` for something that
// holds only over the reals. A value is *real-level* when it was produced by a
// `real` rewrite (a `real` rule, or the expansion of an ATen composite whose
// definition is not bit-faithful, Note [Exact expansions]), or when it replaced
// a real-level value (replace() passes the mark on, so dropping, folding or
// CSE never washes it out), or when a node rebuilt from real-level values
// produced it. The checker reports `equivalent real` for an output whose
// matched cone, on either side, holds a real-level value. Over-marking is safe
// (it only weakens the level); under-marking is a soundness bug.
class Rewriter {
public:
  Rewriter(Graph &g, std::unordered_set<const Value *> &realValues, const OpResolver *extraOps = nullptr);

  Graph &graph() { return g_; }
  const OpResolver &resolver() const { return resolver_; }

  // buildNode, appended at the end (sortTopologically restores the order).
  // Outputs are marked real-level when `real`. Throws InputError as buildNode.
  Node *build(NodeSpec spec, bool real);
  // Every use of `from` reads `to`; `to` inherits from's level.
  void replace(Value *from, Value *to);

  bool isReal(const Value *v) const { return real_.count(v) != 0; }
  bool anyOutputReal(const Node &n) const;
  void markReal(const Value *v) { real_.insert(v); }

  // Nodes replaced during the current pass, so a pass does not rewrite a
  // node twice; cleared by startPass().
  bool isReplaced(const Node *n) const { return replaced_.count(n) != 0; }
  void markReplaced(const Node *n) { replaced_.insert(n); }
  void startPass() {
    replaced_.clear();
    usersBuilt_ = false;
  }

  // The current nodes, safe to iterate while nodes are added.
  std::vector<Node *> snapshot() const;

  // The loop of a rewriting pass: each node of the current snapshot not yet
  // replaced in this pass goes to `rewrite`, which returns true when it
  // replaced the node's outputs (with replace()); the node is then marked
  // replaced. Returns whether any node was (the pass changed the graph).
  template <typename Rewrite>
  bool rewriteEach(Rewrite rewrite) {
    bool changed = false;
    for (Node *n : snapshot()) {
      if (isReplaced(n) || !rewrite(n)) continue;
      markReplaced(n);
      changed = true;
    }
    return changed;
  }

private:
  Graph &g_;
  OpResolver resolver_;
  std::unordered_set<const Value *> &real_;
  std::unordered_set<const Node *> replaced_;
  // Note [Use index]: the nodes reading each value, so that replace() rewires
  // only the users of `from` instead of sweeping the graph (which made
  // normalization quadratic in the graph's size). Built on the first replace()
  // of a pass from the current nodes (passes never delete nodes; dead-code
  // elimination runs between passes, after which startPass() drops the index),
  // then kept complete by build() and replace(). A node may be listed twice.
  std::unordered_map<const Value *, std::vector<Node *>> users_;
  bool usersBuilt_ = false;
  void addUses(Node *n);
};

// The sizes of a shape whose every dim is concrete (the sizes a pass writes
// into a view or a constant); nullopt for a symbolic dim.
std::optional<std::vector<int64_t>> concreteSizes(const Shape &s);

}  // namespace torchtv
