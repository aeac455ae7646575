#include "src/verify/localize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "src/verify/cone.h"
#include "src/verify/counterexample_replay.h"
#include "src/verify/refute.h"
#include "src/verify/shrink.h"

namespace torchtv {
namespace {

using eval::EvalTensor;

// A value's content to `digits` significant digits (9 at Wide precision, fewer for LibTorch's
// values: Note [Counterexamples through LibTorch]), for "agrees with" (Note [Localized
// counterexamples]).
std::string fingerprint(const EvalTensor &t, int digits) {
  std::string key = t.type.str();
  char buf[40];
  for (long double v : t.values) {
    if (std::isnan(static_cast<double>(v))) {
      key += "|nan";
      continue;
    }
    std::snprintf(buf, sizeof buf, "|%.*Le", digits - 1, v);
    key += buf;
  }
  return key;
}

// Note [Shards agree]
// A distributed pair's production computes on shards (Note [A world of ranks composed into one
// function] in world.py): rank r's part of a value the reference computes whole, chunk r of N
// along one dim. Such a part agrees with the reference as much as the whole value would; without
// this, every rank-local value departs (no reference value has its shape) and the first of them,
// a transpose of a weight shard, would be reported. So for a composed production the
// fingerprints of every chunk of every reference value (along each dim, N = 2 to 8 equal parts)
// count as reference values: a rank's part of h agrees, its partial sum of an all-reduce does not
// and must re-converge through the reduce.
void addChunkFingerprints(const EvalTensor &t, int digits, std::unordered_set<std::string> &keys) {
  const Shape &shape = t.type.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!shape[d].isConcrete()) return;
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t size = shape[d].size();
    size_t inner = 1, outer = 1;
    for (size_t k = d + 1; k < shape.size(); ++k) inner *= static_cast<size_t>(shape[k].size());
    for (size_t k = 0; k < d; ++k) outer *= static_cast<size_t>(shape[k].size());
    for (int64_t parts = 2; parts <= 8 && parts <= size; ++parts) {
      if (size % parts) continue;
      EvalTensor chunk;
      chunk.type = t.type;
      chunk.type.shape[d] = Dim(size / parts);
      const size_t rows = static_cast<size_t>(size / parts);
      for (int64_t r = 0; r < parts; ++r) {
        chunk.values.clear();
        for (size_t o = 0; o < outer; ++o) {
          auto from = t.values.begin() + static_cast<std::ptrdiff_t>((o * size + r * rows) * inner);
          chunk.values.insert(chunk.values.end(), from, from + static_cast<std::ptrdiff_t>(rows * inner));
        }
        keys.insert(fingerprint(chunk, digits));
      }
    }
  }
}

// Index of the first element where a and b differ beyond `digits` significant digits, and how far.
std::optional<size_t> firstDiffering(const EvalTensor &a, const EvalTensor &b, long double *distance, int digits) {
  std::optional<size_t> first;
  long double total = 0;
  for (size_t k = 0; k < a.values.size() && k < b.values.size(); ++k) {
    long double x = roundSignificant(a.values[k], digits), y = roundSignificant(b.values[k], digits);
    if (x == y || (std::isnan(static_cast<double>(x)) && std::isnan(static_cast<double>(y)))) continue;
    if (!first) first = k;
    long double d = std::fabs(x - y);
    total += std::isfinite(static_cast<double>(d)) ? d : std::numeric_limits<long double>::max() / 4;
  }
  if (distance) *distance = total;
  return first;
}

// The values of `g` on `inputs` at Wide precision, by value (inputs included); only those in the
// cone of `output` when `cone` is set.
std::map<const Value *, EvalTensor> traceOf(const Graph &g, const std::vector<EvalTensor> &inputs, size_t output,
                                            bool cone) {
  std::map<const Value *, EvalTensor> trace;
  const std::vector<size_t> outputs = {output};
  eval::evaluateGraph(g, inputs, eval::Precision::Wide, &trace, cone ? &outputs : nullptr);
  for (size_t i = 0; i < g.inputs().size() && i < inputs.size(); ++i) trace.emplace(g.inputs()[i], inputs[i]);
  return trace;
}

// Nodes in the cone of `out` (topological order is the graph's order).
std::unordered_set<const Node *> coneOf(const Value *out) {
  std::unordered_set<const Node *> cone;
  forEachNodeInCone(out, [&](const Node &n) { cone.insert(&n); });
  return cone;
}

