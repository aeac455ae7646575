#include "src/fusion/fusion_library.h"

#include <algorithm>
#include <sstream>

#include "ir/diagnostic.h"
#include "ir/files.h"
#include "ir/op_registry.h"
#include "src/util/install_layout.h"

namespace torchtv {

namespace {

// Note [Exact expansions]: the comment block right above `graph` may say
// `# FAITHFUL: bitwise`.
bool markedFaithful(const std::string &text, int graphLine) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (int i = graphLine - 2; i >= 0 && i < static_cast<int>(lines.size()); --i) {
    std::string l = lines[i];
    l.erase(0, l.find_first_not_of(" \t"));
    if (l.empty() || l[0] != '#') break;
    if (l.rfind("# FAITHFUL: bitwise", 0) == 0) return true;
  }
  return false;
}

}  // namespace

void FusionLibrary::loadDirectory(const std::string &dir, FusionOrigin origin) {
  torchtv::loadDirectory(dir, ".tvir", "fusion folder", [&](const std::string &path, const std::string &text) {
    addModule(parseModule(text, path), origin, text);
  });
}

void FusionLibrary::addModule(const Module &m, FusionOrigin origin, const std::string &text) {
  for (const auto &[name, schema] : m.customOps)
    if (!resolver_.resolve(name)) resolver_.declare(schema);
  for (const GraphTemplate &t : m.templates) {
    if (!lookupOp(t.name) && !resolver_.resolve(t.name))
      throw InputError(SourcePos{t.path, t.line, t.col},
                       "definition of unknown op '" + t.name + "' (declare it with an `op` line)");
    bool exact = !lookupOp(t.name) || (!text.empty() && markedFaithful(text, t.line));
    auto &list = defs_[t.name];
    FusionDefinition d{t, exact, nullptr, nullptr, origin == FusionOrigin::User};
    try {
      d.pattern = std::make_shared<const GraphPattern>(parseGraphPattern(t));
    } catch (const InputError &e) {
      d.malformed = std::make_shared<const InputError>(e);
    }
    // A user's definitions are tried before the bundled ones, in the order they are written.
    if (origin == FusionOrigin::User) list.insert(list.begin() + static_cast<std::ptrdiff_t>(userDefs_[t.name]++), d);
    else list.push_back(d);
  }
  cache_.clear();
}

const std::vector<FusionDefinition> *FusionLibrary::find(const std::string &op) const {
  auto it = defs_.find(op);
  return it == defs_.end() ? nullptr : &it->second;
}

std::vector<std::string> FusionLibrary::definedOps() const {
  std::vector<std::string> out;
  for (const auto &[op, list] : defs_) out.push_back(op);
  return out;
}

size_t FusionLibrary::size() const {
  size_t n = 0;
  for (const auto &[op, list] : defs_) n += list.size();
  return n;
}

std::optional<FusionLibrary::Instance> FusionLibrary::instantiate(const Node &n, std::string *whyNot) const {
  const auto *defs = find(n.op);
  if (!defs) return std::nullopt;
  TemplateCall call;
  call.attrs = &n.attrs;
  std::string key = n.op + "(";
  for (const Value *v : n.inputs) {
    call.operands.push_back(v ? &v->type : nullptr);
    key += (v ? v->type.str() : "none") + ",";
  }
  key += ")";
  key += attributesKey(n.attrs);
  for (const Value *v : n.outputs) {
    call.results.push_back(v->type);
    key += "->" + v->type.str();
  }
  auto hit = cache_.find(key);
  if (hit == cache_.end()) hit = cache_.emplace(key, instantiateUncached(*defs, call, n)).first;
  if (whyNot) *whyNot = hit->second.whyNot;
  return hit->second.instance;
}

std::vector<TensorType> FusionLibrary::resultTypes(const std::string &op, const std::vector<const TensorType *> &operands,
                                                   const AttributeMap &attrs) const {
  const auto *defs = find(op);
  if (!defs) throw InputError("no definition of " + op + " in the --fusions folder gives its result types");
  TemplateCall call;
  call.operands = operands;
  call.attrs = &attrs;
  call.inferResults = true;
  for (const FusionDefinition &d : *defs) {
    if (d.malformed) throw *d.malformed;
    try {
      std::unique_ptr<Graph> g = instantiateTemplate(*d.pattern, call, resolver_);
      std::vector<TensorType> types;
      for (const Value *v : g->outputs()) types.push_back(v->type);
      return types;
    } catch (const TemplateMismatch &) {
      continue;
    }
  }
  std::string given;
  for (const TensorType *t : operands) given += (given.empty() ? "" : ", ") + (t ? t->str() : std::string("None"));
  throw InputError("no definition of " + op + " in the --fusions folder takes operands (" + given +
                   ") and these arguments, so its result types are unknown");
}

// Note [Definitions that do not fit]
// A call that no definition of its op covers stays an uninterpreted op, and the outputs through it
// are unknown. The user who wrote a definition for it needs to know why it was passed over: a
// result type the body does not give (a misfit), or a header that does not match the call (an
// attribute its guard rejects, an operand that is none, a dim that differs). The first misfit, else
// every user definition's mismatch with its file and line, becomes the op's `whyNot`, which -v
// logs and the unknown outputs' reasons carry.
FusionLibrary::Cached FusionLibrary::instantiateUncached(const std::vector<FusionDefinition> &defs,
                                                         const TemplateCall &call, const Node &n) const {
  Cached out;
  std::string mismatches;
  for (const FusionDefinition &d : defs) {
    try {
      if (d.malformed) throw *d.malformed;
      std::shared_ptr<const Graph> g = instantiateTemplate(*d.pattern, call, resolver_);
      std::string misfit;
      for (size_t i = 0; i < g->outputs().size() && misfit.empty(); ++i)
        if (i >= n.outputs.size() || g->outputs()[i]->type != n.outputs[i]->type)
          misfit = "the definition returns " + g->outputs()[i]->type.str() + " where the call has " +
                   (i < n.outputs.size() ? n.outputs[i]->type.str() : "nothing");
      if (misfit.empty()) {
        out.instance = Instance{g, d.exact, d.tmpl.path + ":" + std::to_string(d.tmpl.line)};
        return out;
      }
      if (out.whyNot.empty()) out.whyNot = misfit;
    } catch (const TemplateMisfit &e) {
      if (out.whyNot.empty()) out.whyNot = e.what();
    } catch (const TemplateMismatch &e) {
      if (d.user)
        mismatches += std::string(mismatches.empty() ? "" : "; ") + "the definition at " + d.tmpl.path + ":" +
                      std::to_string(d.tmpl.line) + " does not match the call: " + e.what();
      continue;
    }
  }
  if (out.whyNot.empty()) out.whyNot = mismatches;
  return out;
}

std::string FusionLibrary::bundledDirectory() {
  return installLayout().fusionsDir;  // Note [Installed layout]
}

}  // namespace torchtv
