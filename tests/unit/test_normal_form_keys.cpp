// The data structures under the real normal form, made cheaper without
// changing what they compute: terms interned by structure (Note [Interning by
// structure]), term texts printed to a bound (Note [Bounded term printing]),
// keys' rationals spelled without boost where they fit in 64 bits, and split
// sums merged by a search that splits each monomial once (Note [Merging split
// sums cheaply]).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "src/sem/normal_form.h"
#include "src/sem/term.h"

using namespace torchtv;
using sem::IndexExpr;
using sem::TermPtr;
using sem::TOp;

TEST_CASE("interning: equal structure is one term, a difference in any one field is another") {
  sem::TermContext tc;
  int i = tc.vars.fresh(8, "i"), j = tc.vars.fresh(8, "j");
  auto read = [&](int slot, int var, DType d = DType::F32) { return tc.read(slot, {IndexExpr::var(var)}, d); };
  TermPtr x = read(0, i);
  CHECK(read(0, i) == x);
  CHECK(read(0, i, DType::F64) != x);
  CHECK(read(1, i) != x);
  CHECK(read(0, j) != x);
  CHECK(tc.read(0, {IndexExpr::var(i) + 1}, DType::F32) != x);
  // Constants by their bits: 0 and -0 are two terms, a NaN is one.
  CHECK(tc.constant(0.0, DType::F32) != tc.constant(-0.0, DType::F32));
  CHECK(tc.constant(NAN, DType::F32) == tc.constant(NAN, DType::F32));
  CHECK(tc.constant(1.0, DType::F32) != tc.constant(1.0, DType::F64));
  CHECK(tc.intConstant(3, DType::I64) != tc.intConstant(4, DType::I64));
  TermPtr y = read(1, i);
  CHECK(tc.make(TOp::Sub, {x, y}, DType::F32) == tc.make(TOp::Sub, {x, y}, DType::F32));
  CHECK(tc.make(TOp::Sub, {x, y}, DType::F32) != tc.make(TOp::Sub, {y, x}, DType::F32));
  CHECK(tc.make(TOp::Sub, {x, y}, DType::F32) != tc.make(TOp::Div, {x, y}, DType::F32));
  CHECK(tc.make(TOp::PowC, {x}, DType::F32, 2) != tc.make(TOp::PowC, {x}, DType::F32, 3));
  auto sum = [&](int extent, const std::string &origin) {
    int k = tc.vars.fresh(extent, "k");
    return tc.reduce(TOp::Sum, k, tc.read(0, {IndexExpr::var(k)}, DType::F32), DType::F32, origin);
  };
  CHECK(sum(8, "aten::sum") == sum(8, "aten::sum"));
  CHECK(sum(8, "aten::sum") != sum(4, "aten::sum"));
  CHECK(sum(8, "aten::sum") != sum(8, "aten::mean"));
  // Many terms: each new one a new id, each made again the same pointer.
  std::set<int> ids;
  std::vector<TermPtr> made;
  for (int n = 0; n < 5000; ++n) {
    made.push_back(tc.constant(n * 0.25, DType::F32));
    made.push_back(tc.read(2, {IndexExpr::var(i) + n}, DType::F32));
  }
  for (TermPtr t : made) ids.insert(t->id);
  CHECK(ids.size() == made.size());
  for (int n = 0; n < 5000; ++n) {
    CHECK(tc.constant(n * 0.25, DType::F32) == made[2 * n]);
    CHECK(tc.read(2, {IndexExpr::var(i) + n}, DType::F32) == made[2 * n + 1]);
  }
}

TEST_CASE("term printing: a bounded print is the full print's prefix") {
  sem::TermContext tc;
  int i = tc.vars.fresh(8, "i");
  TermPtr x = tc.read(0, {IndexExpr::var(i)}, DType::F32);
  // A DAG whose text doubles with each level.
  TermPtr t = x;
  for (int level = 0; level < 10; ++level) t = tc.make(TOp::Add, {t, tc.make(TOp::PowC, {t}, DType::F32, 0.5)}, DType::F32);
  int k = tc.vars.fresh(8, "k");
  TermPtr body = tc.make(TOp::Mul, {tc.cast(tc.read(1, {IndexExpr::var(k)}, DType::F16), DType::F32), t}, DType::F32);
  TermPtr s = tc.reduce(TOp::Sum, k, body, DType::F32, "aten::sum");
  for (TermPtr term : {x, t, s}) {
    std::string full = tc.str(term);
    for (size_t limit : {size_t(0), size_t(1), size_t(5), size_t(17), size_t(100), full.size() - 1, full.size(),
                         full.size() + 1}) {
      CAPTURE(limit);
      CHECK(tc.str(term, limit) == full.substr(0, limit));
    }
  }
  CHECK(tc.str(t).size() > 10000);
}

TEST_CASE("normal form keys: constants spelled exactly, small or not") {
  sem::TermContext tc;
  // exactRational spells "n/d" through boost; a key spells n for d = 1.
  auto expected = [](double v) {
    std::string r = sem::exactRational(v);
    if (r.size() > 2 && r.substr(r.size() - 2) == "/1") r.resize(r.size() - 2);
    return "{" + r + "*;}";
  };
  for (double v : {1.0, -1.0, 0.1, -0.3, 1e-30, 3.0e18, 9.2e18, -9.2e18, 9223372036854775807.0, -9223372036854775808.0,
                   1.8446744073709552e19, 1e300, -1e300, 5e-324, 0.5, 1024.0}) {
    CAPTURE(v);
    sem::NormalForm nf(tc);
    CHECK(nf.key(tc.constant(v, DType::F64)) == expected(v));
  }
  // An exponent: x^-0.5 and x^3 with their rationals.
  int i = tc.vars.fresh(8, "i");
  TermPtr x = tc.read(0, {IndexExpr::var(i)}, DType::F32);
  sem::NormalForm nf(tc);
  CHECK(nf.key(tc.make(TOp::Rsqrt, {x}, DType::F32)).find("^-1/2*") != std::string::npos);
  CHECK(nf.key(tc.make(TOp::Mul, {x, tc.make(TOp::Mul, {x, x}, DType::F32)}, DType::F32)).find("^3*") !=
        std::string::npos);
}

