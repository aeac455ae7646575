// Printer for .tvir; parseModule(printModule(m)) rebuilds the same module.
#include <sstream>

#include "ir/text_format.h"

namespace torchtv {

namespace {

std::string quoted(const std::string &s) { return Attribute(s).str(); }

// Arguments equal to their schema default are left out, to keep lines short.
std::string attrsText(const Node &n) {
  std::string out;
  for (const ArgSpec &a : n.schema->args) {
    if (a.isTensor()) continue;
    auto it = n.attrs.find(a.name);
    if (it == n.attrs.end()) continue;
    if (a.defaultValue && *a.defaultValue == it->second) continue;
    if (!a.defaultValue && a.optional && it->second.isNone()) continue;
    out += (out.empty() ? "" : ", ") + a.name + "=" + it->second.str();
  }
  return out.empty() ? "" : " {" + out + "}";
}

}  // namespace

std::string printGraph(const Graph &g) {
  std::ostringstream os;
  os << "graph @" << g.name() << "(";
  for (size_t i = 0; i < g.inputs().size(); ++i)
    os << (i ? ", " : "") << "%" << g.inputs()[i]->name << ": " << g.inputs()[i]->type.str();
  os << ") -> (";
  for (size_t i = 0; i < g.outputs().size(); ++i) os << (i ? ", " : "") << g.outputs()[i]->type.str();
  os << ") {\n";
  for (const auto &n : g.nodes()) {
    os << "  ";
    for (size_t i = 0; i < n->outputs.size(); ++i)
      os << (i ? ", " : "") << "%" << n->outputs[i]->name << ": " << n->outputs[i]->type.str();
    os << " = " << n->op << "(";
    for (size_t i = 0; i < n->inputs.size(); ++i)
      os << (i ? ", " : "") << (n->inputs[i] ? "%" + n->inputs[i]->name : "none");
    os << ")" << attrsText(*n);
    if (n->loc.known()) os << " loc(" << quoted(n->loc.file) << ":" << n->loc.line << ")";
    os << "\n";
  }
  os << "  return";
  for (size_t i = 0; i < g.outputs().size(); ++i) os << (i ? ", " : " ") << "%" << g.outputs()[i]->name;
  os << "\n}\n";
  return os.str();
}

std::string printModule(const Module &m) {
  std::string out;
  for (const auto &[name, schema] : m.customOps) out += "op " + schema->text + "\n";
  if (!m.customOps.empty()) out += "\n";
  for (size_t i = 0; i < m.graphs.size(); ++i) out += (i ? "\n" : "") + printGraph(*m.graphs[i]);
  // Definitions are printed as written: they are templates, not graphs.
  for (const GraphTemplate &t : m.templates) out += (out.empty() ? "" : "\n") + t.text + "\n";
  return out;
}

}  // namespace torchtv
