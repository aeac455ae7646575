// Scalar terms: the value of one tensor element at a symbolic index.
//
// Note [Symbolic terms]
// Every op's semantics is written once (src/sem/<family>.cpp) as a function
// from the output's symbolic index to a scalar Term over its operands' elements
// (read at index expressions). Terms are hash-consed in a TermContext, so
// structurally equal terms are the same pointer. Three interpreters read them:
// the concrete evaluator (src/eval, IEEE per dtype or wide), the real-level
// normal form (normal_form.cpp) and the Z3 encoder (src/smt, IEEE or reals).
// A term's dtype is the dtype its operation computes in; a Cast changes it.
// Reductions (Sum, RMax, RMin, Prod) bind an index variable that ranges over
// [0, extent); their binder is canonical (Note [Canonical binders]).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape.h"
#include "src/sem/index_expr.h"

namespace torchtv::sem {

// Note [Term operation table]
// Every term operation is one row of src/sem/term_ops.def: its printed name,
// its arity and its properties. The enum, topName and the property queries
// below are generated from it; code asks the table ("is this op
// uninterpreted?") rather than keeping its own list of ops, so that a new
// operation is declared once and every reader sees it.
enum class TOp {
#define TERM_OP(op, name, arity, props) op,
#include "src/sem/term_ops.def"
#undef TERM_OP
};

// Properties of a term operation (term_ops.def explains each), as bits.
namespace tprop {
enum : unsigned { Comm = 1u << 0, Unint = 1u << 1, RealFn = 1u << 2, Bool = 1u << 3, Red = 1u << 4, Derived = 1u << 5 };
}  // namespace tprop

struct TOpInfo {
  TOp op;
  const char *name;
  int arity;
  unsigned props;
};

// The table, in enum order: allTOps()[static_cast<size_t>(op)].op == op.
const std::vector<TOpInfo> &allTOps();
const TOpInfo &topInfo(TOp op);
// The op printed as `name`, if any (names are unique).
std::optional<TOp> topByName(const std::string &name);

inline const char *topName(TOp op) { return topInfo(op).name; }
inline bool hasProp(TOp op, unsigned p) { return (topInfo(op).props & p) != 0; }
inline bool isReduction(TOp op) { return hasProp(op, tprop::Red); }
// Ops whose value the proofs do not know beyond "same arguments, same result".
inline bool isUninterpreted(TOp op) { return hasProp(op, tprop::Unint); }
// Bitwise-commutative (Note [Commutative ops] in src/match/value_numbering.h).
inline bool isCommutative(TOp op) { return hasProp(op, tprop::Comm); }
// Ops whose result is bool, whatever their operands' dtype.
inline bool hasBoolResult(TOp op) { return hasProp(op, tprop::Bool); }
// Exact in IEEE, an uninterpreted function over the reals (sqrt, floor, ...).
inline bool isRealFunction(TOp op) { return hasProp(op, tprop::RealFn); }

// a op b for the comparison ops (Lt, Le, Gt, Ge, Eq, Ne) over any ordered type (the evaluator's
// long doubles, folded constants, the normal form's rationals); nullopt for any other op.
template <typename T>
std::optional<bool> compareWith(TOp op, const T &a, const T &b) {
  switch (op) {
  case TOp::Lt: return a < b;
  case TOp::Le: return a <= b;
  case TOp::Gt: return a > b;
  case TOp::Ge: return a >= b;
  case TOp::Eq: return a == b;
  case TOp::Ne: return a != b;
  default: return std::nullopt;
  }
}

// IndexCmp kinds (in Term::inum).
enum class IndexCmpKind { Lt = 0, Le = 1, Eq = 2 };

struct Term {
  TOp op = TOp::Const;
  DType dtype = DType::F32;
  std::vector<const Term *> args;
  double num = 0;        // Const (floating and bool), PowC exponent
  int64_t inum = 0;      // Const (integral), IndexCmp kind
  int slot = -1;         // Read: which tensor
  std::vector<IndexExpr> index;  // Read: element; IndexCmp: two operands; IndexValue: one
  int binder = -1;       // reductions
  Dim extent = 0;        // reductions
  std::string origin;    // reductions: the op that reduces (its order is the op's)
  int id = 0;
  int height = 0;        // nesting depth of reductions
  std::vector<int> freeVars;  // sorted
  size_t hash = 0;       // of the fields above that identify it (Note [Interning by structure])
};
using TermPtr = const Term *;

// Whether `t` reads a variable bound in `bound` (a map keyed by variable):
// terms that do not are the same for every value of the bound ones, so the
// evaluator and the Z3 encoder can memoize them.
template <typename BoundMap>
bool dependsOnBound(TermPtr t, const BoundMap &bound) {
  for (int v : t->freeVars)
    if (bound.count(v)) return true;
  return false;
}

// Calls `visit` on each distinct subterm of a and b (a subterm they share, once), until it returns
// true; whether it did.
bool anySubterm(TermPtr a, TermPtr b, const std::function<bool(TermPtr)> &visit);

// What stopped a term from being built or compared, for the hint of what would decide an undecided
// output (Note [What would decide it] in src/verify/obstacle.h): the text says why, the kind is
// what a user could change.
enum class Gap {
  Other,         // not supported yet: nothing the user sets changes it
  NoSemantics,   // `subject`, an op, has no semantics
  TooLarge,      // a size limit of the terms, the normal form or the element comparison
  TimeLimit,     // the check's time ran out
};

// Thrown when an op (or an op/attribute combination) has no semantics yet, or a term passes a limit.
class Unsupported : public std::runtime_error {
public:
  explicit Unsupported(const std::string &what, Gap gap = Gap::Other, std::string subject = {})
      : std::runtime_error(what), gap(gap), subject(std::move(subject)) {}
  Gap gap;
  std::string subject;
};

class TermContext {
public:
  VarTable vars;
  // How str() names a read's slot: the graph value's name ("%x") where the prover knows it, so
  // that assumptions and reasons speak of the user's values; "t<slot>" when unset. Display only:
  // no key is made from str().
  std::function<std::string(int slot)> slotName;

