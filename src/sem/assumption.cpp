#include "src/sem/assumption.h"

#include <tuple>

namespace torchtv::sem {

namespace {

// "[0, 8)", "[0, 8) or -100"
std::string rangeText(const IndexRange &r) {
  std::string s = "[0, " + std::to_string(r.bound) + ")";
  for (int64_t p : r.alsoDefined) s += " or " + std::to_string(p);
  return s;
}

}  // namespace

std::string Assumption::text() const {
  switch (kind) {
  case Kind::Positive: return subject + " > 0";
  case Kind::Nonzero: return subject + " != 0";
  case Kind::KeepsElement: return "some element of " + subject + " is not masked to -inf";
  case Kind::IndexInRange:
    return "%" + subject + " is an index in " + rangeText(range) + " (" + op +
           (range.alsoDefined.empty() ? " raises outside it)" : " raises elsewhere)");
  case Kind::DeclaredRange: return "as you declared: %" + subject + " is in " + rangeText(range);
  }
  return subject;
}

bool Assumption::operator<(const Assumption &o) const {
  return std::tie(kind, subject, range.bound, range.alsoDefined, op) <
         std::tie(o.kind, o.subject, o.range.bound, o.range.alsoDefined, o.op);
}

bool Assumption::operator==(const Assumption &o) const {
  return kind == o.kind && subject == o.subject && range == o.range && op == o.op;
}

}  // namespace torchtv::sem
