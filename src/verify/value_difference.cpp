#include "src/verify/value_difference.h"

#include <algorithm>
#include <cmath>

#include "src/verify/rounded_constants.h"

namespace torchtv::differ {

namespace {
bool sameOrBothNaN(long double a, long double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
}  // namespace

bool evaluatorConfirms(long double rn, long double pn, long double rd, long double pd, long double rw,
                       long double pw) {
  if (sameOrBothNaN(rn, pn)) return false;
  long double dd = rd - pd, dw = rw - pw;
  if (!std::isfinite(dd) || !std::isfinite(dw) || dw == 0) return false;
  long double scale = std::max<long double>({1e-30L, std::fabs(rw), std::fabs(pw)});
  if (std::fabs(dw) <= kEvaluatorFloor * scale) return false;
  return std::fabs(dd - dw) <= kEvaluatorAgreement * std::fabs(dw);
}

bool replayedDiffer(double reference, double production) { return !sameOrBothNaN(reference, production); }

double replayTolerance(DType dt) {
  if (!isFloating(dt)) return 0;
  return dtypeBits(dt) == 16 ? kReplayRelative16 : kReplayRelative;
}

bool selfCheckDiffer(long double a, long double b) {
  long double scale = std::max<long double>({1.0L, std::fabs(a), std::fabs(b)});
  return !(sameOrBothNaN(a, b) || std::fabs(a - b) <= kSelfCheckRelative * scale);
}

bool mayBeRounding(double reference, double production, DType dt) {
  if (!std::isfinite(reference) || !std::isfinite(production)) return false;
  const double scale = std::max(std::fabs(reference), std::fabs(production));
  return std::fabs(reference - production) <= kRoundingsBeforeRefuting * roundedConstantsTolerance(dt) * scale;
}

}  // namespace torchtv::differ
