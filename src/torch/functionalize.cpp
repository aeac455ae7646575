// In-place TorchScript ops -> functional ones, inside the LibTorch module (Note [LibTorch module]).
#include "src/torch/functionalize.h"

#include <algorithm>
#include <memory>

#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/ir.h>

namespace torchtv::torch_impl {

namespace jit = torch::jit;

// Note [TorchScript in-place ops]
// TorchScript keeps in-place ops as written (aten::add_, mul_, index_put_,
// masked_fill_, copy_ ...). In straight-line code, an op `v.add_(w)` whose
// modified tensor v nothing else defined before it can see (no view of it, no
// list or tuple holding it, no other name for it: LibTorch's alias analysis
// says no such value may alias or contain it) is functional code in disguise:
// it is `v1 = add(v, w)` with every later read of v reading v1 (earlier reads
// still read v; values made from v later are made from v1). Ops are rewritten so in graph order, each against the alias
// analysis of the graph as rewritten so far, so a chain of updates becomes a
// chain of values. The functional twin is the op of the same name without
// the trailing underscore and the same overload, taken only when its schema
// has the same arguments (normal_ and normal do not).
//
// A graph input modified in place is first copied (x0 = clone(x), every use
// of x then reading x0) and x0 registered as one more graph output: after the
// rewrite that output holds x's value when the function returns, which the
// importer returns as x__updated (Note [Input mutations in graph files]).
// Module state (a constant or attribute modified in place) is never
// rewritten: its update would outlive the call.
//
// What stays in place (a view modified, an out= variant, an op without a
// functional twin) is refused by the importer, naming the op: exact or
// nothing. The importer also refuses a rewritten op whose result would not
// keep the modified tensor's dtype and shape (in place, x_f16.add_(y_f32)
// computes in f32 and stores f16; add(x, y) is f32). LibTorch's own
// RemoveTensorMutation makes the same rewrite under a stricter condition
// (the tensor's creation must be movable next to the op, so one read between
// them stops it), and never for graph inputs.

namespace {

// An in-place op `name_`: it modifies its first operand, and only that, and returns it.
bool isInPlace(const jit::Node *n) {
  const c10::FunctionSchema *s = n->maybeSchema();
  if (!s || s->arguments().empty() || s->returns().size() != 1) return false;
  const std::string &name = s->name();
  const c10::AliasInfo *a = s->arguments()[0].alias_info();
  const c10::AliasInfo *r = s->returns()[0].alias_info();
  if (!(name.size() > 1 && name.back() == '_' && a && a->isWrite() && r && r->isWrite())) return false;
  for (size_t i = 1; i < s->arguments().size(); ++i)
    if (s->arguments()[i].alias_info() && s->arguments()[i].alias_info()->isWrite()) return false;
  return true;
}

bool modifiesOperand(const jit::Node *n) {
  const c10::FunctionSchema *s = n->maybeSchema();
  if (!s) return false;
  for (const auto &arg : s->arguments())
    if (arg.alias_info() && arg.alias_info()->isWrite()) return true;
  return false;
}

// Another value through which the tensor `v` modified by `n` can be read
// after `n`. Only values defined before `n` count: one defined after it that
// aliases v gets the alias from its operands (module state, the other way,
// is refused by the importer: prim::SetAttr has no schema), so it reads v or
// n's result (both rewritten to the new value) or an alias defined before n.
// The alias analysis does not say that a list only a functional op reads
// (`torch.cat([v, w])`) holds v, so a node that reads v and makes anything but
// a tensor or a plain scalar counts as holding it, whatever the analysis says.
bool seenElsewhere(jit::Graph &g, jit::AliasDb &db, jit::Value *v, jit::Node *n) {
  auto other = [&](jit::Value *w) { return w != v && (db.mayAlias(w, v) || db.mayContainAlias(w, v)); };
  auto plain = [](const jit::Value *w) {
    auto k = w->type()->kind();
    return k == c10::TypeKind::TensorType || k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType ||
           k == c10::TypeKind::BoolType || k == c10::TypeKind::NumberType || k == c10::TypeKind::NoneType;
  };
  for (jit::Value *w : g.inputs())
    if (other(w)) return true;
  for (jit::Node *m : g.nodes()) {
    if (m == n) break;
    bool reads = std::find(m->inputs().begin(), m->inputs().end(), v) != m->inputs().end();
    for (jit::Value *w : m->outputs())
      if (other(w) || (reads && !plain(w))) return true;
  }
  return false;
}

// The functional twin of in-place `n`, inserted before it; null when there is none.
jit::Node *functionalTwin(jit::Graph &g, jit::Node *n) {
  const c10::FunctionSchema &s = n->schema();
  std::string name = s.name().substr(0, s.name().size() - 1);
  jit::Node *f = g.create(c10::Symbol::fromQualString(name), n->inputs(), 1);
  f->copyMetadata(n);
  f->insertBefore(n);
  f->output()->setType(n->output()->type());
  const c10::FunctionSchema *fs = f->maybeSchema();
  bool same = fs && fs->overload_name() == s.overload_name() && fs->arguments().size() == s.arguments().size() &&
              !fs->is_mutable();
  for (size_t i = 0; same && i < s.arguments().size(); ++i)
    same = fs->arguments()[i].name() == s.arguments()[i].name() &&
           *fs->arguments()[i].type() == *s.arguments()[i].type();
  if (same) return f;
  f->destroy();
  return nullptr;
}

// x0 = clone(x) for each graph input x modified in place; x0 becomes a graph output.
std::vector<std::pair<size_t, jit::Value *>> copyModifiedInputs(jit::Graph &g) {
  std::vector<std::pair<size_t, jit::Value *>> copies;
  std::vector<size_t> modified;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    jit::Value *x = g.inputs()[i];
    if (x->type()->kind() != c10::TypeKind::TensorType) continue;
    bool written = false;
    for (jit::Node *m : g.nodes())
      if (isInPlace(m) && m->inputs()[0] == x) written = true;
    if (written) modified.push_back(i);
  }
  for (size_t i : modified) {
    jit::Value *x = g.inputs()[i];
    jit::Value *none = g.insertConstant(c10::IValue());
    none->node()->moveBefore(*g.nodes().begin());
    jit::Node *clone = g.create(c10::Symbol::fromQualString("aten::clone"), {x, none}, 1);
    clone->output()->setType(x->type());
    if (x->hasDebugName()) clone->output()->setDebugName(x->debugName());
    clone->insertAfter(none->node());
    x->replaceAllUsesAfterNodeWith(clone, clone->output());
    g.registerOutput(clone->output());
    copies.emplace_back(i, clone->output());
  }
  return copies;
}

}  // namespace

