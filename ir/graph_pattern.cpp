// Building a graph from its pattern (graph_pattern.h): types, values and
// statements are checked here, with the pattern's token positions.
#include "ir/graph_pattern.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "ir/diagnostic.h"
#include "ir/limits.h"

namespace torchtv {

PatternBuilder::PatternBuilder(const GraphPattern &p, const OpResolver &resolver, bool definition)
    : p_(p), resolver_(resolver), definition_(definition), g_(std::make_unique<Graph>(p.name.text)) {}

void PatternBuilder::fail(const Token &t, const std::string &message) const {
  throw InputError(SourcePos{p_.path, t.line, t.col}, message);
}

void PatternBuilder::requireTemplate(const Token &t) const {
  if (!definition_)
    fail(t, describeToken(t) + " is only allowed in a fusion definition (a graph named after an op, such as @aten::gelu)");
}

std::optional<Dim> PatternBuilder::boundDim(const std::string &name) const {
  auto d = dimBinds_.find(name);
  if (d != dimBinds_.end()) return d->second;
  auto a = binds_.find(name);
  if (a != binds_.end() && a->second.isInt()) return Dim(a->second.asInt());
  return std::nullopt;
}

Attribute PatternBuilder::boundAttr(const Token &t) const {
  requireTemplate(t);
  auto a = binds_.find(t.text);
  if (a != binds_.end()) return a->second;
  auto d = dimBinds_.find(t.text);
  if (d != dimBinds_.end()) {
    if (!d->second.isConcrete() && !unusedValue_) mismatch("$" + t.text + " is the symbolic dim " + d->second.str());
    if (!d->second.isConcrete()) return int64_t{1};  // a default the call overrides
    return d->second.size();
  }
  fail(t, "parameter $" + t.text + " is not bound by the definition's header");
}

void PatternBuilder::bindAttr(const std::string &name, const Attribute &actual) {
  if (auto d = boundDim(name)) {
    if (!actual.isInt() || Dim(actual.asInt()) != *d) mismatch("$" + name + " differs");
    return;
  }
  auto [it, inserted] = binds_.emplace(name, actual);
  if (!inserted && it->second != actual) mismatch("$" + name + " differs");
}

std::optional<TensorType> PatternBuilder::type(const TypeExpr &t, const TensorType *actual) {
  if (t.hole) {
    requireTemplate(t.at);
    if (actual) return *actual;
    return std::nullopt;
  }
  TensorType out;
  const Token &p = t.dtype;
  if (p.kind == Tok::Param) {
    requireTemplate(p);
    auto it = binds_.find(p.text);
    if (it != binds_.end()) {
      if (!it->second.isDType()) fail(p, "$" + p.text + " is not a dtype");
      out.dtype = it->second.asDType();
      if (actual && actual->dtype != out.dtype) mismatch("dtype $" + p.text + " differs");
    } else if (actual) {
      out.dtype = actual->dtype;
      binds_[p.text] = actual->dtype;
    } else {
      fail(p, "dtype parameter $" + p.text + " is not bound by the definition's inputs");
    }
  } else {
    auto dtype = parseDType(p.text);
    if (!dtype) fail(p, "unknown dtype '" + p.text + "'");  // the parser says which exist
    out.dtype = *dtype;
    if (actual && actual->dtype != out.dtype) mismatch("dtype differs");
  }
  // Note [Leading dims in definitions]
  // `...` first in a header type stands for the operand's leading dims, so the
  // dims written after it bind the trailing ones at any rank. A body type
  // starting with `...` stands for the leading dims of the header's inputs
  // (a call whose inputs differ there does not match such a definition):
  // `%y: $T[...] = prims::abs(%x)` gives an op without a shape rule the result
  // type of an elementwise op on the inputs (the generated definitions of
  // fusions/decompositions.tvir). They are kept in dimBinds_ under names no
  // dim symbol can take ("...rank", "...0", "...1", ...).
  if (t.dots) {
    requireTemplate(*t.dots);
    if (!actual) {
      auto rank = dimBinds_.find("...rank");
      if (rank == dimBinds_.end())
        fail(*t.dots, "'...' in a definition's body needs a header input typed with '...'");
      if (dimBinds_.count("...differ")) mismatch("the dims '...' stands for differ between the inputs");
      for (int64_t i = 0; i < rank->second.size(); ++i) out.shape.push_back(dimBinds_.at("..." + std::to_string(i)));
    } else {
      if (actual->shape.size() < t.dims.size()) mismatch("rank differs");
      out.shape.assign(actual->shape.begin(), actual->shape.end() - static_cast<std::ptrdiff_t>(t.dims.size()));
      auto rank = dimBinds_.find("...rank");
      if (rank == dimBinds_.end()) {
        dimBinds_.emplace("...rank", static_cast<int64_t>(out.shape.size()));
        for (size_t i = 0; i < out.shape.size(); ++i) dimBinds_.emplace("..." + std::to_string(i), out.shape[i]);
      } else {
        bool same = rank->second.size() == static_cast<int64_t>(out.shape.size());
        for (size_t i = 0; same && i < out.shape.size(); ++i) same = dimBinds_.at("..." + std::to_string(i)) == out.shape[i];
        if (!same) dimBinds_.emplace("...differ", 0);
      }
    }
  }
  for (const Token &d : t.dims) {
    size_t i = out.shape.size();
    const Dim *want = actual && i < actual->shape.size() ? &actual->shape[i] : nullptr;
    if (actual && !want) mismatch("rank differs");
    if (d.kind == Tok::Number) {
      char *end = nullptr;
      errno = 0;
      long long v = std::strtoll(d.text.c_str(), &end, 10);
      if (*end || errno || v < 0) fail(d, "bad dimension '" + d.text + "'");
      out.shape.push_back(static_cast<int64_t>(v));
    } else {
      std::optional<Dim> bound = definition_ ? boundDim(d.text) : std::nullopt;
      if (bound) out.shape.push_back(*bound);
      else if (want) out.shape.push_back(dimBinds_.emplace(d.text, *want).first->second);
      else out.shape.push_back(Dim::symbol(d.text));
    }
    if (want && out.shape.back() != *want) mismatch("dim " + std::to_string(i) + " differs");
  }
  if (actual && out.shape.size() != actual->shape.size()) mismatch("rank differs");
  try {
    checkTensorLimits(out, SourcePos{});
  } catch (const InputError &e) {
    fail(t.open, e.message());
  }
  return out;
}

Attribute PatternBuilder::value(const ValueExpr &e) {
  switch (e.kind) {
  case ValueExpr::Kind::Literal: return e.literal;
  case ValueExpr::Kind::Param: return boundAttr(e.at);
  case ValueExpr::Kind::Call:
  case ValueExpr::Kind::Numel: return computed(e);
  case ValueExpr::Kind::List: break;
  }
  std::vector<Attribute> items;
  bool anyFloat = false;
  for (const ValueExpr &item : e.items) {
    items.push_back(value(item));
    if (!items.back().isScalar()) fail(item.at, "lists hold numbers only, got " + items.back().str());
    anyFloat = anyFloat || items.back().isFloat();
  }
  return listAttribute(items, anyFloat);
}

// Note [Computed attributes]
// A definition may compute a number from what the call binds, in double as
// ATen computes it: `rsqrt($E)` is 1.0 / std::sqrt(E), the default attention
// scale of sdp::calculate_scale; `div(2.0, numel(%x))` the mean factor of
// mse_loss_backward; `sqrt(a)` and `mul(a, b)` likewise (`mul($alpha, $scale)`:
// elu's negative coefficient, as torch._decomp computes it), and `add`, `sub`, `neg`, `pow`, `exp`,
// `log` (`sub(1.0, $p)`: a keep probability), each one C++ double operation or <cmath> call, as a
// Python float expression in a decomposition rounds. The value is a constant of the
// instantiated graph, so a proof sees exactly the double PyTorch uses (not,
// say, E^(-1/2) over the reals). numel of a symbolic shape does not match.
Attribute PatternBuilder::computed(const ValueExpr &e) {
  const Token &fn = e.at;
  requireTemplate(fn);
  if (e.kind == ValueExpr::Kind::Numel) {
    auto it = scope_.find(e.value.text);
    if (it == scope_.end()) fail(e.value, "use of undefined value '%" + e.value.text + "'");
    auto n = numel(it->second->type.shape);
    if (!n && !unusedValue_) mismatch("numel(%" + e.value.text + ") of a symbolic shape");
    if (!n) return int64_t{1};  // a default the call overrides
    return *n;
  }
  std::vector<double> args;
  for (const ValueExpr &arg : e.items) {
    Attribute a = value(arg);
    if (!(a.isInt() || a.isFloat())) fail(arg.at, fn.text + " takes numbers, got " + a.str());
    args.push_back(a.asDouble());
  }
  using Fn = double (*)(const std::vector<double> &);
  static const std::map<std::string, std::pair<size_t, Fn>> kFunctions = {
      {"rsqrt", {1, [](const std::vector<double> &a) { return 1.0 / std::sqrt(a[0]); }}},
      {"sqrt", {1, [](const std::vector<double> &a) { return std::sqrt(a[0]); }}},
      {"div", {2, [](const std::vector<double> &a) { return a[0] / a[1]; }}},
      {"mul", {2, [](const std::vector<double> &a) { return a[0] * a[1]; }}},
      {"add", {2, [](const std::vector<double> &a) { return a[0] + a[1]; }}},
      {"sub", {2, [](const std::vector<double> &a) { return a[0] - a[1]; }}},
      {"neg", {1, [](const std::vector<double> &a) { return -a[0]; }}},
      {"pow", {2, [](const std::vector<double> &a) { return std::pow(a[0], a[1]); }}},
      {"exp", {1, [](const std::vector<double> &a) { return std::exp(a[0]); }}},
      {"log", {1, [](const std::vector<double> &a) { return std::log(a[0]); }}},
  };
  auto f = kFunctions.find(fn.text);
  if (f == kFunctions.end()) {
    std::string known;
    for (const auto &[name, _] : kFunctions) known += name + ", ";
    fail(fn, "unknown function '" + fn.text + "' (known: " + known + "numel)");
  }
  if (args.size() != f->second.first)
    fail(fn, fn.text + " takes " + std::to_string(f->second.first) + " argument(s), got " + std::to_string(args.size()));
  return f->second.second(args);
}

Value *PatternBuilder::use(const Token &t) {
  auto it = scope_.find(t.text);
  if (it == scope_.end()) fail(t, "use of undefined value '%" + t.text + "'");
  return it->second;
}

void PatternBuilder::define(const Token &t) {
  if (scope_.count(t.text)) fail(t, "value '%" + t.text + "' is defined twice");
}

void PatternBuilder::addInput(const Token &name, const TensorType &t) {
  define(name);
  scope_[name.text] = g_->addInput(name.text, t);
}

std::unique_ptr<Graph> PatternBuilder::buildBody(const std::vector<std::optional<TensorType>> &results) {
  for (const StatementPattern &s : p_.body) statement(s);
  if (p_.returned.size() != results.size())
    fail(p_.ret, "returns " + std::to_string(p_.returned.size()) + " value(s) but the signature has " +
                     std::to_string(results.size()));
  for (size_t i = 0; i < p_.returned.size(); ++i) {
    Value *v = use(p_.returned[i]);
    const auto &want = results[i];
    if (want && v->type != *want && definition_) {  // want is the call's result type
      InputError where(SourcePos{p_.path, p_.returned[i].line, p_.returned[i].col},
                       "the definition returns " + v->type.str() + " where the call has " + want->str());
      throw TemplateMisfit(where.what());
    }
    if (want && v->type != *want)
      fail(p_.returned[i], "returned value has type " + v->type.str() + " but the signature says " + want->str());
    g_->addOutput(v);
  }
  return std::move(g_);
}

void PatternBuilder::statement(const StatementPattern &s) {
  NodeSpec spec;
  std::vector<std::optional<TensorType>> declared;
  for (size_t r = 0; r < s.results.size(); ++r) {
    const Token &v = s.results[r].first;
    define(v);
    for (size_t q = 0; q < r; ++q)
      if (s.results[q].first.text == v.text) fail(v, "value '%" + v.text + "' is defined twice");
    declared.push_back(type(s.results[r].second));
    spec.outputNames.push_back(v.text);
  }
  bool allDeclared = true;
  for (const auto &d : declared) allDeclared = allDeclared && d.has_value();
  if (allDeclared)
    for (const auto &d : declared) spec.declaredTypes.push_back(*d);
  spec.op = s.op.text;
  for (const Token &o : s.operands) spec.inputs.push_back(o.kind == Tok::Ident ? nullptr : use(o));
  for (const auto &[key, e] : s.attrs) {
    if (spec.attrs.count(key.text)) fail(key, "attribute '" + key.text + "' given twice");
    spec.attrs[key.text] = value(e);
  }
  if (s.loc) spec.loc = *s.loc;
  if (!allDeclared) {
    auto r = resolver_.resolve(spec.op);
    if (r && !r->builtin) fail(s.op, "the result types of custom op " + spec.op + " cannot be inferred; write them");
  }
  try {
    Node *n = buildNode(*g_, resolver_, spec);
    for (size_t i = 0; i < n->outputs.size() && !allDeclared; ++i)
      if (i < declared.size() && declared[i] && *declared[i] != n->outputs[i]->type)
        throw InputError("result " + std::to_string(i) + " is declared " + declared[i]->str() +
                         " but the op computes " + n->outputs[i]->type.str());
    for (Value *out : n->outputs) scope_[out->name] = out;
  } catch (const InputError &e) {
    // Instantiated for a call, a body whose ops reject the call's operands (a definition whose
    // header leaves an operand's shape open, `%lse: _`, given one of another shape) does not
    // fit that call: it stays uninterpreted, with this reason, rather than failing the run.
    if (definition_) throw TemplateMisfit(InputError(SourcePos{p_.path, s.op.line, s.op.col}, e.message()).what());
    fail(s.op, e.message());
  }
}

std::unique_ptr<Graph> buildGraph(const GraphPattern &p, const OpResolver &resolver) {
  PatternBuilder b(p, resolver, false);
  for (const auto &[name, t] : p.inputs) {
    b.addInput(name, *b.type(t));
  }
  std::vector<std::optional<TensorType>> results;
  for (const TypeExpr &t : p.results) results.push_back(b.type(t));
  return b.buildBody(results);
}

}  // namespace torchtv