TEST_CASE("normal form: split sums merge, and only pairs that are one sum split") {
  sem::TermContext tc;
  // sum_{k<a} x[k] * w[k] + sum_{k<b} x[k + a] * w[k + a] = sum_{k<a+b} x[k] * w[k].
  auto dot = [&](int slotX, int offset, int extent) {
    int k = tc.vars.fresh(extent, "k");
    IndexExpr at = IndexExpr::var(k) + offset;
    TermPtr body = tc.make(TOp::Mul, {tc.read(slotX, {at}, DType::F32), tc.read(9, {at}, DType::F32)}, DType::F32);
    return tc.reduce(TOp::Sum, k, body, DType::F32, "aten::sum");
  };
  auto add = [&](TermPtr a, TermPtr b) { return tc.make(TOp::Add, {a, b}, DType::F32); };
  sem::NormalForm nf(tc);
  std::string whole = nf.key(dot(0, 0, 12));
  CHECK(nf.key(add(dot(0, 0, 4), dot(0, 4, 8))) == whole);
  CHECK(nf.key(add(dot(0, 4, 8), dot(0, 0, 4))) == whole);
  // Three parts, and other terms around them.
  TermPtr other = tc.read(5, {}, DType::F32);
  CHECK(nf.key(add(add(dot(0, 0, 4), other), add(dot(0, 8, 4), dot(0, 4, 4)))) == nf.key(add(dot(0, 0, 12), other)));
  // Not one sum split: another tensor, a gap, an overlap.
  CHECK(nf.key(add(dot(0, 0, 4), dot(1, 4, 8))) != whole);
  CHECK(nf.key(add(dot(0, 0, 4), dot(0, 5, 7))) != nf.key(dot(0, 0, 12)));
  CHECK(nf.key(add(dot(0, 0, 4), dot(0, 3, 9))) != whole);
}

TEST_CASE("index substitution: one pass gives the sum of the terms' images (Note [Substitution in one pass])") {
  sem::TermContext tc;
  int i = tc.vars.fresh(16, "i"), j = tc.vars.fresh(8, "j"), k = tc.vars.fresh(32, "k");
  IndexExpr vi = IndexExpr::var(i), vj = IndexExpr::var(j), vk = IndexExpr::var(k);
  // The images added one at a time: what substitute computed before.
  std::function<IndexExpr(const IndexExpr &, int, const IndexExpr &)> added = [&](const IndexExpr &e, int from,
                                                                                  const IndexExpr &to) {
    IndexExpr out = IndexExpr::constant(e.constantPart());
    for (const auto &[a, c] : e.terms()) {
      IndexExpr image;
      switch (a->kind) {
      case sem::IndexAtom::Kind::Var: image = a->var == from ? to : IndexExpr::var(a->var); break;
      case sem::IndexAtom::Kind::Div: image = added(*a->arg, from, to).floorDiv(a->divisor, tc.vars); break;
      case sem::IndexAtom::Kind::Mod: image = added(*a->arg, from, to).mod(a->divisor, tc.vars); break;
      }
      out = out + image * c;
    }
    return out;
  };
  std::vector<IndexExpr> exprs = {vi * 3 + vj + 2,
                                  (vi * 8 + vj).floorDiv(8, tc.vars) + (vi * 8 + vj).mod(8, tc.vars) * 5,
                                  (vk + vi * 32).floorDiv(4, tc.vars) * -2 + vi * 7,
                                  (vi * 16 + vk).mod(16, tc.vars) + vi,
                                  vi + vj * -1};
  std::vector<IndexExpr> tos = {vj, vi * -3 + vj, vk + 4, IndexExpr::constant(5), vi * 2};  // vi * 2: i appears again
  for (const IndexExpr &e : exprs)
    for (const IndexExpr &to : tos)
      for (int from : {i, j, k}) {
        CAPTURE(e.key());
        CAPTURE(to.key());
        CHECK(e.substitute(from, to, tc.vars).key() == added(e, from, to).key());
      }
  // Terms cancel: i + j with j := -i is 0.
  CHECK((vi + vj).substitute(j, vi * -1, tc.vars).key() == IndexExpr::constant(0).key());
}

TEST_CASE("keys of deeply nested atoms: the normal form gives up instead of exhausting memory") {
  // tanh(t*t + t) nested: each level's key spells its argument's monomials, each holding the
  // previous level's key, so the keys grow threefold per level (3^30 bytes at 30 levels). A
  // widened region of a deep network nests the same way (tests/browser/layers3_eps.tvir).
  sem::TermContext tc;
  int i = tc.vars.fresh(4, "i");
  TermPtr t = tc.read(0, {IndexExpr::var(i)}, DType::F32);
  for (int level = 0; level < 30; ++level) {
    TermPtr square = tc.make(TOp::Mul, {t, t}, DType::F32);
    t = tc.make(TOp::Tanh, {tc.make(TOp::Add, {square, t}, DType::F32)}, DType::F32);
  }
  sem::NormalForm nf(tc);
  CHECK_THROWS_WITH_AS(nf.key(t), doctest::Contains("nest too deeply"), sem::Unsupported);
}
