#include "src/import/input_mutations.h"

#include <iterator>
#include <map>

#include "ir/capture_evidence.h"

namespace torchtv {

namespace {

struct Outputs {
  std::vector<Value *> values;
  std::vector<std::string> names;
  std::map<size_t, Value *> updates;  // input position -> updated value (the input itself: not modified)
};

Outputs splitOutputs(const Graph &g) {
  Outputs o;
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < g.inputs().size(); ++i) position[g.inputs()[i]->name + kUpdatedSuffix] = i;
  // The last output of that name is the update (updates follow the outputs they may repeat).
  std::map<size_t, size_t> last;  // output -> input position
  for (size_t k = 0; k < g.outputs().size(); ++k)
    if (auto it = position.find(g.outputNames()[k]); it != position.end()) {
      for (auto at = last.begin(); at != last.end();)
        at = at->second == it->second ? last.erase(at) : std::next(at);
      last[k] = it->second;
    }
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    if (auto it = last.find(k); it != last.end()) {
      o.updates[it->second] = g.outputs()[k];
    } else {
      o.values.push_back(g.outputs()[k]);
      o.names.push_back(g.outputNames()[k]);
    }
  }
  return o;
}

}  // namespace

InputMutations pairInputMutations(Graph &ref, Graph &prod) {
  InputMutations m;
  // Inputs that do not pair up are an error checkGraphs reports.
  if (ref.inputs().size() != prod.inputs().size()) return m;
  Outputs r = splitOutputs(ref), p = splitOutputs(prod);
  if (r.updates.empty() && p.updates.empty()) return m;
  for (size_t i = 0; i < ref.inputs().size(); ++i) {
    auto inR = r.updates.find(i), inP = p.updates.find(i);
    if (inR == r.updates.end() && inP == p.updates.end()) continue;
    const std::string &name = ref.inputs()[i]->name;
    Value *updR = inR != r.updates.end() ? inR->second : ref.inputs()[i];
    Value *updP = inP != p.updates.end() ? inP->second : prod.inputs()[i];
    if (updR != ref.inputs()[i]) m.reference.push_back(name);
    if (updP != prod.inputs()[i]) m.production.push_back(name);
    r.values.push_back(updR);
    r.names.push_back(name + kUpdatedSuffix);
    p.values.push_back(updP);
    p.names.push_back(prod.inputs()[i]->name + kUpdatedSuffix);
  }
  ref.setOutputs(std::move(r.values), std::move(r.names));
  prod.setOutputs(std::move(p.values), std::move(p.names));
  return m;
}

}  // namespace torchtv
