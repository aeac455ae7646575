// Term -> Z3 encoding (internal to src/smt).
#pragma once

#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include <z3++.h>

#include "src/smt/extended_real.h"
#include "src/smt/query.h"

namespace torchtv::smt {

class Encoder {
public:
  // `extended`: at level real, floats are extended reals (Note [Extended reals at level real]);
  // for queries whose terms hold a non-finite constant (needsExtendedReals in query.h).
  Encoder(z3::context &c, const sem::TermContext &tc, Arith arith, sem::IndexRanges indexBounds = {},
          bool extended = false);

  z3::expr encode(sem::TermPtr t);
  // "Equal" as the verdicts define it: IEEE values equal bit for bit except
  // that every NaN equals every NaN (SMT-LIB's = on FP sorts does exactly that).
  z3::expr same(const z3::expr &a, const z3::expr &b) { return a == b; }
  // Range constraints of every free index variable met so far, and of the
  // reads of bounded index tensors (QueryOptions::indexBounds).
  const std::vector<z3::expr> &constraints() const { return constraints_; }
  struct ReadSite {
    int slot;
    std::vector<z3::expr> index;
    z3::expr value;
  };
  const std::vector<ReadSite> &reads() const { return reads_; }
  // The extended reals floats are encoded as, if they are (Note [Extended reals at level real]).
  const ExtendedReals *extendedReals() const { return xr_ ? &*xr_ : nullptr; }
  // As a double (NaN and infinities included); false if not a numeral.
  static bool toDouble(z3::context &c, const z3::expr &v, double &out);

private:
  z3::sort sortOf(DType d);
  z3::expr index(const sem::IndexExpr &e);
  z3::expr var(int v);
  z3::expr indexValue(sem::TermPtr t);
  z3::expr compute(sem::TermPtr t);
  z3::expr constant(sem::TermPtr t);
  z3::expr cast(const z3::expr &x, DType from, DType to);
  z3::expr uf(const std::string &name, const std::vector<z3::expr> &args, const z3::sort &range);
  struct RealAlgebra;  // derived.h's formulas at level real (Note [Derived operations])
  struct ExtendedAlgebra;  // the same over extended reals
  z3::expr computeExtended(sem::TermPtr t);  // a float operation over extended reals
  z3::expr extendedUnary(sem::TOp op, const z3::expr &a);
  z3::expr rne();
  z3::expr fpNaN(DType d);
  z3::expr binaryFp(sem::TOp op, const z3::expr &a, const z3::expr &b);
  z3::expr reduce(sem::TermPtr t);
  z3::expr extendedFold(sem::TOp reduction, const z3::expr &acc, const z3::expr &x);
  bool isFloatSort(DType d) const { return isFloating(d); }

  z3::context &c_;
  const sem::TermContext &tc_;
  Arith arith_;
  std::map<int, z3::expr> vars_;
  std::map<int, int64_t> bound_;  // unrolled binders
  std::unordered_map<int, z3::expr> memo_;
  std::vector<z3::expr> constraints_;
  std::vector<ReadSite> reads_;
  std::map<std::string, z3::expr> dimSymbols_;
  sem::IndexRanges indexBounds_;  // QueryOptions::indexBounds
  std::optional<ExtendedReals> xr_;  // set when floats are extended reals
  // Inside a term without a non-finite constant: floats are plain reals there.
  bool plain_ = false;
  bool extended() const { return xr_ && !plain_; }
  bool finiteTerm(sem::TermPtr t);  // no non-finite constant in t (memoized)
  std::unordered_map<int, bool> finite_;
};

}  // namespace torchtv::smt
