#include "src/verify/input_domains.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include "ir/op_registry.h"
#include "ir/diagnostic.h"
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

// Note [Reference kernel domains]: the attribute naming the point outside the
// indexed dim that an ATen kernel also accepts, for the kernels that have one.
const std::map<std::string_view, std::string_view> kAlsoAccepted = {
    {"aten::nll_loss_forward", "ignore_index"},   {"aten::nll_loss_backward", "ignore_index"},
    {"aten::nll_loss2d_forward", "ignore_index"}, {"aten::nll_loss2d_backward", "ignore_index"},
    {"aten::nll_loss", "ignore_index"},           {"aten::nll_loss2d", "ignore_index"},
    {"aten::nll_loss_nd", "ignore_index"},        {"aten::cross_entropy_loss", "ignore_index"},
};

// Kernels that raise nowhere (they drop an index outside the dim) unless the bool attribute named
// here is true, where they read out of bounds (Note [Reference kernel domains]).
const std::map<std::string_view, std::string_view> kDefinedEverywhereUnless = {
    {"aten::embedding_dense_backward", "scale_grad_by_freq"},
};

// The range the ATen kernel of `node` accepts for its index operand, when it
// raises (or is undefined) outside it (Note [Reference kernel domains]).
std::optional<sem::IndexRange> kernelRange(const Node &node) {
  OpProps props = opProps(node.op);
  if (!props.indexes) return std::nullopt;
  auto size = indexedDimSize(node, *props.indexes);
  if (!size || *size <= 0) return std::nullopt;
  sem::IndexRange range{*size, {}};
  if (auto unless = kDefinedEverywhereUnless.find(node.op); unless != kDefinedEverywhereUnless.end()) {
    auto flag = node.attrs.find(std::string(unless->second));
    bool undefinedOutside = flag == node.attrs.end() || !flag->second.isBool() || flag->second.asBool();
    return undefinedOutside ? std::optional<sem::IndexRange>(range) : std::nullopt;
  }
  auto also = kAlsoAccepted.find(node.op);
  if (also == kAlsoAccepted.end()) return range;
  auto point = node.attrs.find(std::string(also->second));
  if (point != node.attrs.end() && point->second.isInt() && !range.contains(point->second.asInt()))
    range.alsoDefined.push_back(point->second.asInt());
  return range;
}

