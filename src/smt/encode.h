// Term -> Z3 encoding (internal to src/smt).
#pragma once

#include <map>
#include <unordered_map>
#include <vector>

#include <z3++.h>

#include "src/smt/query.h"

namespace torchtv::smt {

class Encoder {
public:
  Encoder(z3::context &c, const sem::TermContext &tc, Arith arith, sem::IndexRanges indexBounds = {});

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
  z3::expr rne();
  z3::expr fpNaN(DType d);
  z3::expr binaryFp(sem::TOp op, const z3::expr &a, const z3::expr &b);
  z3::expr reduce(sem::TermPtr t);
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
};

}  // namespace torchtv::smt