// A reference value for production node `n` (of type `type`) when no
// reference value has its type: one of the same dtype and rank that no
// production value agrees with, in the refuted output's cone if any is,
// computed by n's op if any is, else by any op;
// among those, the one whose position in the reference is nearest n's in
// production (relative positions: both graphs run forward, then backward).
const Node *otherShapeCounterpart(const Graph &ref, const Graph &prod, const std::map<const Value *, EvalTensor> &refTrace,
                                  const std::unordered_set<std::string> &prodKeys, const Node &n,
                                  const TensorType &type, const std::unordered_set<const Node *> &refCone, int digits) {
  size_t prodAt = 0;
  for (; prodAt < prod.nodes().size() && prod.nodes()[prodAt].get() != &n; ++prodAt) {
  }
  const double prodPos = static_cast<double>(prodAt) / static_cast<double>(std::max<size_t>(prod.nodes().size(), 1));
  for (int pass = 0; pass < 4; ++pass) {
    const bool inCone = pass < 2, sameOp = pass % 2 == 0;
    const Node *best = nullptr;
    double bestGap = 0;
    for (size_t k = 0; k < ref.nodes().size(); ++k) {
      const Node *m = ref.nodes()[k].get();
      if (m->outputs.empty() || (sameOp && m->op != n.op) || (inCone && !refCone.count(m))) continue;
      auto r = refTrace.find(m->outputs[0]);
      if (r == refTrace.end() || r->second.type.dtype != type.dtype || r->second.type.shape.size() != type.shape.size() ||
          prodKeys.count(fingerprint(r->second, digits)))
        continue;
      double gap = std::fabs(static_cast<double>(k) / static_cast<double>(ref.nodes().size()) - prodPos);
      if (!best || gap < bestGap) {
        best = m;
        bestGap = gap;
      }
    }
    if (best) return best;
  }
  return nullptr;
}

// A value's site: its producer's, else (a graph input) its name.
Site siteOfValue(const Value *v) {
  const Node *n = v->producer;
  return Site{v->name, n ? n->op : "input", n && n->loc.known() ? n->loc.str() : ""};
}

}  // namespace

Site siteOf(const Node &n) { return Site{n.outputs.at(0)->name, n.op, n.loc.known() ? n.loc.str() : ""}; }

GraphSites::GraphSites(const Graph &g) {
  std::map<std::pair<std::string, std::string>, std::vector<const Node *>> byLine;
  for (const auto &n : g.nodes())
    if (n->loc.known() && !n->outputs.empty()) byLine[{n->op, n->loc.str()}].push_back(n.get());
  for (const auto &[line, nodes] : byLine)
    for (size_t k = 0; k < nodes.size(); ++k)
      runs_[nodes[k]->outputs[0]->name] = {static_cast<int>(k + 1), static_cast<int>(nodes.size())};
}

void GraphSites::count(Site &s) const {
  auto it = runs_.find(s.value);
  if (it != runs_.end()) std::tie(s.run, s.runs) = it->second;
}

Site GraphSites::operator()(const Node &n) const {
  Site s = siteOf(n);
  count(s);
  return s;
}

IntermediateDifference localizeTypeDifference(const Value &refOut, const Value &prodOut, const Node *refFirst,
                                              const Node *prodFirst) {
  const Value *r = &refOut, *p = &prodOut;
  if (refFirst && prodFirst && refFirst->outputs.at(0)->type != prodFirst->outputs.at(0)->type)
    r = refFirst->outputs.at(0), p = prodFirst->outputs.at(0);
  IntermediateDifference d;
  d.reference = siteOfValue(r);
  d.production = siteOfValue(p);
  d.typeDifference = std::string(r->type.dtype != p->type.dtype ? "dtype" : "shape") + " differs: production " +
                     p->type.str() + ", reference " + r->type.str();
  d.hasValues = false;
  return d;
}

