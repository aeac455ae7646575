#include "src/report/diff_view.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "src/match/divergence.h"

namespace torchtv {

namespace {

// Number -> the first value of `g` that has it (inputs first).
std::map<int, const Value *> firstByNumber(const Graph &g, const std::map<std::string, int> &numbers) {
  std::map<int, const Value *> out;
  auto add = [&](const Value *v) {
    auto it = numbers.find(v->name);
    if (it != numbers.end()) out.emplace(it->second, v);
  };
  for (const Value *v : g.inputs()) add(v);
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) add(v);
  return out;
}

SideView buildSide(const Graph &g, const std::map<std::string, int> &numbers,
                   const std::map<int, const Value *> &other, const std::vector<OutputResult> &outputs,
                   bool isReference) {
  SideView side;
  side.graph = &g;
  auto partnerOf = [&](const Value *v) -> const Value * {
    auto it = numbers.find(v->name);
    if (it == numbers.end()) return nullptr;
    auto o = other.find(it->second);
    return o == other.end() ? nullptr : o->second;
  };
  for (const Value *v : g.inputs()) {
    side.indexOf[v] = static_cast<int>(side.nodes.size());
    ViewNode vn;
    vn.value = v;
    vn.partner = partnerOf(v);
    vn.status = vn.partner ? NodeStatus::Matched : NodeStatus::Residual;
    side.nodes.push_back(vn);
  }
  std::unordered_set<const Node *> live = liveNodes(g);
  std::set<std::string> divergences;
  for (const OutputResult &o : outputs) {
    const auto &site = isReference ? o.referenceSite : o.productionSite;
    if (site) divergences.insert(site->value);
  }
  for (const auto &n : g.nodes()) {
    ViewNode vn;
    vn.node = n.get();
    vn.value = n->outputs.at(0);
    for (const Value *v : n->outputs) {
      side.indexOf[v] = static_cast<int>(side.nodes.size());
      if (!vn.partner) vn.partner = partnerOf(v);
    }
    for (const Value *in : n->inputs)
      if (in) vn.operands.push_back(side.indexOf.at(in));
    vn.status = !live.count(n.get())          ? NodeStatus::Dead
                : divergences.count(vn.value->name) ? NodeStatus::Divergence
                : vn.partner                  ? NodeStatus::Matched
                                              : NodeStatus::Residual;
    side.nodes.push_back(vn);
  }
  for (const Value *out : g.outputs()) side.outputNodes.push_back(side.indexOf.at(out));
  return side;
}

}  // namespace

DiffView buildDiffView(const CheckResult &r, const Graph &reference, const Graph &production) {
  DiffView view;
  auto refFirst = firstByNumber(reference, r.match.reference);
  auto prodFirst = firstByNumber(production, r.match.production);
  view.reference = buildSide(reference, r.match.reference, prodFirst, r.outputs, true);
  view.production = buildSide(production, r.match.production, refFirst, r.outputs, false);
  return view;
}

Region residualRegion(const SideView &side, size_t output) {
  Region region;
  if (output >= side.outputNodes.size()) return region;
  std::set<int> inCone, frontier;
  std::vector<int> stack{side.outputNodes[output]};
  while (!stack.empty()) {
    int i = stack.back();
    stack.pop_back();
    const ViewNode &n = side.nodes[i];
    bool unmatched = n.status == NodeStatus::Residual || n.status == NodeStatus::Divergence;
    if (!unmatched) {
      // A matched value ends the walk: it is where the region starts (or, for
      // an output matched by value but of another type, all there is to show).
      frontier.insert(i);
      continue;
    }
    if (!inCone.insert(i).second) continue;
    for (int o : n.operands) stack.push_back(o);
  }
  region.residual.assign(inCone.begin(), inCone.end());
  region.frontier.assign(frontier.begin(), frontier.end());
  return region;
}

std::string_view statusName(NodeStatus s) {
  switch (s) {
  case NodeStatus::Matched: return "matched";
  case NodeStatus::Residual: return "residual";
  case NodeStatus::Divergence: return "divergence";
  case NodeStatus::Dead: return "dead";
  }
  return "matched";
}

}  // namespace torchtv