Functionalized functionalize(jit::Graph &g) {
  Functionalized out;
  size_t firstUpdate = out.userOutputs = g.outputs().size();
  if (std::none_of(g.nodes().begin(), g.nodes().end(), isInPlace)) return out;  // spares the alias analysis
  auto copies = copyModifiedInputs(g);
  for (bool changed = true; changed;) {
    changed = false;
    jit::AliasDb db(std::shared_ptr<jit::Graph>(&g, [](jit::Graph *) {}));
    for (jit::Node *n : g.nodes()) {
      if (!isInPlace(n)) continue;
      jit::Value *v = n->inputs()[0];
      auto kind = v->node()->kind();
      if (kind == c10::prim::Param || kind == c10::prim::Constant || kind == c10::prim::GetAttr) continue;
      if (seenElsewhere(g, db, v, n)) continue;
      jit::Node *f = functionalTwin(g, n);
      if (!f) continue;
      if (v->hasDebugName()) f->output()->setDebugName(v->debugName());  // a new version of v
      v->replaceAllUsesAfterNodeWith(n, f->output());
      n->output()->replaceAllUsesWith(f->output());
      out.replaced[f] = v;
      n->destroy();
      changed = true;  // the alias analysis is stale now: start again on the rewritten graph
      break;
    }
  }
  for (size_t k = 0; k < copies.size(); ++k)
    // An input only read after all (its copy is the output unchanged) is no update.
    if (g.outputs()[firstUpdate + k] != copies[k].second) out.inputUpdates.emplace_back(copies[k].first, firstUpdate + k);
  return out;
}

const jit::Node *inPlaceOpLeft(jit::Graph &g) {
  for (const jit::Node *n : g.nodes())
    if (modifiesOperand(n)) return n;
  return nullptr;
}

}  // namespace torchtv::torch_impl
