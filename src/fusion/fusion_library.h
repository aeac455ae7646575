// Reference definitions of fused and composite ops (fusions/*.tvir, a user's
// --fusions DIR, a pair file's FUSIONS), found by op name and instantiated for
// a call (Note [Fusion templates] in ir/text_format.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"
#include "ir/text_format.h"
#include "src/fusion/template_match.h"

namespace torchtv {

// Where definitions come from; decides whether expanding one is exact.
enum class FusionOrigin { Bundled, User };

// Note [Exact expansions]
// Expanding a custom op through its definition is exact: the definition is the
// spec. Expanding an ATen op (native_layer_norm_backward, _softmax, ...) is
// exact with respect to our definition, but ATen's kernel may round
// differently (fused loops, float accumulation for f16), so its results count
// as level real, unless the definition is preceded by a `# FAITHFUL: bitwise`
// comment line, which claims that ATen's kernel performs exactly the
// definition's operations for every dtype (e.g. threshold_backward, a select
// with no arithmetic).
struct FusionDefinition {
  GraphTemplate tmpl;
  bool exact = false;
  // Read once when added. A malformed definition is an error when a call of
  // its op is expanded, not when the file is loaded (a folder may hold
  // definitions of ops a check never meets).
  std::shared_ptr<const GraphPattern> pattern;
  std::shared_ptr<const InputError> malformed;
  // The user's (--fusions, a pair's file): a header that does not fit a call says why (Note
  // [Definitions that do not fit]); a bundled one is silent, others cover the call.
  bool user = false;
};

class FusionLibrary {
public:
  // Reads every *.tvir in `dir` (sorted by name); InputError if unreadable.
  void loadDirectory(const std::string &dir, FusionOrigin origin);
  // Definitions and custom ops of a parsed file (e.g. a check input).
  void addModule(const Module &m, FusionOrigin origin, const std::string &text = "");

  const std::vector<FusionDefinition> *find(const std::string &op) const;
  std::vector<std::string> definedOps() const;
  size_t size() const;
  // Knows every custom op declared next to a definition.
  const OpResolver &resolver() const { return resolver_; }

  // Instantiates the first definition of `n.op` whose header matches the
  // call and whose results fit it (TemplateMisfit), or returns nullopt when
  // none does; then `whyNot`, when given, receives why the first definition
  // whose header matched does not fit ("" when no header matched). Cached per
  // distinct call. InputError when a matching definition is malformed.
  struct Instance {
    std::shared_ptr<const Graph> graph;
    bool exact = false;
    std::string where;  // the definition's file:line
  };
  std::optional<Instance> instantiate(const Node &n, std::string *whyNot = nullptr) const;

  // The result types of a call of `op` whose own are not known (a TorchScript
  // file records none): those of the first definition whose header matches
  // the operands and attributes, its body built for them. InputError saying
  // why when no definition of `op` matches (Note [Custom ops in TorchScript
  // files] in src/torch/torchscript.h).
  std::vector<TensorType> resultTypes(const std::string &op, const std::vector<const TensorType *> &operands,
                                      const AttributeMap &attrs) const;

  // The bundled definitions: installLayout().fusionsDir (Note [Installed
  // layout] in src/util/install_layout.h).
  static std::string bundledDirectory();

private:
  std::map<std::string, std::vector<FusionDefinition>> defs_;
  std::map<std::string, size_t> userDefs_;  // per op: how many of defs_ come from the user
  OpResolver resolver_;
  struct Cached {
    std::optional<Instance> instance;
    std::string whyNot;
  };
  Cached instantiateUncached(const std::vector<FusionDefinition> &defs, const TemplateCall &call,
                             const Node &n) const;
  mutable std::map<std::string, Cached> cache_;
};

}  // namespace torchtv
