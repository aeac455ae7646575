// Parser for rules/*.rules (grammar in rule.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>

#include "ir/builder.h"
#include "ir/diagnostic.h"
#include "ir/files.h"
#include "ir/lexer.h"
#include "ir/text_format.h"
#include "src/normalize/rule.h"
#include "src/util/install_layout.h"

namespace torchtv {

namespace {

class RuleParser {
public:
  RuleParser(const std::string &text, const std::string &path)
      : lex_(text, path, Lexer::Options{/*dashInNames=*/true}), path_(path) {
    tok_ = lex_.next();
  }

  std::vector<Rule> parse() {
    std::vector<Rule> out;
    while (tok_.kind != Tok::End) out.push_back(rule());
    return out;
  }

private:
  bool is(const char *p) const { return (tok_.kind == Tok::Punct || tok_.kind == Tok::Ident) && tok_.text == p; }
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  void expect(const char *p) {
    if (!is(p)) lex_.fail(tok_, std::string("expected '") + p + "', got " + describeToken(tok_));
    take();
  }
  Token expectKind(Tok k, const char *what) {
    if (tok_.kind != k) lex_.fail(tok_, std::string("expected ") + what + ", got " + describeToken(tok_));
    return take();
  }

  Rule rule() {
    Token kw = tok_;
    expect("rule");
    Rule r;
    r.file = path_;
    r.line = kw.line;
    r.name = expectKind(Tok::Ident, "a rule name").text;
    expect(":");
    Token cls = expectKind(Tok::Ident, "bitwise or real");
    if (cls.text == "bitwise") r.cls = RuleClass::Bitwise;
    else if (cls.text == "real") r.cls = RuleClass::Real;
    else lex_.fail(cls, "rule class must be bitwise or real, got '" + cls.text + "'");
    expect("[");
    while (!is("]")) {
      Token d = expectKind(Tok::Ident, "a dtype");
      auto dt = parseDType(d.text);
      if (!dt) lex_.fail(d, "unknown dtype '" + d.text + "'");
      r.dtypes.push_back(*dt);
      if (!is("]")) expect(",");
    }
    take();
    if (r.dtypes.empty()) lex_.fail(cls, "a rule lists the dtypes it holds for");
    if (is("if")) {
      take();
      Token at = tok_;
      r.precondition = attrExpr();
      if (r.precondition->kind != AttrExpr::Kind::Call || !isRulePredicate(r.precondition->name))
        lex_.fail(at, "a precondition is a named predicate such as power_of_two($c)");
    }
    Token lhsAt = tok_;
    r.lhs = pattern(true);
    if (r.lhs.isVar()) lex_.fail(lhsAt, "the left side must be an op");
    expect("=>");
    r.rhs = pattern(false);
    checkVars(r, lhsAt);
    return r;
  }

  void collect(const Pattern &p, std::vector<std::string> &tensors, std::vector<std::string> &params) {
    if (p.isVar()) tensors.push_back(p.var);
    for (const auto &o : p.operands) collect(o, tensors, params);
    std::function<void(const AttrExpr &)> walk = [&](const AttrExpr &e) {
      if (e.kind == AttrExpr::Kind::Var) params.push_back(e.name);
      for (const auto &a : e.args) walk(a);
    };
    for (const auto &[k, e] : p.attrs) walk(e);
  }

  void checkVars(const Rule &r, const Token &at) {
    std::vector<std::string> lt, lp, rt, rp;
    collect(r.lhs, lt, lp);
    collect(r.rhs, rt, rp);
    if (r.precondition)
      for (const auto &a : r.precondition->args)
        if (a.kind == AttrExpr::Kind::Var) rp.push_back(a.name);
    for (const auto &v : rt)
      if (std::find(lt.begin(), lt.end(), v) == lt.end()) lex_.fail(at, "%" + v + " is not bound by the left side");
    for (const auto &v : rp)
      if (std::find(lp.begin(), lp.end(), v) == lp.end()) lex_.fail(at, "$" + v + " is not bound by the left side");
  }

