#include <unordered_map>

#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "src/fusion/fusion_library.h"
#include "src/normalize/passes.h"

namespace torchtv {

// Inlines one level of definitions; normalize.cpp repeats the pass, so nested
// fused ops expand too. A definition that (transitively) calls its own op is
// an error (Note [Expansion depth]). A call no definition fits (its results
// differ from what the definition returns) stays an uninterpreted op; why is
// logged and kept in `misfits` (op -> why, the first call's). `exactOnly`:
// a call whose expansion is not exact stays as written (FusionExpansion::ExactOnly).
bool expandFusions(Rewriter &rw, const FusionLibrary &lib, std::map<std::string, std::string> &misfits,
                   bool exactOnly, std::map<std::string, std::string> &expanded) {
  return rw.rewriteEach([&](Node *n) {
    if (!lib.find(n->op)) return false;
    std::string whyNot;
    auto inst = lib.instantiate(*n, &whyNot);
    if (!inst) {  // no definition covers this call: an uninterpreted op
      if (!whyNot.empty() && misfits.emplace(n->op, whyNot).second)
        spdlog::info("{} (result %{} of @{}) is not expanded, no definition fits it: {}", n->op,
                     n->outputs.empty() ? "" : n->outputs[0]->name, rw.graph().name(), whyNot);
      return false;
    }
    if (exactOnly && !inst->exact) return false;
    expanded.emplace(n->op, inst->where);
    const Graph &def = *inst->graph;
    // Definition inputs are the call's present operands, in order.
    std::unordered_map<const Value *, Value *> env;
    size_t k = 0;
    for (Value *operand : n->inputs)
      if (operand) env[def.inputs().at(k++)] = operand;
    bool real = !inst->exact || rw.anyOutputReal(*n);
    for (const auto &d : def.nodes()) {
      NodeSpec spec;
      spec.op = d->op;
      for (const Value *v : d->inputs) spec.inputs.push_back(v ? env.at(v) : nullptr);
      spec.attrs = d->attrs;
      for (const Value *o : d->outputs) spec.declaredTypes.push_back(o->type);
      spec.loc = n->loc;  // the user's line, not the definition's
      Node *c = rw.build(spec, real);
      for (size_t i = 0; i < d->outputs.size(); ++i) env[d->outputs[i]] = c->outputs[i];
    }
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      Value *to = env.at(def.outputs()[i]);
      if (!inst->exact) rw.markReal(to);  // even when the definition returns an operand
      rw.replace(n->outputs[i], to);
    }
    return true;
  });
}

}  // namespace torchtv
