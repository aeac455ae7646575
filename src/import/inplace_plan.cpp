#include "src/import/inplace_plan.h"

#include <algorithm>
#include <map>

#include "ir/op_registry.h"

namespace torchtv {

// Note [In-place ops in .pt2 programs]
// torch.export's traced form (before run_decompositions) keeps in-place ops as
// the model calls them: `%relu_ = aten::relu_(%bn)` writes relu(bn) into bn's
// memory and returns that memory. A program in the Core ATen spelling (what
// run_decompositions gives, functional when torch makes it) may still hold
// copy_, zero_, fill_ or add_ when something else wrote it; every program is
// read by this one plan, whichever form it is in. The IR has values, not
// memory, so the reader says what each later read of that memory sees:
//  - names of the very tensor the call modified (self, and the results of
//    earlier in-place calls on it) read the call's result: they are rebound to
//    it, whether the call is interpreted or not;
//  - any other name that may share its memory (a view of it, or what it is a
//    view of: the registry's mayAlias column; an op the registry does not know
//    may alias whatever it reads) would read memory the IR does not have: a
//    read of one after the call refuses the program, naming both (exact or
//    nothing).
// A call becomes its functional twin (the name without the trailing
// underscore, same overload, every argument it passes known to the twin, a
// shape rule: copy_ -> copy, zero_ -> zero, fill_ -> fill, whose results take
// self's type and never read its values) when nothing but its result can see
// the write: no other operand
// of the call may share self's memory (x.add_(x.t()) reads what it writes),
// and no tensor that may share it is a program input (the update would be the
// caller's to see). The twin's result type must be self's (x_f16.add_(y_f32)
// stores f16, add gives f32): the reader checks it when it builds the twin.
// A call that gets no twin is read as the in-place op itself, which the graph
// builder refuses (ir/builder.cpp: in-place and out= ops are not supported),
// so such a program is an error (exit 3), never read with the write lost. Like LibTorch's RemoveTensorMutation and Note [TorchScript
// in-place ops], but on names: a .pt2 program has no alias analysis of its own.

std::string functionalName(const std::string &op) {
  size_t dot = op.find('.', op.find("::") == std::string::npos ? 0 : op.find("::") + 2);
  std::string base = op.substr(0, dot), overload = dot == std::string::npos ? "" : op.substr(dot);
  if (base.size() < 2 || base.back() != '_' || base[base.size() - 2] == '_') return "";
  return base.substr(0, base.size() - 1) + overload;
}

namespace {

// Union-find over tensor names, each class with its members listed.
class Classes {
public:
  std::string find(const std::string &n) {
    auto it = parent_.find(n);
    if (it == parent_.end()) {
      members_[n] = {n};
      parent_.emplace(n, n);
      return n;
    }
    if (it->second == n) return n;
    std::string root = find(it->second);
    parent_[n] = root;
    return root;
  }
  void unite(const std::string &a, const std::string &b) {
    std::string ra = find(a), rb = find(b);
    if (ra == rb) return;
    if (members_[ra].size() < members_[rb].size()) std::swap(ra, rb);
    auto &into = members_[ra];
    auto &from = members_[rb];
    into.insert(into.end(), from.begin(), from.end());
    members_.erase(rb);
    parent_[rb] = ra;
  }
  const std::vector<std::string> &members(const std::string &n) { return members_[find(n)]; }

private:
  std::map<std::string, std::string> parent_;
  std::map<std::string, std::vector<std::string>> members_;
};

bool twinTakes(const std::string &twin, const CallSketch &c) {
  const OpInfo *info = lookupOp(twin);
  if (!info || !info->hasShapeRule() || info->schema->args.empty() || info->schema->args[0].name != "self" ||
      info->schema->mutatesInput() || info->schema->numReturns != 1 || info->schema->returnsList)
    return false;
  return std::all_of(c.argNames.begin(), c.argNames.end(),
                     [&](const std::string &a) { return info->schema->findArg(a) != nullptr; });
}

}  // namespace

std::vector<InPlaceStep> planInPlace(const std::vector<CallSketch> &calls, const std::set<std::string> &inputs,
                                     const std::set<std::string> &outputs) {
  const size_t never = calls.size();  // read by the program's return
  std::map<std::string, size_t> lastRead;
  for (size_t i = 0; i < calls.size(); ++i)
    for (const std::string &t : calls[i].tensors) lastRead[t] = i;
  for (const std::string &o : outputs) lastRead[o] = never;
  auto readAfter = [&](const std::string &n, size_t i) {
    auto it = lastRead.find(n);
    return it != lastRead.end() && it->second > i;
  };

  Classes shared;  // names that may share memory
  Classes same;    // names of one tensor (self and the in-place results on it)
  std::vector<InPlaceStep> plan(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallSketch &c = calls[i];
    std::string twin = functionalName(c.op);
    bool inPlace = !twin.empty() && !c.self.empty() && c.outputs.size() == 1 && !c.outputs[0].empty();
    if (!inPlace) {
      if (opProps(c.op).mayAlias)
        for (const std::string &out : c.outputs)
          for (const std::string &t : c.tensors)
            if (!out.empty()) shared.unite(out, t);
      continue;
    }
    InPlaceStep &step = plan[i];
    const std::string &x = c.self;
    std::vector<std::string> group = same.members(x);
    auto inGroup = [&](const std::string &n) { return std::find(group.begin(), group.end(), n) != group.end(); };
    bool seenByInput = false;
    for (const std::string &m : shared.members(x)) {
      seenByInput = seenByInput || inputs.count(m);
      if (!inGroup(m) && readAfter(m, i) && step.error.empty())
        step.error = "modifies '" + x + "' in place while '" + m +
                     "', which may share its memory, is read afterwards; torchtv reads programs by value and "
                     "cannot say what that read sees";
    }
    bool selfOnce = false, overlaps = false;
    const std::string root = shared.find(x);
    for (const std::string &t : c.tensors) {
      if (t == x && !selfOnce) selfOnce = true;
      else overlaps = overlaps || shared.find(t) == root;
    }
    if (!seenByInput && !overlaps && twinTakes(twin, c)) step.twin = twin;
    step.rebind = group;
    shared.unite(c.outputs[0], x);
    same.unite(c.outputs[0], x);
  }
  return plan;
}

}  // namespace torchtv
