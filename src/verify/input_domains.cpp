#include "src/verify/input_domains.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "ir/op_registry.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

// Conversions that keep an integer's value (Note [Input domains]).
bool convertsDType(std::string_view op) {
  return op == "aten::_to_copy" || op == "aten::to.dtype" || op == "aten::to.dtype_layout" ||
         op == "prims::convert_element_type";
}

// The size of the dim that `node`'s index operand points into, when known.
std::optional<int64_t> indexedDimSize(const Node &node, const IndexOperand &ix) {
  if (ix.into.empty()) {
    auto it = node.attrs.find(ix.boundAttr);
    if (it == node.attrs.end() || !it->second.isInt() || it->second.asInt() <= 0) return std::nullopt;
    return it->second.asInt();
  }
  std::vector<const ArgSpec *> args = node.schema->operandArgs(node.inputs.size());
  const Value *into = nullptr;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i]->name == ix.into) into = node.inputs[i];
  if (!into) return std::nullopt;
  auto rank = static_cast<int64_t>(into->type.shape.size());
  int64_t dim = ix.dim;
  if (ix.classDim) dim = rank >= 2 ? 1 : 0;
  if (!ix.dimAttr.empty()) {
    auto it = node.attrs.find(ix.dimAttr);
    if (it == node.attrs.end() || !it->second.isInt()) return std::nullopt;
    dim = it->second.asInt();
  }
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || !into->type.shape[dim].isConcrete()) return std::nullopt;
  return into->type.shape[dim].size();
}

using Uses = std::map<const Value *, std::vector<std::pair<const Node *, size_t>>>;

// Whether `node` passes operand 0's elements on unchanged (Note [Input domains]).
bool movesElements(const Node &node) {
  return opProps(node.op).elements != ElementMap::None || convertsDType(node.op);
}

// Whether `node`'s result holds operand 0's elements read at data-dependent
// positions (a gather of a buffer of ids: Note [Computed indices in range]).
bool gathersElements(const Node &node) {
  return node.op == "aten::gather" || node.op == "aten::index_select" || node.op == "aten::embedding";
}

// Calls use(node, operand position) on each use of `v` and of the values that
// only move its elements (and, `throughGathers`, that gather them).
template <class Use>
void forEachUse(const Value *v, const Uses &uses, const Use &use, bool throughGathers = false) {
  std::vector<const Value *> todo = {v};
  while (!todo.empty()) {
    auto it = uses.find(todo.back());
    todo.pop_back();
    if (it == uses.end()) continue;
    for (auto [node, pos] : it->second) {
      if (pos == 0 && (movesElements(*node) || (throughGathers && gathersElements(*node))))
        todo.insert(todo.end(), node->outputs.begin(), node->outputs.end());
      else use(*node, pos);
    }
  }
}

// A graph input, or its elements moved.
bool straightFromInput(const Value *v) {
  while (v->producer) {
    if (!movesElements(*v->producer) || v->producer->inputs.empty() || !v->producer->inputs[0]) return false;
    v = v->producer->inputs[0];
  }
  return true;
}

const std::string *argName(const Node &node, size_t pos) {
  if (!node.schema) return nullptr;
  std::vector<const ArgSpec *> args = node.schema->operandArgs(node.inputs.size());
  return pos < args.size() ? &args[pos]->name : nullptr;
}

Uses usesOf(const Graph &g) {
  Uses uses;
  for (const auto &n : g.nodes())
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (n->inputs[i]) uses[n->inputs[i]].emplace_back(n.get(), i);
  return uses;
}

// The domain of value `v` of a graph, from its uses (Note [Input domains]);
// `throughGathers`: also from the uses of what gathers its elements (where
// random refutation draws from, never what the prover assumes: Note [Computed
// indices in range]).
InputDomain domainOf(const Value *v, const Uses &uses, bool throughGathers) {
  InputDomain d;
  d.inputName = v->name;
  bool floating = isFloating(v->type.dtype);
  forEachUse(v, uses, [&](const Node &node, size_t pos) {
    OpProps props = opProps(node.op);
    const std::string *arg = argName(node, pos);
    if (!arg) return;
    if (props.indexes && *arg == props.indexes->index)
      if (auto size = indexedDimSize(node, *props.indexes); size && *size > 0 && (!d.indexBound || *size < *d.indexBound)) {
        d.indexBound = *size;
        d.indexedBy = node.op;
        d.ignoredIndex.reset();
        auto ignore = node.attrs.find("ignore_index");
        if (ignore != node.attrs.end() && ignore->second.isInt() &&
            (ignore->second.asInt() < 0 || ignore->second.asInt() >= *size))
          d.ignoredIndex = ignore->second.asInt();
      }
    if (!props.positiveArg.empty() && *arg == props.positiveArg) d.positive = true;
    if (!floating) return;
    if (props.masks && !props.masks->summand && *arg == props.masks->arg) d.additiveMask = true;
    // Added to something computed (the scores), and the sum goes into a softmax.
    if (node.op == "aten::add.Tensor" && pos < 2 && node.inputs.size() >= 2 && node.inputs[1 - pos] &&
        !straightFromInput(node.inputs[1 - pos]))
      forEachUse(node.outputs.at(0), uses, [&](const Node &sink, size_t at) {
        OpProps sinkProps = opProps(sink.op);
        const std::string *sinkArg = argName(sink, at);
        if (sinkArg && sinkProps.masks && sinkProps.masks->summand && *sinkArg == sinkProps.masks->arg)
          d.additiveMask = true;
      });
  }, throughGathers);
  return d;
}

}  // namespace

