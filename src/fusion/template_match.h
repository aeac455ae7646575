// Matching a fusion definition against one call, and building the graph it
// stands for there (Note [Fusion templates] in ir/text_format.h). The
// definition is read once into a GraphPattern (ir/graph_pattern.h); this binds
// its header (input types, attribute patterns, result types) to the call and
// has ir's PatternBuilder build the body with those bindings.
#pragma once

#include <memory>
#include <vector>

#include "ir/graph_pattern.h"

namespace torchtv {

// The call a template is instantiated for.
struct TemplateCall {
  std::vector<const TensorType *> operands;  // nullptr for an absent optional operand
  const AttributeMap *attrs = nullptr;
  std::vector<TensorType> results;
  // The call's result types are not known yet (a TorchScript file records
  // none): the definition's body gives them (Note [Custom ops in TorchScript
  // files] in src/torch/torchscript.h); `results` is ignored.
  bool inferResults = false;
};

// Builds a definition for one call. Throws TemplateMismatch when the header
// does not match, TemplateMisfit when the body's results do not fit the call,
// InputError (with the definition's file:line:col) when the definition is
// malformed or does not type-check for this call.
std::unique_ptr<Graph> instantiateTemplate(const GraphPattern &p, const TemplateCall &call,
                                           const OpResolver &resolver);
// The same for a definition's text (reads it first; for tests and one-off calls).
std::unique_ptr<Graph> instantiateTemplate(const GraphTemplate &t, const TemplateCall &call,
                                           const OpResolver &resolver);

}  // namespace torchtv