  TermPtr constant(double v, DType dtype);  // rounded to dtype
  TermPtr intConstant(int64_t v, DType dtype);  // wrapped to dtype's width
  TermPtr boolConstant(bool v) { return intConstant(v ? 1 : 0, DType::Bool); }
  TermPtr read(int slot, std::vector<IndexExpr> index, DType dtype);
  TermPtr indexCmp(IndexCmpKind kind, const IndexExpr &a, const IndexExpr &b);
  // Note [Positions as values in terms]
  // value(c): the index expression c as an integer of `dtype` (wrapped to its
  // width), exact for every index in range: arange's element i is
  // value(start + i * step), and one_hot(v, K)[c] compares v with value(c)
  // (src/sem/index_ops.cpp), terms whose size does not grow with K, where a
  // select over the K positions did. The evaluator computes c, Z3 reads it as
  // the integer c converted to a bit-vector, the normal form as an atom keyed
  // by c (renamed with the binders like a read's index). A constant c is the
  // integer constant.
  TermPtr indexValue(const IndexExpr &c, DType dtype);
  // Arithmetic and functions; all operands already in `dtype` (for
  // comparisons the operands' dtype; the result is bool).
  TermPtr make(TOp op, std::vector<TermPtr> args, DType dtype, double num = 0);
  TermPtr select(TermPtr cond, TermPtr a, TermPtr b);
  TermPtr cast(TermPtr x, DType to);
  // A reduction over fresh variable `var` (from vars.fresh) of `body`.
  TermPtr reduce(TOp op, int var, TermPtr body, DType dtype, const std::string &origin);
  // Replaces index variable `var` by `to` everywhere in t.
  TermPtr substitute(TermPtr t, int var, const IndexExpr &to);

  // Readable, for reasons and debugging; the first `limit` characters of it
  // (Note [Bounded term printing]).
  std::string str(TermPtr t, size_t limit = std::string::npos) const;
  size_t size() const { return terms_.size(); }

private:
  TermPtr intern(Term t);
  TermPtr substituteUncached(TermPtr t, int var, const IndexExpr &to);
  void appendStr(TermPtr t, std::string &out, size_t limit) const;
  // substitute's results by (term id, variable, the replacement's key).
  struct SubstKey {
    int term, var;
    std::string to;
    bool operator==(const SubstKey &o) const { return term == o.term && var == o.var && to == o.to; }
  };
  struct SubstKeyHash {
    size_t operator()(const SubstKey &k) const;
  };
  std::unordered_map<SubstKey, TermPtr, SubstKeyHash> substCache_;
  // Note [Interning by structure]
  struct SameTerm {
    bool operator()(TermPtr a, TermPtr b) const;
  };
  struct TermHash {
    size_t operator()(TermPtr t) const { return t->hash; }
  };
  std::deque<Term> terms_;
  std::unordered_set<TermPtr, TermHash, SameTerm> table_;
};

// Rounds a double to the nearest value of a floating dtype (RNE), as a double.
double roundToDType(double v, DType dtype);
// Wraps an integer to the width of an integral dtype (two's complement).
int64_t wrapToDType(int64_t v, DType dtype);

}  // namespace torchtv::sem