Counterexample typeDifferenceCounterexample(const Graph &ref, const Graph &prod, size_t output, const std::string &note,
                                            const Node *refFirst, const Node *prodFirst) {
  Counterexample c;
  for (const Value *in : ref.inputs()) {
    std::optional<int64_t> n = numel(in->type.shape);
    c.inputs.push_back(TensorValues{in->name, in->type.str(), std::vector<double>(static_cast<size_t>(n.value_or(0)), 0.0)});
  }
  c.output = ref.outputNames().at(output);
  c.note = note;
  c.shrunk = "shrunk: every input all zeros (the types differ whatever the input)";
  c.firstDifference = localizeTypeDifference(*ref.outputs().at(output), *prod.outputs().at(output), refFirst, prodFirst);
  return c;
}

namespace {

// Both graphs' values on one input, and to how many significant digits they are compared.
struct Traces {
  std::map<const Value *, EvalTensor> ref, prod;
  int digits = 9;
};

// Graphs within the evaluation budget are traced whole (a counterpart may lie outside the
// refuted output's cone, e.g. when the reference returns an input unchanged); larger ones in
// that cone only. Nullopt when they cannot be evaluated.
std::optional<Traces> traces(const Graph &ref, const Graph &prod, const std::vector<EvalTensor> &inputs, size_t output) {
  try {
    const bool cone = !withinEvalBudget(ref, prod);
    return Traces{traceOf(ref, inputs, output, cone), traceOf(prod, inputs, output, cone)};
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

// Where production departs on one input: the production node, its reference counterpart, the
// difference (values of that input).
struct Departure {
  const Value *production = nullptr, *reference = nullptr;
  IntermediateDifference difference;
};

// Where no production value departs, every one agrees with some reference value: production
// returns one of the reference's values, or computes its output from them in one step that the
// reference takes too, where the reference goes on (drops a guard or a final step). Where the
// first departing value has nothing to be held against (a dtype or rank the reference never
// computes: an int8 a + 1, a column index selected), no intermediate pair says more. The refuted
// output itself is then the localization: both outputs, where they differ.
std::optional<Departure> atTheOutputs(const Graph &ref, const Graph &prod, const Traces &t, size_t output) {
  const Value *po = prod.outputs().at(output), *ro = ref.outputs().at(output);
  auto p = t.prod.find(po), r = t.ref.find(ro);
  if (p == t.prod.end() || r == t.ref.end() || p->second.type != r->second.type) return std::nullopt;
  std::optional<size_t> k = firstDiffering(r->second, p->second, nullptr, t.digits);
  if (!k) return std::nullopt;
  IntermediateDifference d;
  d.reference = siteOfValue(ro);
  d.production = siteOfValue(po);
  d.index = eval::unflatten(p->second.type.shape, *k);
  d.referenceValue = static_cast<double>(r->second.values[*k]);
  d.productionValue = static_cast<double>(p->second.values[*k]);
  return Departure{po, ro, d};
}

// Note [Departure with a counterpart]
// The strongest evidence of where production goes wrong is a node that takes
// the same values as a reference node with the same op (every input agrees,
// input by input, in any order) and computes another value: an attention
// scale of 1/dk where the reference's is 1/sqrt(dk), an eps, a reduction
// over another dim. The first such production node in topological order
// (the order its code ran: forward before backward, layer by layer), in the
// refuted output's cone and not re-converging, is where production departs,
// ahead of the walk below. A mask and its complement (production's `u > 0`
// against autograd's `u <= 0`) are another op: neither counterpart nor
// departure by this rule. A node whose inputs are all constant (zeros after
// shrinking) is passed over: equal zeros say nothing about which reference
// node it stands for. Before this rule the walk alone named, in a 4-layer
// train step whose attention backward scaled by 1/dk, the last layer's
// `gs.transpose` (zeros on the shrunk input), not the planted line (issue 36).
std::optional<Departure> departureWithCounterpart(const Graph &ref, const Graph &prod, const Traces &t,
                                                  const std::unordered_set<const Node *> &cone,
                                                  const std::unordered_set<const Node *> &skip,
                                                  const std::function<bool(const Value *)> &varies) {
  std::map<const Value *, std::string> keys;
  auto key = [&](const std::map<const Value *, EvalTensor> &trace, const Value *v) -> const std::string * {
    auto known = keys.find(v);
    if (known != keys.end()) return &known->second;
    auto it = trace.find(v);
    if (it == trace.end()) return nullptr;
    return &keys.emplace(v, fingerprint(it->second, t.digits)).first->second;
  };
  // A node's op and its inputs' contents (sorted: commutative operands may come in either order).
  auto signature = [&](const std::map<const Value *, EvalTensor> &trace, const Node &n) -> std::optional<std::string> {
    std::vector<std::string> ins;
    for (const Value *in : n.inputs) {
      if (!in) continue;
      const std::string *k = key(trace, in);
      if (!k) return std::nullopt;
      ins.push_back(*k);
    }
    std::sort(ins.begin(), ins.end());
    std::string sig = n.op;
    for (const std::string &k : ins) sig += "#" + k;
    return sig;
  };
  std::unordered_map<std::string, const Node *> refBySignature;
  for (const auto &m : ref.nodes()) {
    if (m->outputs.empty() || !t.ref.count(m->outputs[0])) continue;
    if (std::optional<std::string> sig = signature(t.ref, *m)) refBySignature.emplace(*sig, m.get());
  }
  for (const auto &n : prod.nodes()) {
    if (!cone.count(n.get()) || n->outputs.empty() || skip.count(n.get()) || !t.prod.count(n->outputs[0])) continue;
    bool someVaries = false;
    for (const Value *in : n->inputs) someVaries = someVaries || (in && t.prod.count(in) && varies(in));
    if (!someVaries) continue;
    std::optional<std::string> sig = signature(t.prod, *n);
    auto m = sig ? refBySignature.find(*sig) : refBySignature.end();
    if (m == refBySignature.end()) continue;
    const EvalTensor &r = t.ref.at(m->second->outputs[0]), &p = t.prod.at(n->outputs[0]);
    if (r.type != p.type) continue;
    std::optional<size_t> k = firstDiffering(r, p, nullptr, t.digits);
    if (!k) continue;
    IntermediateDifference d;
    d.reference = siteOf(*m->second);
    d.production = siteOf(*n);
    d.index = eval::unflatten(p.type.shape, *k);
    d.referenceValue = static_cast<double>(r.values[*k]);
    d.productionValue = static_cast<double>(p.values[*k]);
    return Departure{n->outputs[0], m->second->outputs[0], d};
  }
  return std::nullopt;
}

std::optional<Departure> departure(const Graph &ref, const Graph &prod, const Traces &t, size_t output) {
  const std::map<const Value *, EvalTensor> &refTrace = t.ref, &prodTrace = t.prod;
  std::unordered_set<std::string> refKeys, prodKeys;
  const int digits = t.digits;
  for (const auto &[v, t] : refTrace) refKeys.insert(fingerprint(t, digits));
  for (const auto &[v, t] : prodTrace) prodKeys.insert(fingerprint(t, digits));
  std::unordered_set<const Node *> cone = coneOf(prod.outputs().at(output));
  // Which nodes of the cone agree with a reference value, and which feed (within the cone) a
  // node that agrees again: another decomposition's own intermediate re-converges, a departure
  // does not (Note [Localized counterexamples]). A constant tensor (zeros after
  // shrinking, a clamp) agreeing downstream is no evidence of re-converging.
  std::unordered_set<const Node *> agrees, reconverges;
  for (const auto &n : prod.nodes()) {
    if (!cone.count(n.get()) || n->outputs.empty()) continue;
    auto it = prodTrace.find(n->outputs[0]);
    if (it != prodTrace.end() && refKeys.count(fingerprint(it->second, digits))) agrees.insert(n.get());
  }
  // A distributed pair's shards (`shard_*`, made by the composition, Note [A world of ranks
  // composed into one function] in world.py, with no user line) carry the shared inputs
  // unchanged: production has departed nowhere yet. A slice the user's code takes has a line and
  // stays a candidate.
  std::unordered_set<const Value *> inputParts(prod.inputs().begin(), prod.inputs().end());
  for (const auto &n : prod.nodes()) {
    const bool reindexes = n->op == "aten::slice.Tensor" || n->op == "aten::clone" || n->op == "aten::narrow";
    if (!reindexes || n->loc.known() || n->outputs.size() != 1 || n->outputs[0]->name.rfind("shard_", 0) != 0 ||
        n->inputs.empty() || !inputParts.count(n->inputs[0]))
      continue;
    inputParts.insert(n->outputs[0]);
    agrees.insert(n.get());
  }
  // A composed production's rank-local parts agree as the whole would (Note [Shards agree]).
  if (inputParts.size() > prod.inputs().size()) {
    for (const auto &[v, t] : refTrace) addChunkFingerprints(t, digits, refKeys);
    for (const auto &n : prod.nodes()) {
      if (!cone.count(n.get()) || n->outputs.empty() || agrees.count(n.get())) continue;
      auto it = prodTrace.find(n->outputs[0]);
      if (it != prodTrace.end() && refKeys.count(fingerprint(it->second, digits))) agrees.insert(n.get());
    }
  }
  auto variesValue = [&](const Value *v) {
    const auto &values = prodTrace.at(v).values;
    for (long double x : values)
      if (x != values.front()) return true;
    return values.size() == 1 && values.front() != 0;
  };
  auto varies = [&](const Node *n) { return variesValue(n->outputs[0]); };
  for (auto n = prod.nodes().rbegin(); n != prod.nodes().rend(); ++n) {
    const Node *node = n->get();
    if (!cone.count(node)) continue;
    // Only through values that vary: a constant (zeros after shrinking) carries nothing from
    // upstream, and a softmax of zero scores agreeing beyond it is no evidence either.
    bool again = reconverges.count(node) || agrees.count(node);
    if (!again || !prodTrace.count(node->outputs[0]) || !varies(node)) continue;
    for (const Value *in : node->inputs)
      if (in && in->producer && cone.count(in->producer)) reconverges.insert(in->producer);
  }
  std::unordered_set<const Node *> settled = agrees;
  settled.insert(reconverges.begin(), reconverges.end());
  if (std::optional<Departure> d = departureWithCounterpart(ref, prod, t, cone, settled, variesValue)) return d;
  for (const auto &n : prod.nodes()) {
    if (!cone.count(n.get()) || n->outputs.empty()) continue;
    auto it = prodTrace.find(n->outputs[0]);
    if (it == prodTrace.end() || agrees.count(n.get()) || reconverges.count(n.get())) continue;
    // Production departs here; its counterpart: the closest reference value of its type and
    // op that no production value agrees with, else the closest of its type and op, else the
    // same of any op.
    const Node *best = nullptr;
    long double bestDistance = 0;
    size_t bestIndex = 0;
    for (int pass = 0; pass < 4 && !best; ++pass) {
      const bool sameOp = pass < 2, onlyUnmatched = pass % 2 == 0;
      for (const auto &m : ref.nodes()) {
        if (m->outputs.empty() || (sameOp && m->op != n->op)) continue;
        auto r = refTrace.find(m->outputs[0]);
        if (r == refTrace.end() || r->second.type != it->second.type) continue;
        if (onlyUnmatched && prodKeys.count(fingerprint(r->second, digits))) continue;
        long double distance = 0;
        std::optional<size_t> k = firstDiffering(r->second, it->second, &distance, digits);
        if (k && (!best || distance < bestDistance)) {
          best = m.get();
          bestDistance = distance;
          bestIndex = *k;
        }
      }
    }
    IntermediateDifference d;
    if (!best) {
      // Nothing of its type: production computes a value of another shape
      // (a reduction over the wrong dim). Its counterpart is a reference value
      // of the same dtype and rank computed by the same op, else by any op
      // (Note [Localized counterexamples]); the report says the shapes differ.
      best = otherShapeCounterpart(ref, prod, refTrace, prodKeys, *n, it->second.type,
                                   coneOf(ref.outputs().at(output)), digits);
      // Nothing to hold it against (a value of a dtype or rank the reference never computes).
      if (!best) return atTheOutputs(ref, prod, t, output);
      const EvalTensor &r = refTrace.at(best->outputs[0]);
      d.typeDifference = "shape differs: production " + it->second.type.str() + ", reference " + r.type.str();
      bestIndex = 0;
      if (r.values.empty() || it->second.values.empty()) return atTheOutputs(ref, prod, t, output);
    }
    d.reference = siteOf(*best);
    d.production = siteOf(*n);
    d.index = eval::unflatten(it->second.type.shape, bestIndex);
    d.referenceValue = static_cast<double>(refTrace.at(best->outputs[0]).values[bestIndex]);
    d.productionValue = static_cast<double>(it->second.values[bestIndex]);
    return Departure{n->outputs[0], best->outputs[0], d};
  }
  return atTheOutputs(ref, prod, t, output);
}

// Localization on the values `traceOn` gives for an input (the evaluator's, or LibTorch's).
using TraceOn = std::function<std::optional<Traces>(const std::vector<EvalTensor> &)>;

std::optional<IntermediateDifference> departureOn(const Graph &ref, const Graph &prod, const std::vector<EvalTensor> &inputs,
                                                  size_t output, const std::vector<EvalTensor> *found,
                                                  const TraceOn &traceOn) {
  std::optional<Traces> shown = traceOn(inputs);
  if (!shown) return std::nullopt;
  std::optional<Departure> d = departure(ref, prod, *shown, output);
  // Where the shrunk input departs with a value of all zeros (or nowhere), where the input as
  // found departs is reported instead, with the shrunk input's values there when they differ
  // (Note [Localized counterexamples]); only then is the input as found evaluated.
  auto zeros = [&](const Value *n) {
    const auto &values = shown->prod.at(n).values;
    return std::all_of(values.begin(), values.end(), [](long double v) { return v == 0; });
  };
  if (!found || (d && !zeros(d->production))) return d ? std::optional(d->difference) : std::nullopt;
  std::optional<Departure> earlier;
  if (std::optional<Traces> t = traceOn(*found)) earlier = departure(ref, prod, *t, output);
  if (earlier && (!d || d->production != earlier->production)) {
    const EvalTensor &p = shown->prod.at(earlier->production);
    auto r = shown->ref.find(earlier->reference);
    long double distance = 0;
    std::optional<size_t> k;
    if (r != shown->ref.end() && r->second.type == p.type) k = firstDiffering(r->second, p, &distance, shown->digits);
    if (k) {
      IntermediateDifference moved = earlier->difference;
      moved.index = eval::unflatten(p.type.shape, *k);
      moved.referenceValue = static_cast<double>(r->second.values[*k]);
      moved.productionValue = static_cast<double>(p.values[*k]);
      return moved;
    }
  }
  return d ? std::optional(d->difference) : std::nullopt;
}

std::optional<IntermediateDifference> localizeWith(const Graph &ref, const Graph &prod, const std::vector<EvalTensor> &inputs,
                                                   size_t output, const std::vector<EvalTensor> *found,
                                                   const TraceOn &traceOn) {
  std::optional<IntermediateDifference> d = departureOn(ref, prod, inputs, output, found, traceOn);
  if (d) {
    GraphSites(ref).count(d->reference);  // Note [Runs of a line]
    GraphSites(prod).count(d->production);
  }
  return d;
}

// Both original graphs' values replayed through LibTorch (Note [Counterexamples through LibTorch]).
std::optional<Traces> replayTraces(const Graph &ref, const Graph &prod, const std::vector<EvalTensor> &inputs,
                                   size_t output) {
  if (!withinEvalBudget(ref, prod)) return std::nullopt;  // every value travels back from the child
  ReplayedValues v = replayValues(ref, prod, inputs);
  if (!v.why.empty()) return std::nullopt;
  Traces t;
  t.digits = dtypeBits(prod.outputs().at(output)->type.dtype) == 16 ? 3 : kReplayDigits;
  for (auto [g, from, into] : {std::tuple{&ref, &v.reference, &t.ref}, {&prod, &v.production, &t.prod}}) {
    auto take = [&](const Value *val) {
      auto it = from->find(val->name);
      if (it != from->end()) into->emplace(val, it->second);
    };
    for (const Value *in : g->inputs()) take(in);
    for (const auto &n : g->nodes())
      for (const Value *out : n->outputs) take(out);
  }
  return t;
}

}  // namespace

std::optional<IntermediateDifference> localizeDifference(const Graph &ref, const Graph &prod,
                                                         const std::vector<EvalTensor> &inputs, size_t output,
                                                         const std::vector<EvalTensor> *found) {
  return localizeWith(ref, prod, inputs, output, found,
                      [&](const std::vector<EvalTensor> &in) { return traces(ref, prod, in, output); });
}

std::optional<IntermediateDifference> localizeDifferenceByReplay(const Graph &ref, const Graph &prod,
                                                                 const std::vector<EvalTensor> &inputs, size_t output,
                                                                 const std::vector<EvalTensor> *found) {
  return localizeWith(ref, prod, inputs, output, found,
                      [&](const std::vector<EvalTensor> &in) { return replayTraces(ref, prod, in, output); });
}

}  // namespace torchtv
