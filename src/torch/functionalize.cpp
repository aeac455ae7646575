// In-place TorchScript ops -> functional ones, inside the LibTorch module (Note [LibTorch module]).
#include "src/torch/functionalize.h"

#include <algorithm>
#include <memory>
#include <optional>

#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/ir.h>

#include "ir/op_registry.h"
#include "ir/schema.h"

namespace torchtv::torch_impl {

namespace jit = torch::jit;

// Note [TorchScript in-place ops]
// TorchScript keeps in-place ops as written (aten::add_, mul_, index_put_,
// masked_fill_, copy_ ...) and out= variants (torch.add(a, b, out=v) is
// aten::add.out). In straight-line code, an op `v.add_(w)` whose modified
// tensor v nothing else defined before it and read after it can see (no view
// of it, no list or tuple holding it, no other name for it: LibTorch's alias
// analysis says no such value may alias or contain it) is functional code in
// disguise: it is `v1 = add(v, w)` with every later read of v reading v1
// (earlier reads still read v; values made from v later are made from v1; an
// alias that nothing reads after the op cannot see the write). Ops are rewritten so in
// graph order, each against the alias analysis of the graph as rewritten so
// far, so a chain of updates becomes a chain of values. The functional twin of
// an in-place op is the op of the same name without the trailing underscore
// and the same overload, taken only when its schema has the same arguments
// (normal_ and normal do not): copy_ -> copy, zero_ -> zero, fill_ -> fill,
// whose results take self's shape and dtype and never read its values
// (copy(v, src) is src broadcast to v's shape and converted to its dtype, as
// copy_ writes it). The twin of an out= variant writing v is the overload of
// the same name whose arguments are the others (add.out -> add.Tensor,
// mm.out -> mm); v1 is its result. The out= tensor must not also be an operand
// (torch.mm(v, b, out=v): not every kernel reads before it writes). Its prior
// values are never read (an empty buffer is fine), and ATen resizes it to the
// result: v1 may have another shape than v, where v is the function's own
// tensor (an input's update keeps the input's type).
//
// A graph input modified in place is first copied (x0 = clone(x), every use
// of x then reading x0) and x0 registered as one more graph output: after the
// rewrite that output holds x's value when the function returns, which the
// importer returns as x__updated (Note [Input mutations in graph files]).
// Module state (a constant or attribute modified in place) is never
// rewritten: its update would outlive the call.
//
// A view modified in place is rewritten too, where exact (Note [TorchScript
// in-place ops through views]). What stays in place (another view modified,
// a view read after the update of what it views, an out= variant that reads
// its own out tensor, an op without a functional twin) is refused by the importer,
// naming the op: exact or nothing. The importer also refuses a rewritten op
// whose result would not keep the modified tensor's dtype (and shape, except
// for a resized out= tensor): in place, x_f16.add_(y_f32) computes in f32 and
// stores f16, where add(x, y) is f32. LibTorch's own RemoveTensorMutation
// makes the same rewrite under a stricter condition (the tensor's creation
// must be movable next to the op, so one read between them stops it), and
// never for graph inputs or out= variants.

namespace {

bool writes(const c10::Argument &a) { return a.alias_info() && a.alias_info()->isWrite(); }

// An op that writes one of its operands, only that one, and returns it: an
// in-place op `name_` (it writes its first operand) or an out= variant (it
// writes its `out` argument, its last).
struct Write {
  size_t operand;
  bool out;  // an out= variant
};

std::optional<Write> writeOf(const jit::Node *n) {
  const c10::FunctionSchema *s = n->maybeSchema();
  if (!s || s->arguments().empty() || s->returns().size() != 1 || !writes(s->returns()[0])) return std::nullopt;
  const auto &args = s->arguments();
  size_t written = args.size(), count = 0;
  for (size_t i = 0; i < args.size(); ++i)
    if (writes(args[i])) written = i, ++count;
  if (count != 1) return std::nullopt;
  const std::string &name = s->name();
  if (written == 0 && name.size() > 1 && name.back() == '_') return Write{0, false};
  if (written == args.size() - 1 && args[written].name() == "out" && args[written].kwarg_only()) return Write{written, true};
  return std::nullopt;
}

bool modifiesOperand(const jit::Node *n) {
  const c10::FunctionSchema *s = n->maybeSchema();
  if (!s) return false;
  for (const auto &arg : s->arguments())
    if (writes(arg)) return true;
  return false;
}

// An op whose result may be one of its operands although its schema says no
// alias, so LibTorch's alias analysis takes the result for a fresh tensor:
// type_as returns self when the dtype is already other's, and
// `x.type_as(y).add_(1)` then modifies the input x. The registry's mayAlias
// column knows them (Note [Op properties] in ir/op_registry.h).
bool hiddenAlias(const jit::Node *m) {
  const c10::FunctionSchema *s = m->maybeSchema();
  if (!s || s->returns().empty()) return false;
  for (const auto &r : s->returns())
    if (r.alias_info()) return false;  // annotated: the alias analysis knows it
  return opProps(canonicalOpName(s->name(), s->overload_name())).mayAlias;
}

// Whether `w` is read by `n` or a node after it (a graph output is read after every node).
bool readFrom(const jit::Value *w, const jit::Node *n) {
  return std::any_of(w->uses().begin(), w->uses().end(),
                     [&](const jit::Use &u) { return u.user == n || u.user->isAfter(n); });
}

// Another value through which the tensor `v` modified by `n` can be read
// after `n` (those `allowed` aside: the view rewrite reads them anew). Only values
// defined before `n` that are read at or after it count: one defined after it
// that aliases v gets the alias from its operands (module state, the other
// way, is refused by the importer: prim::SetAttr has no schema), so it reads v
// or n's result (both rewritten to the new value) or an alias defined before n,
// which is then read after n; an alias nothing reads after n cannot see the
// write. A graph input is seen by the caller. The alias analysis does not say
// that a list only a functional op reads (`torch.cat([v, w])`) holds v, so a
// node that reads v and makes anything but a tensor or a plain scalar counts
// as holding it, whatever the analysis says.
bool seenElsewhere(jit::Graph &g, jit::AliasDb &db, jit::Value *v, jit::Node *n,
                   const std::vector<jit::Value *> &allowed = {}) {
  auto isAllowed = [&](const jit::Value *w) { return std::find(allowed.begin(), allowed.end(), w) != allowed.end(); };
  auto other = [&](jit::Value *w) { return w != v && !isAllowed(w) && (db.mayAlias(w, v) || db.mayContainAlias(w, v)); };
  auto plain = [](const jit::Value *w) {
    auto k = w->type()->kind();
    return k == c10::TypeKind::TensorType || k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType ||
           k == c10::TypeKind::BoolType || k == c10::TypeKind::NumberType || k == c10::TypeKind::NoneType;
  };
  if (hiddenAlias(v->node())) return true;  // v may be an operand of the op that made it
  for (jit::Value *w : g.inputs())
    if (other(w)) return true;
  for (jit::Node *m : g.nodes()) {
    if (m == n) break;
    bool reads = std::find(m->inputs().begin(), m->inputs().end(), v) != m->inputs().end();
    bool readsAlias = std::any_of(m->inputs().begin(), m->inputs().end(),
                                  [&](jit::Value *u) { return u == v || db.mayAlias(u, v); });
    for (jit::Value *w : m->outputs()) {
      if (isAllowed(w) || !readFrom(w, n)) continue;
      if ((readsAlias && hiddenAlias(m)) || other(w) || (reads && !plain(w))) return true;  // hidden: w may be v
    }
  }
  return false;
}

// Note [TorchScript in-place ops through views]
// `y[0].zero_()` and `g2 = g.view(-1); g2[idx] -= 1` modify a view v of a
// tensor b, and b is read afterwards. Where v is made from b by view, select
// or slice, or a chain of them (`y[:, 1:3]`: two slices), every element of v
// is an element of b. Where nothing but the chain's values can see the write
// (seenElsewhere with the chain allowed, for each of them) and b is a tensor
// of the function's own, the write is
//   v1 = twin(v, ...)        as for any in-place op
//   c1 = select_scatter(c, v1, dim, index) | slice_scatter(c, v1, dim, start, end, step)
//      | view(v1, size(c))   (a view has all of c's elements, in c's order)
// for c what v is a view of, and so on up the chain to b; every later read of
// b reads b1. Only b may be read after the op (nor may its result be): a
// later update of b1 would not reach a view's new version, a tensor of its
// own (`s = y[0]; s.zero_(); y.add_(1); return s`). Nor may the op read the
// chain's tensors but v (`y[0].copy_(y[1])`: the kernel may see its own
// writes). A reshape (a view or a copy, as the strides fall), another
// aliasing op and a view of a graph input stay refused.
bool isView(const jit::Node *m) {
  auto k = m->kind();
  return (k == c10::aten::select && m->inputs().size() == 3) || (k == c10::aten::slice && m->inputs().size() == 5) ||
         (k == c10::aten::view && m->inputs().size() == 2 &&
          m->input(1)->type()->kind() == c10::TypeKind::ListType);  // not view.dtype
}

// v, what it is a view of, and so on (isView), up to a tensor no view op made.
std::vector<jit::Value *> viewChain(jit::Value *v) {
  std::vector<jit::Value *> chain{v};
  while (isView(chain.back()->node())) chain.push_back(chain.back()->node()->input(0));
  return chain;
}

// c1 for the view `view` of c, whose new value is v1 (the Note above), inserted
// before `before`; the nodes made are appended to `made`.
jit::Value *scatterBack(jit::Graph &g, jit::Node *view, jit::Value *v1, jit::Node *before, std::vector<jit::Node *> &made) {
  jit::Value *base = view->input(0);
  jit::Node *b1 = nullptr;
  if (view->kind() == c10::aten::select) {
    b1 = g.create(c10::Symbol::fromQualString("aten::select_scatter"), {base, v1, view->input(1), view->input(2)}, 1);
  } else if (view->kind() == c10::aten::slice) {
    b1 = g.create(c10::Symbol::fromQualString("aten::slice_scatter"),
                  {base, v1, view->input(1), view->input(2), view->input(3), view->input(4)}, 1);
  } else {
    jit::Node *size = g.create(c10::aten::size, {base}, 1);
    size->output()->setType(c10::ListType::ofInts());
    size->insertBefore(before);
    made.push_back(size);
    b1 = g.create(c10::aten::view, {v1, size->output()}, 1);
  }
  b1->copyMetadata(before);
  b1->output()->setType(base->type());
  b1->insertBefore(before);
  made.push_back(b1);
  if (!b1->maybeSchema()) return nullptr;
  if (base->hasDebugName()) b1->output()->setDebugName(base->debugName());  // a new version of c
  return b1->output();
}

// The functional twin of `n` that writes operand `w`, inserted before it; null
// when there is none. In place (`add_`): the op without the underscore, same
// overload, same arguments. out= (`add.out`): the op of the same name whose
// schema has exactly the other arguments (`add.Tensor`), found by the types of
// the operands as TorchScript finds any overload.
jit::Node *functionalTwin(jit::Graph &g, jit::Node *n, const Write &w) {
  const c10::FunctionSchema &s = n->schema();
  std::string name = w.out ? s.name() : s.name().substr(0, s.name().size() - 1);
  std::vector<jit::Value *> inputs;
  std::vector<const c10::Argument *> args;
  for (size_t i = 0; i < n->inputs().size(); ++i)
    if (!w.out || i != w.operand) inputs.push_back(n->inputs()[i]), args.push_back(&s.arguments()[i]);
  jit::Node *f = g.create(c10::Symbol::fromQualString(name), inputs, 1);
  f->copyMetadata(n);
  f->insertBefore(n);
  f->output()->setType(n->output()->type());
  const c10::FunctionSchema *fs = f->maybeSchema();
  bool same = fs && (w.out || fs->overload_name() == s.overload_name()) && fs->arguments().size() == args.size() &&
              !fs->is_mutable() && fs->returns().size() == 1;
  for (size_t i = 0; same && i < args.size(); ++i)
    same = fs->arguments()[i].name() == args[i]->name() && *fs->arguments()[i].type() == *args[i]->type();
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
      if (auto w = writeOf(m); w && m->inputs()[w->operand] == x) written = true;
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
  auto writing = [](const jit::Node *n) { return writeOf(n).has_value(); };
  if (std::none_of(g.nodes().begin(), g.nodes().end(), writing)) return out;  // spares the alias analysis
  auto copies = copyModifiedInputs(g);
  auto isCopy = [&](const jit::Value *v) {
    return std::any_of(copies.begin(), copies.end(), [&](const auto &c) { return c.second == v; });
  };
  for (bool changed = true; changed;) {
    changed = false;
    jit::AliasDb db(std::shared_ptr<jit::Graph>(&g, [](jit::Graph *) {}));
    for (jit::Node *n : g.nodes()) {
      auto w = writeOf(n);
      if (!w) continue;
      jit::Value *v = n->inputs()[w->operand];
      auto kind = v->node()->kind();
      auto leave = [&](const char *why) { out.left[n] = why; };
      if (kind == c10::prim::Param || kind == c10::prim::Constant || kind == c10::prim::GetAttr) {
        leave("it modifies module state, whose update would outlive the call");
        continue;
      }
      // Note [TorchScript in-place ops through views]: v a view, the chain of views alone sees the write.
      std::vector<jit::Value *> chain{v};
      if (seenElsewhere(g, db, v, n)) {
        chain = viewChain(v);
        auto rootKind = chain.back()->node()->kind();
        bool own = !w->out && chain.size() > 1 && rootKind != c10::prim::Param && rootKind != c10::prim::Constant &&
                   rootKind != c10::prim::GetAttr && !isCopy(chain.back());
        // Only the tensor viewed may be read afterwards: a view's new version would be a tensor of
        // its own, which a later update of what it views would not reach. And the op reads
        // nothing the chain holds but v, which it writes.
        auto afterN = [&](const jit::Value *c) {
          return std::any_of(c->uses().begin(), c->uses().end(), [&](const jit::Use &u) { return u.user->isAfter(n); });
        };
        own = own && !n->output()->hasUses() && std::none_of(chain.begin(), chain.end() - 1, afterN);
        for (size_t i = 0; own && i < n->inputs().size(); ++i) {
          jit::Value *u = n->inputs()[i];
          if (i == w->operand || u == v) continue;
          for (jit::Value *c : chain) own = own && !(u == c || db.mayAlias(u, c) || db.mayContainAlias(u, c));
        }
        if (!own || std::any_of(chain.begin(), chain.end(), [&](jit::Value *c) { return seenElsewhere(g, db, c, n, chain); })) {
          leave("another value can read the modified tensor too (a view of it, what it is a view of, or a list "
                "or tuple holding it)");
          continue;
        }
      }
      // torch.mm(v, b, out=v) reads what it writes: not every kernel allows that.
      if (w->out && std::count(n->inputs().begin(), n->inputs().end(), v) > 1) {
        leave("its out= tensor is also one of its operands");
        continue;
      }
      jit::Node *f = functionalTwin(g, n, *w);
      if (!f) {
        leave(w->out ? "no functional overload takes its other arguments" : "it has no functional twin (the op "
                                                                           "without `_`, with the same arguments)");
        continue;
      }
      std::vector<jit::Value *> updated{f->output()};
      std::vector<jit::Node *> made;
      for (size_t k = 1; k < chain.size() && updated.back(); ++k)
        updated.push_back(scatterBack(g, chain[k - 1]->node(), updated.back(), n, made));
      if (!updated.back()) {  // no schema takes the scatter's operands: leave it all as it was
        for (auto it = made.rbegin(); it != made.rend(); ++it) (*it)->destroy();
        f->destroy();
        leave("another value can read the modified tensor too (a view of it, what it is a view of, or a list "
              "or tuple holding it)");
        continue;
      }
      out.left.erase(n);
      for (size_t k = 1; k < chain.size(); ++k) chain[k]->replaceAllUsesAfterNodeWith(n, updated[k]);
      if (v->hasDebugName()) f->output()->setDebugName(v->debugName());  // a new version of v
      v->replaceAllUsesAfterNodeWith(n, f->output());
      n->output()->replaceAllUsesWith(f->output());
      out.replaced[f] = v;
      // ATen resizes an out= tensor to the result; an input's update keeps its type.
      if (w->out && !isCopy(v)) out.resized.insert(f);
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

std::optional<std::pair<const jit::Node *, std::string>> inPlaceOpLeft(jit::Graph &g, const Functionalized &f) {
  for (const jit::Node *n : g.nodes()) {
    if (!modifiesOperand(n)) continue;
    auto it = f.left.find(n);
    return std::make_pair(n, it != f.left.end() ? it->second
                                                : std::string("it writes an operand other than its first or its out= "
                                                              "argument, or more than one"));
  }
  return std::nullopt;
}

}  // namespace torchtv::torch_impl
