#include "src/fusion/template_match.h"

#include <climits>
#include <set>

namespace torchtv {

namespace {

// One `name=pattern` of a definition header against the call's attribute.
void matchAttr(PatternBuilder &b, const AttrPattern &a, const Attribute &actual) {
  switch (a.kind) {
  case AttrPattern::Kind::Any: return;
  case AttrPattern::Kind::Param:
    // `$s | value`: binds $s to the call's argument, or to value when the
    // call passes None (an optional argument's default, e.g. the attention scale).
    if (a.fallback) {
      // Read (and, unless the call passes None, ignore) the default: a symbolic
      // dim it would compute with must not reject a call that gives a value.
      b.setUnusedValue(!actual.isNone());
      Attribute fallback = b.value(*a.fallback);
      b.setUnusedValue(false);
      b.bindAttr(a.param.text, actual.isNone() ? fallback : actual);
      return;
    }
    b.bindAttr(a.param.text, actual);
    return;
  case AttrPattern::Kind::List: {
    std::vector<int64_t> got = actual.isInts() ? actual.asInts() : std::vector<int64_t>{};
    if (!actual.isInts() && !(actual.isFloats() && actual.asFloats().empty()))
      b.mismatch("the call's " + a.key.text + "=" + actual.str() + " is not a list");
    size_t i = 0;
    for (const ValueExpr &item : a.items) {
      if (i >= got.size()) b.mismatch("the call's " + a.key.text + "=" + actual.str() + " is shorter than the list it requires");
      if (item.kind == ValueExpr::Kind::Param) {
        b.bindAttr(item.at.text, got[i]);
      } else {
        Attribute lit = b.value(item);
        int64_t v = lit.isBool() ? lit.asBool() : lit.isInt() ? lit.asInt() : INT64_MIN;
        if (v != got[i]) b.mismatch("the call's " + a.key.text + "=" + actual.str() + " differs in element " + std::to_string(i));
      }
      ++i;
    }
    if (i != got.size()) b.mismatch("the call's " + a.key.text + "=" + actual.str() + " is longer than the list it requires");
    return;
  }
  case AttrPattern::Kind::Literal: {
    Attribute lit = b.value(a.literal);
    // A literal guard compares as the call's argument kind would store it.
    if (actual.isFloat() && lit.isInt()) lit = static_cast<double>(lit.asInt());
    if (lit != actual) b.mismatch("the call's " + a.key.text + "=" + actual.str() + " is not the " + lit.str() + " it requires");
    return;
  }
  }
}

}  // namespace

std::unique_ptr<Graph> instantiateTemplate(const GraphPattern &p, const TemplateCall &call,
                                           const OpResolver &resolver) {
  PatternBuilder b(p, resolver, /*definition=*/true);
  // Inputs: the op's tensor operands in schema order.
  size_t operand = 0;
  for (const auto &[name, t] : p.inputs) {
    if (operand >= call.operands.size()) b.mismatch("more inputs than the call has operands");
    const TensorType *actual = call.operands[operand++];
    if (t.none) {
      if (actual) b.mismatch("operand %" + name.text + " is present");
      continue;
    }
    if (!actual) b.mismatch("operand %" + name.text + " is none");
    b.addInput(name, *b.type(t, actual));
  }
  if (operand != call.operands.size()) b.mismatch("fewer inputs than the call has operands");
  // Attributes: soundness needs the definition to say what it does with every argument.
  std::set<std::string> seen;
  for (const AttrPattern &a : p.attrs) {
    auto it = call.attrs->find(a.key.text);
    if (it == call.attrs->end()) b.fail(a.key, "the op has no attribute '" + a.key.text + "'");
    if (!seen.insert(a.key.text).second) b.fail(a.key, "attribute '" + a.key.text + "' given twice");
    matchAttr(b, a, it->second);
  }
  for (const auto &[name, value] : *call.attrs)
    if (!seen.count(name))
      b.fail(p.attrsOpen, "the definition does not bind attribute '" + name + "' (write " + name +
                              "=_ if the definition holds for every value)");
  // Results: unified with the call's.
  std::vector<std::optional<TensorType>> results;
  for (const TypeExpr &t : p.results) {
    if (call.inferResults) {
      results.push_back(b.type(t, nullptr));
      continue;
    }
    if (results.size() >= call.results.size()) b.mismatch("more results than the op has");
    results.push_back(b.type(t, &call.results[results.size()]));
  }
  if (!call.inferResults && results.size() != call.results.size()) b.mismatch("fewer results than the op has");
  return b.buildBody(results);
}

std::unique_ptr<Graph> instantiateTemplate(const GraphTemplate &t, const TemplateCall &call,
                                           const OpResolver &resolver) {
  return instantiateTemplate(parseGraphPattern(t), call, resolver);
}

}  // namespace torchtv
