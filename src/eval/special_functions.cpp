#include "src/eval/special_functions.h"

#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

namespace torchtv::eval::special {

namespace {

using namespace boost::math::policies;
// NaN or +-inf where Boost.Math would throw (Note [Special functions]).
using Quiet = policy<domain_error<ignore_error>, pole_error<ignore_error>, overflow_error<ignore_error>,
                     evaluation_error<ignore_error>, promote_double<false>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0 && x == std::trunc(x)) return kNaN;
  return boost::math::digamma(x, Quiet());
}

double erfinv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return kNaN;
  if (x == 1 || x == -1) return std::copysign(kInf, x);
  return boost::math::erf_inv(x, Quiet());
}

// Modified Bessel functions of the first kind: I0 is even, I1 odd.
double besselI(int order, double x) {
  if (std::isnan(x)) return x;
  double v = boost::math::cyl_bessel_i(order, std::fabs(x), Quiet());
  return order == 1 && x < 0 ? -v : v;
}

// e^-|x| I_n(x) without overflowing I_n first: the asymptotic expansion
// 1 / sqrt(2 pi x) (1 - (4n^2 - 1) / (8x)) past where I_n overflows a double.
double scaledBesselI(int order, double x) {
  double ax = std::fabs(x);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0;
  double v = ax < 700 ? std::exp(-ax) * besselI(order, ax)
                      : (1 - (4.0 * order * order - 1) / (8 * ax)) / std::sqrt(2 * M_PI * ax);
  return order == 1 && x < 0 ? -v : v;
}

// Bessel functions of the first kind: J0 is even, J1 odd. ATen gives NaN at +-inf.
double besselJ(int order, double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  double v = boost::math::cyl_bessel_j(order, std::fabs(x), Quiet());
  return order == 1 && x < 0 ? -v : v;
}

// Hurwitz zeta(x, q) = sum over k >= 0 of (k + q)^-x, by Euler-Maclaurin summation: the
// terms up to a = q + N (N >= 9 and a > 9) summed, the tail as an integral plus Bernoulli
// corrections B_2j / (2j)! of the derivatives. ATen's special cases, in its order: x = 1 is
// inf, x < 1 NaN, q a non-positive integer (or -inf) inf, q < 0 with x not an integer NaN.
double hurwitzZeta(double x, double q) {
  if (x == 1) return kInf;
  if (x < 1) return kNaN;  // a NaN x or q falls through to NaN arithmetic, as in ATen
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
  }
  // (2j)! / B_2j for j = 1..12.
  static const double kFactorOverBernoulli[] = {
      12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
      -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17,
      -7.1661652561756670113e18};
  const double eps = std::numeric_limits<double>::epsilon();
  double s = std::pow(q, -x), a = q, b = 0;
  for (int i = 0; i < 9 || a <= 9; ++i) {
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < eps) return s;
  }
  double w = a;
  s += b * w / (x - 1) - 0.5 * b;
  double f = 1, k = 0;
  for (double c : kFactorOverBernoulli) {
    f *= x + k;
    b /= w;
    double t = f * b / c;
    s += t;
    if (std::fabs(t / s) < eps) break;
    k += 1;
    f *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

}  // namespace

double unary(sem::TOp op, double x) {
  using sem::TOp;
  switch (op) {
  case TOp::Erfc: return std::erfc(x);
  case TOp::Exp2: return std::exp2(x);
  case TOp::Erfinv: return erfinv(x);
  case TOp::Lgamma: return std::lgamma(x);
  case TOp::Digamma: return digamma(x);
  case TOp::I0: return besselI(0, x);
  case TOp::I1: return besselI(1, x);
  case TOp::I0e: return scaledBesselI(0, x);
  case TOp::I1e: return scaledBesselI(1, x);
  case TOp::BesselJ0: return besselJ(0, x);
  case TOp::BesselJ1: return besselJ(1, x);
  case TOp::SphJ0: return std::isinf(x) ? 0 : x == 0 ? 1 : std::sin(x) / x;
  default: return kNaN;
  }
}

double binary(sem::TOp op, double a, double b) {
  using sem::TOp;
  switch (op) {
  case TOp::Hypot: return std::hypot(a, b);
  case TOp::Fmax: return std::fmax(a, b);
  case TOp::Fmin: return std::fmin(a, b);
  case TOp::Zeta: return hurwitzZeta(a, b);
  // Regularized lower and upper incomplete gamma P(a, x), Q(a, x), with ATen's
  // special cases in ATen's order (a NaN that reaches none of them is NaN).
  case TOp::Igamma:
  case TOp::Igammac: {
    bool lower = op == TOp::Igamma;
    double one = lower ? 1.0 : 0.0, zero = lower ? 0.0 : 1.0;  // P's values; Q = 1 - P
    if (b < 0 || a < 0) return kNaN;
    if (a == 0) return b > 0 ? one : kNaN;
    if (b == 0) return zero;
    if (std::isinf(a)) return std::isinf(b) ? kNaN : zero;
    if (std::isinf(b)) return one;
    return lower ? boost::math::gamma_p(a, b, Quiet()) : boost::math::gamma_q(a, b, Quiet());
  }
  default: return kNaN;
  }
}

}  // namespace torchtv::eval::special