std::vector<InputDomain> inputDomains(const Graph &g) {
  Uses uses = usesOf(g);
  std::vector<InputDomain> domains;
  for (const Value *input : g.inputs()) domains.push_back(domainOf(input, uses, true));
  return domains;
}

namespace {

// Whether every value of [0, bound) fits an integer dtype (the conversions on
// the way from an index input keep its value then).
bool holdsIndices(DType d, int64_t bound) {
  if (!isIntegral(d) || d == DType::U64) return false;
  int bits = dtypeBits(d) - (d == DType::U8 ? 0 : 1);
  return bits >= 63 || bound - 1 <= (int64_t(1) << bits) - 1;
}

// The value whose elements `v` holds, moved but unchanged, that the
// reference indexes with (`bounded`, by value number: a graph input or a
// computed value, Note [Index inputs in range]), with every value on the way
// able to hold its indices; null when none.
const Value *indexSource(const Value *v, const ValueNumbering &vn, const IndexDomains &bounded) {
  for (const Value *at = v;; at = at->producer->inputs[0]) {
    auto it = vn.has(at) ? bounded.find(vn.number(at)) : bounded.end();
    if (it != bounded.end()) {
      int64_t bound = it->second.bound;
      for (const Value *w = v; w != at; w = w->producer->inputs[0])
        if (!holdsIndices(w->type.dtype, bound)) return nullptr;
      return holdsIndices(at->type.dtype, bound) ? at : nullptr;
    }
    if (!at->producer || !movesElements(*at->producer) || at->producer->inputs.empty() || !at->producer->inputs[0])
      return nullptr;
  }
}

}  // namespace

// Note [Index inputs in range]
IndexDomains indexDomainsByNumber(const Graph &ref, const Graph &prod, const ValueNumbering &vn) {
  // The reference's values that it indexes with: its inputs and, through an op
  // that does not only move elements (a gather of a buffer of ids), computed
  // integer values (Note [Computed indices in range]).
  Uses uses = usesOf(ref);
  IndexDomains bounded;
  auto bound = [&](const Value *v) {
    if (!vn.has(v) || (v->producer && (!isIntegral(v->type.dtype) || movesElements(*v->producer)))) return;
    InputDomain d = domainOf(v, uses, false);
    if (d.indexBound)
      bounded.emplace(vn.number(v), IndexAssumption{*d.indexBound, indexAssumption(d.inputName, *d.indexBound, d.indexedBy, d.ignoredIndex)});
  };
  for (const Value *v : ref.inputs()) bound(v);
  for (const auto &n : ref.nodes())
    for (const Value *v : n->outputs) bound(v);
  IndexDomains out;
  for (const Graph *g : {&ref, &prod}) {
    auto consider = [&](const Value *v) {
      if (!vn.has(v)) return;
      const Value *source = indexSource(v, vn, bounded);
      if (!source) return;
      const IndexAssumption &a = bounded.at(vn.number(source));
      auto [it, fresh] = out.emplace(vn.number(v), a);
      if (!fresh && a.bound < it->second.bound) it->second = a;
    };
    for (const Value *v : g->inputs()) consider(v);
    for (const auto &n : g->nodes())
      for (const Value *v : n->outputs) consider(v);
  }
  return out;
}

bool anyDomain(const std::vector<InputDomain> &domains) {
  return std::any_of(domains.begin(), domains.end(),
                     [](const InputDomain &d) { return d.indexBound || d.positive; });
}

bool anyMask(const Graph &g, const std::vector<InputDomain> &domains) {
  for (size_t i = 0; i < g.inputs().size() && i < domains.size(); ++i)
    if (g.inputs()[i]->type.dtype == DType::Bool || domains[i].additiveMask) return true;
  return false;
}

}  // namespace torchtv
