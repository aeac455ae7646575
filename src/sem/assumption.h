// What a proof assumes about the values it reads, as data.
#pragma once

#include <set>
#include <string>

#include "src/sem/index_range.h"

namespace torchtv::sem {

// Note [Assumptions as data]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A proof may hold only on part of its inputs' domain: the real normal form
// cancels x / x where x != 0, merges sqrt(x)^2 into x where x > 0, and reads a
// masked max as the max of the elements kept where some element is kept; the
// prover bounds an index input by the range the reference's kernel accepts
// (Note [Index inputs in range] in src/verify/input_domains.h) or by the range
// the user declared (Note [Declared input domains]). Each is recorded as an
// Assumption: its kind and what it is about, never as text that other code
// parses. text() renders it, the one place its words are written; the
// verdict's summary (summarizeRealAssumptions, src/verify/verdict.h) groups by
// kind.
struct Assumption {
  enum class Kind {
    Positive,       // subject > 0 (an argument of a square root or another fractional power)
    Nonzero,        // subject != 0 (a divisor)
    KeepsElement,   // some element of the masked reduction `subject` is not masked to -inf
    IndexInRange,   // the input `subject` lies in `range`, outside which the reference's `op` raises
    DeclaredRange,  // the input `subject` lies in `range`, as the user declared
  };
  Kind kind = Kind::Positive;
  std::string subject;  // a value's text (the first three kinds), an input's name (the ranges)
  IndexRange range;     // the two range kinds
  std::string op;       // IndexInRange: the reference kernel that raises outside the range

  static Assumption about(Kind kind, std::string subject) { return Assumption{kind, std::move(subject), {}, {}}; }
  static Assumption indexInRange(std::string input, IndexRange range, std::string op) {
    return Assumption{Kind::IndexInRange, std::move(input), std::move(range), std::move(op)};
  }
  static Assumption declaredRange(std::string input, IndexRange range) {
    return Assumption{Kind::DeclaredRange, std::move(input), std::move(range), {}};
  }

  bool declared() const { return kind == Kind::DeclaredRange; }
  // Whether it is an assumption of level real only (the normal form's), not of every level.
  bool realOnly() const { return kind == Kind::Positive || kind == Kind::Nonzero || kind == Kind::KeepsElement; }
  // "%y is an index in [0, 8) or -100 (aten::nll_loss_forward raises elsewhere)", "x > 0", ...
  std::string text() const;

  bool operator<(const Assumption &o) const;
  bool operator==(const Assumption &o) const;
};

using Assumptions = std::set<Assumption>;

}  // namespace torchtv::sem