// The values both ranges hold.
sem::IndexRange intersect(const sem::IndexRange &a, const sem::IndexRange &b) {
  sem::IndexRange r{std::min(a.bound, b.bound), {}};
  std::set<int64_t> points(a.alsoDefined.begin(), a.alsoDefined.end());
  points.insert(b.alsoDefined.begin(), b.alsoDefined.end());
  for (int64_t v = r.bound; v < std::max(a.bound, b.bound); ++v) points.insert(v);
  for (int64_t p : points)
    if (!r.contains(p) && a.contains(p) && b.contains(p)) r.alsoDefined.push_back(p);
  return r;
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
        d.alsoDrawn.clear();
        if (auto range = kernelRange(node)) d.alsoDrawn = range->alsoDefined;
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

std::vector<InputDomain> inputDomains(const Graph &g, const ReferenceDomains *referenceDomains) {
  Uses uses = usesOf(g);
  std::vector<InputDomain> domains;
  for (const Value *input : g.inputs()) {
    InputDomain d = domainOf(input, uses, true);
    if (auto it = referenceDomains ? referenceDomains->find(input) : ReferenceDomains::const_iterator{};
        referenceDomains && it != referenceDomains->end()) {
      d.indexBound = it->second.range.bound;
      d.alsoDrawn = it->second.range.alsoDefined;
    }
    domains.push_back(std::move(d));
  }
  return domains;
}

namespace {

// Whether every value of [0, bound) fits an integer dtype (the conversions on
// the way from an index input keep its value then).
bool holdsIndices(DType d, const sem::IndexRange &range) {
  if (!isIntegral(d) || d == DType::U64) return false;
  int bits = dtypeBits(d) - (d == DType::U8 ? 0 : 1);
  if (bits >= 63) return true;
  int64_t low = d == DType::U8 ? 0 : -(int64_t(1) << bits), high = (int64_t(1) << bits) - 1;
  for (int64_t p : range.alsoDefined)
    if (p < low || p > high) return false;
  return range.bound - 1 <= high;
}

// The value whose elements `v` holds, moved but unchanged, that the
// reference indexes with (`bounded`, by value number: a graph input or a
// computed value, Note [Index inputs in range]), with every value on the way
// able to hold its indices; null when none.
const Value *indexSource(const Value *v, const ValueNumbering &vn, const IndexDomains &bounded) {
  for (const Value *at = v;; at = at->producer->inputs[0]) {
    auto it = vn.has(at) ? bounded.find(vn.number(at)) : bounded.end();
    if (it != bounded.end()) {
      const sem::IndexRange &bound = it->second.range;
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
IndexDomains indexDomainsByNumber(const Graph &ref, const Graph &prod, const ValueNumbering &vn,
                                  const ReferenceDomains &referenceDomains) {
  // The reference's values that it indexes with, as its kernels gave them
  // domains before normalization (Note [Reference kernel domains]): its inputs
  // and, through an op that does not only move elements (a gather of a buffer
  // of ids), computed integer values (Note [Computed indices in range]); those
  // normalization kept.
  IndexDomains bounded;
  auto bound = [&](const Value *v) {
    auto it = referenceDomains.find(v);
    if (it != referenceDomains.end() && vn.has(v)) bounded.emplace(vn.number(v), it->second);
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
      if (!fresh && a.range.bound < it->second.range.bound) it->second = a;
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

namespace torchtv {

// Note [Reference kernel domains]
ReferenceDomains referenceKernelDomains(const Graph &refAsCaptured) {
  Uses uses = usesOf(refAsCaptured);
  ReferenceDomains out;
  auto consider = [&](const Value *v) {
    if (!isIntegral(v->type.dtype) || (v->producer && movesElements(*v->producer))) return;
    std::optional<sem::IndexRange> range;
    std::vector<std::string> ops;
    forEachUse(v, uses, [&](const Node &node, size_t pos) {
      OpProps props = opProps(node.op);
      const std::string *arg = argName(node, pos);
      if (!arg || !props.indexes || *arg != props.indexes->index) return;
      std::optional<sem::IndexRange> r = kernelRange(node);
      if (!r) return;
      range = range ? intersect(*range, *r) : *r;
      if (std::find(ops.begin(), ops.end(), node.op) == ops.end()) ops.push_back(node.op);
    });
    if (!range) return;
    std::string by = ops.front();
    for (size_t i = 1; i < ops.size(); ++i) by += (i + 1 == ops.size() ? " and " : ", ") + ops[i];
    out.emplace(v, sem::Assumption::indexInRange(v->name, *range, by));
  };
  for (const Value *v : refAsCaptured.inputs()) consider(v);
  for (const auto &n : refAsCaptured.nodes())
    for (const Value *v : n->outputs) consider(v);
  return out;
}

// Note [Declared input domains]
DeclaredDomain parseDeclaredDomain(const std::string &text) {
  static const std::regex form(R"(\s*%?([A-Za-z_][A-Za-z0-9_.]*)\s+in\s+\[\s*0\s*,\s*(\d+)\s*\)((\s+or\s+-?\d+)*)\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, form))
    throw InputError("cannot read the declared domain '" + text + "': write 'NAME in [0, N)', optionally followed by 'or K' for points outside it (e.g. 'target in [0, 5) or -100')");
  DeclaredDomain d;
  d.input = m[1];
  d.range.bound = std::stoll(m[2]);
  if (d.range.bound <= 0) throw InputError("the declared domain '" + text + "' is empty");
  static const std::regex point(R"(-?\d+)");
  std::string rest = m[3];
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), point); it != std::sregex_iterator(); ++it) {
    int64_t p = std::stoll(it->str());
    if (!d.range.contains(p)) d.range.alsoDefined.push_back(p);
  }
  std::sort(d.range.alsoDefined.begin(), d.range.alsoDefined.end());
  return d;
}

void applyDeclaredDomains(const Graph &ref, const std::vector<DeclaredDomain> &declared, ReferenceDomains &domains) {
  for (const DeclaredDomain &d : declared) {
    const Value *input = nullptr;
    for (const Value *v : ref.inputs())
      if (v->name == d.input) input = v;
    if (!input) {
      std::string names;
      for (const Value *v : ref.inputs()) names += (names.empty() ? "%" : ", %") + v->name;
      throw InputError("a domain is declared for '" + d.input + "', which is not an input of the graphs (inputs: " + names + ")");
    }
    if (!isIntegral(input->type.dtype))
      throw InputError("a domain is declared for %" + d.input + ", which is not an integer input (" + input->type.str() + ")");
    domains[input] = sem::Assumption::declaredRange(d.input, d.range);
  }
}

}  // namespace torchtv