  Pattern pattern(bool lhs) {
    Pattern p;
    if (tok_.kind == Tok::ValueName) {
      p.var = take().text;
      return p;
    }
    Token op = expectKind(Tok::Ident, "an op or a %variable");
    const auto *info = OpResolver().resolve(op.text) ? &op : nullptr;
    if (!info) lex_.fail(op, "unknown op '" + op.text + "'");
    p.op = op.text;
    auto schema = OpResolver().resolve(op.text)->schema;
    expect("(");
    while (!is(")")) {
      p.operands.push_back(pattern(lhs));
      if (!is(")")) expect(",");
    }
    take();
    size_t tensors = schema->tensorArgs().size();
    if (p.operands.size() != tensors)
      lex_.fail(op, op.text + " takes " + std::to_string(tensors) + " tensor operand(s)");
    if (is("{")) {
      take();
      while (!is("}")) {
        Token key = expectKind(Tok::Ident, "an attribute name");
        const ArgSpec *arg = schema->findArg(key.text);
        if (!arg || arg->isTensor()) lex_.fail(key, op.text + " has no attribute '" + key.text + "'");
        expect("=");
        Token at = tok_;
        AttrExpr e = attrExpr();
        if (!lhs && e.kind == AttrExpr::Kind::Any) lex_.fail(at, "`_` is only allowed on the left side");
        if (lhs && e.kind == AttrExpr::Kind::Call) lex_.fail(at, "functions are only allowed on the right side");
        p.attrs[key.text] = e;
        if (!is("}")) expect(",");
      }
      take();
    }
    return p;
  }

  AttrExpr attrExpr() {
    AttrExpr e;
    if (tok_.kind == Tok::Param) {
      e.kind = AttrExpr::Kind::Var;
      e.name = take().text;
      return e;
    }
    if (is("_")) {
      take();
      return e;
    }
    e.kind = AttrExpr::Kind::Literal;
    if (auto lit = lex_.literal(tok_)) {
      take();
      e.literal = *lit;
      return e;
    }
    if (is("[")) {
      take();
      std::vector<int64_t> ints;
      while (!is("]")) {
        Attribute a = lex_.number(expectKind(Tok::Number, "a number"));
        if (!a.isInt()) lex_.fail(tok_, "lists in rules hold ints");
        ints.push_back(a.asInt());
        if (!is("]")) expect(",");
      }
      take();
      e.literal = ints;
      return e;
    }
    Token w = expectKind(Tok::Ident, "an attribute value");
    if (is("(")) {
      if (!isRuleFunction(w.text) && !isRulePredicate(w.text)) lex_.fail(w, "unknown rule function '" + w.text + "'");
      e.kind = AttrExpr::Kind::Call;
      e.name = w.text;
      take();
      while (!is(")")) {
        e.args.push_back(attrExpr());
        if (!is(")")) expect(",");
      }
      take();
    } else {
      lex_.fail(w, "unknown attribute value '" + w.text + "'");
    }
    return e;
  }

  Lexer lex_;
  Token tok_;
  std::string path_;
};

}  // namespace

void RuleSet::addText(const std::string &text, const std::string &path) {
  for (Rule &r : RuleParser(text, path).parse()) {
    if (find(r.name))
      throw InputError(SourcePos{path, r.line, 1}, "rule '" + r.name + "' is defined twice");
    rules_.push_back(std::move(r));
  }
}

void RuleSet::loadDirectory(const std::string &dir) {
  torchtv::loadDirectory(dir, ".rules", "rules folder",
                         [&](const std::string &path, const std::string &text) { addText(text, path); });
}

const Rule *RuleSet::find(const std::string &name) const {
  for (const Rule &r : rules_)
    if (r.name == name) return &r;
  return nullptr;
}

std::string RuleSet::bundledDirectory() {
  return installLayout().rulesDir;  // Note [Installed layout]
}

}  // namespace torchtv
