// Normal forms compared element by element (Note [Normal forms element by element]), and the
// rules they needed on real code: powers and logarithms of other bases (Note [Powers and
// logarithms of other bases]), exclusive indicators (Note [Exclusive indicators]) and
// exp(log P) for a positive sum P.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "src/sem/element_terms.h"
#include "src/sem/normal_form.h"
#include "src/sem/term.h"

using namespace torchtv;
using sem::IndexExpr;
using sem::TermPtr;
using sem::TOp;

namespace {

const DType F = DType::F32;

// sum over k in [0, n) of body(k), a fresh binder.
TermPtr sumOver(sem::TermContext &tc, int64_t n, const std::function<TermPtr(const IndexExpr &)> &body) {
  int k = tc.vars.fresh(n, "k");
  return tc.reduce(TOp::Sum, k, body(IndexExpr::var(k)), F, "aten::sum");
}

TermPtr add(sem::TermContext &tc, TermPtr a, TermPtr b) { return tc.make(TOp::Add, {a, b}, F); }
TermPtr mul(sem::TermContext &tc, TermPtr a, TermPtr b) { return tc.make(TOp::Mul, {a, b}, F); }

}  // namespace

TEST_CASE("element by element: a prefix sum written as chunk sums is the running sum") {
  // out[t] = sum_{s <= t} x[s] * y[s] over 8 positions, against chunks of 4: the sum of the
  // earlier chunks' totals (a cumulative sum over chunks) plus the chunk's own prefix.
  sem::TermContext tc;
  int t = tc.vars.fresh(8, "t");
  IndexExpr T = IndexExpr::var(t);
  auto xy = [&](const IndexExpr &s) { return mul(tc, tc.read(0, {s}, F), tc.read(1, {s}, F)); };
  auto upTo = [&](const IndexExpr &s, const IndexExpr &limit) {  // s <= limit ? xy(s) : 0
    return tc.select(tc.indexCmp(sem::IndexCmpKind::Le, s, limit), xy(s), tc.constant(0, F));
  };
  TermPtr running = sumOver(tc, 8, [&](const IndexExpr &s) { return upTo(s, T); });
  IndexExpr chunk = T.floorDiv(4, tc.vars), within = T.mod(4, tc.vars);
  TermPtr earlier = sumOver(tc, 2, [&](const IndexExpr &c) {
    TermPtr total = sumOver(tc, 4, [&](const IndexExpr &j) { return xy(c * 4 + j); });
    return tc.select(tc.indexCmp(sem::IndexCmpKind::Lt, c, chunk), total, tc.constant(0, F));
  });
  TermPtr own = sumOver(tc, 4, [&](const IndexExpr &j) {
    return tc.select(tc.indexCmp(sem::IndexCmpKind::Le, j, within), xy(chunk * 4 + j), tc.constant(0, F));
  });
  TermPtr chunked = add(tc, earlier, own);
  // The symbolic normal form keeps sums over different ranges apart.
  sem::NormalForm nf(tc);
  CHECK(nf.key(running) != nf.key(chunked));
  sem::ElementComparison same = sem::compareElementByElement(tc, running, chunked, {});
  CHECK(same.equal);
  // A planted off-by-one (the chunk's own prefix stops one short) differs, and at which element.
  TermPtr shortOwn = sumOver(tc, 4, [&](const IndexExpr &j) {
    return tc.select(tc.indexCmp(sem::IndexCmpKind::Lt, j, within), xy(chunk * 4 + j), tc.constant(0, F));
  });
  sem::ElementComparison differ = sem::compareElementByElement(tc, running, add(tc, earlier, shortOwn), {});
  CHECK_FALSE(differ.equal);
  CHECK(differ.differingElement == "[0]");
}

TEST_CASE("element by element: limits and symbolic sizes are Unsupported, never a verdict") {
  sem::TermContext tc;
  int i = tc.vars.fresh(100, "i"), j = tc.vars.fresh(100, "j");
  TermPtr x = tc.read(0, {IndexExpr::var(i), IndexExpr::var(j)}, F);
  sem::ElementLimits small;
  small.maxElements = 1000;
  CHECK_THROWS_AS(sem::compareElementByElement(tc, x, x, small), sem::Unsupported);
  int b = tc.vars.fresh(Dim::symbol("B"), "b");
  TermPtr y = tc.read(1, {IndexExpr::var(b)}, F);
  CHECK_THROWS_AS(sem::compareElementByElement(tc, y, y, {}), sem::Unsupported);
  // A caller's match for keys that differ (constants within rounding) is asked, and counts.
  TermPtr a = mul(tc, tc.read(2, {IndexExpr::var(i)}, F), tc.constant(0.5, F));
  TermPtr c = mul(tc, tc.read(2, {IndexExpr::var(i)}, F), tc.constant(0.25, F));
  int asked = 0;
  auto accept = [&](const std::string &, const std::string &) { return ++asked > 0; };
  CHECK(sem::compareElementByElement(tc, a, c, {}, accept).equal);
  CHECK(asked == 100);
  CHECK_FALSE(sem::compareElementByElement(tc, a, c, {}).equal);
}

TEST_CASE("normal form: exp2, log2 and pow of constants are exact") {
  sem::TermContext tc;
  TermPtr y = tc.read(0, {}, F);
  auto key = [&](TermPtr t) {
    sem::NormalForm nf(tc);
    return nf.key(t);
  };
  TermPtr gamma = tc.make(TOp::Sub, {tc.constant(1, F), tc.make(TOp::PowT, {tc.constant(2, F), tc.constant(-5, F)}, F)}, F);
  CHECK(key(gamma) == key(tc.constant(31.0 / 32, F)));
  // exp2(3 * log2(gamma)) = gamma^3, exactly.
  TermPtr viaLogs = tc.make(TOp::Exp2, {mul(tc, tc.constant(3, F), tc.make(TOp::Log2, {gamma}, F))}, F);
  CHECK(key(viaLogs) == key(tc.constant(29791.0 / 32768, F)));
  // exp2(0) = 1, and pow(y, 2) = y * y; pow(y, 0.5) stays a function of y.
  CHECK(key(tc.make(TOp::Exp2, {tc.constant(0, F)}, F)) == key(tc.constant(1, F)));
  CHECK(key(tc.make(TOp::PowT, {y, tc.constant(2, F)}, F)) == key(mul(tc, y, y)));
  CHECK(key(tc.make(TOp::PowT, {y, tc.constant(0.5, F)}, F)) != key(tc.make(TOp::Sqrt, {y}, F)));
  // A wrong base is no identity: exp2(3 * log2(gamma)) is not gamma^2.
  CHECK(key(viaLogs) != key(mul(tc, gamma, gamma)));
}

TEST_CASE("normal form: [x == 1] * [x == 2] is 0, [x == 1] * [x == 1] is [x == 1]") {
  sem::TermContext tc;
  TermPtr x = tc.read(0, {}, DType::I64);
  auto is = [&](int64_t k) { return tc.make(TOp::Eq, {x, tc.intConstant(k, DType::I64)}, DType::I64); };
  auto key = [&](TermPtr t) {
    sem::NormalForm nf(tc);
    return nf.key(t);
  };
  TermPtr one = tc.cast(is(1), F), two = tc.cast(is(2), F);
  CHECK(key(mul(tc, one, two)) == key(tc.constant(0, F)));
  CHECK(key(mul(tc, one, one)) == key(one));
  // Tests of two different values are not exclusive.
  TermPtr z = tc.read(1, {}, DType::I64);
  TermPtr other = tc.cast(tc.make(TOp::Eq, {z, tc.intConstant(2, DType::I64)}, DType::I64), F);
  CHECK(key(mul(tc, one, other)) != key(tc.constant(0, F)));
  // Integer tests of constants the dtype holds are decided (a count written out is a constant).
  TermPtr onePlusOne = tc.make(TOp::Add, {tc.intConstant(1, DType::I64), tc.intConstant(1, DType::I64)}, DType::I64);
  CHECK(key(tc.cast(tc.make(TOp::Eq, {onePlusOne, tc.intConstant(2, DType::I64)}, DType::I64), F)) == key(tc.constant(1, F)));
  CHECK(key(tc.cast(tc.make(TOp::Lt, {onePlusOne, tc.intConstant(2, DType::I64)}, DType::I64), F)) == key(tc.constant(0, F)));
  // A chain of selects over K classes is K monomials, not 2^K.
  TermPtr v = tc.constant(0, F);
  for (int k = 40; k-- > 0;) v = tc.select(is(k), tc.read(2, {IndexExpr::constant(k)}, F), v);
  CHECK_NOTHROW(key(v));
}

TEST_CASE("normal form: exp(log(sum of exps)) is the sum; a sum that may be 0 is not") {
  sem::TermContext tc;
  auto key = [&](TermPtr t) {
    sem::NormalForm nf(tc);
    return nf.key(t);
  };
  TermPtr e0 = tc.make(TOp::Exp, {tc.read(0, {IndexExpr::constant(0)}, F)}, F);
  TermPtr e1 = tc.make(TOp::Exp, {tc.read(0, {IndexExpr::constant(1)}, F)}, F);
  TermPtr s = add(tc, e0, e1);
  // log_softmax then exp, against softmax: exp(x0 - log(s)) = x0's exp / s.
  TermPtr viaLog = tc.make(TOp::Exp, {tc.make(TOp::Sub, {tc.read(0, {IndexExpr::constant(0)}, F), tc.make(TOp::Log, {s}, F)}, F)}, F);
  CHECK(key(viaLog) == key(tc.make(TOp::Div, {e0, s}, F)));
  // y0 + y1 may be 0 or negative: exp(log(y0 + y1)) stays as written.
  TermPtr y = add(tc, tc.read(1, {IndexExpr::constant(0)}, F), tc.read(1, {IndexExpr::constant(1)}, F));
  CHECK(key(tc.make(TOp::Exp, {tc.make(TOp::Log, {y}, F)}, F)) != key(y));
}

TEST_CASE("normal form: indicators of every point of an assumed range sum to 1, and only then") {
  sem::TermContext tc;
  TermPtr t = tc.read(0, {IndexExpr::constant(2)}, DType::I64);
  TermPtr w = tc.read(1, {IndexExpr::constant(0)}, F);
  auto is = [&](int64_t k) { return tc.cast(tc.make(TOp::Eq, {t, tc.intConstant(k, DType::I64)}, DType::I64), F); };
  // 0.25 * w * sum_k [t == k] over the points given, written out as an autograd backward does.
  auto spread = [&](std::vector<int64_t> points) {
    TermPtr acc = tc.constant(0, F);
    for (int64_t k : points) acc = add(tc, acc, mul(tc, tc.constant(0.25, F), mul(tc, w, is(k))));
    return acc;
  };
  TermPtr quarterW = mul(tc, tc.constant(0.25, F), w);
  auto key = [&](TermPtr x, const sem::IndexRanges *ranges) {
    sem::NormalForm nf(tc, ranges);
    return nf.key(x);
  };
  sem::IndexRanges classes{{0, sem::IndexRange{3, {}}}};
  CHECK(key(spread({0, 1, 2}), &classes) == key(quarterW, &classes));
  CHECK(key(spread({2, 0, 1}), &classes) == key(quarterW, &classes));
  // Without the range assumed, or with a point missing, or the range of another tensor: no rule.
  CHECK(key(spread({0, 1, 2}), nullptr) != key(quarterW, nullptr));
  CHECK(key(spread({0, 1}), &classes) != key(quarterW, &classes));
  sem::IndexRanges otherSlot{{1, sem::IndexRange{3, {}}}};
  CHECK(key(spread({0, 1, 2}), &otherSlot) != key(quarterW, &otherSlot));
  // Different coefficients: 0.25 w [t == 0] + 0.5 w [t == 1] + 0.25 w [t == 2] is not 0.25 w.
  TermPtr uneven = add(tc, spread({0, 2}), mul(tc, tc.constant(0.5, F), mul(tc, w, is(1))));
  CHECK(key(uneven, &classes) != key(quarterW, &classes));
  // A point the reference also accepts (ignore_index -100) belongs to the range: without its
  // indicator the others do not cover it; with it they do.
  sem::IndexRanges withIgnore{{0, sem::IndexRange{3, {-100}}}};
  CHECK(key(spread({0, 1, 2}), &withIgnore) != key(quarterW, &withIgnore));
  CHECK(key(spread({0, 1, 2, -100}), &withIgnore) == key(quarterW, &withIgnore));
  // Element by element, the range given is the range used.
  sem::ElementComparison covered = sem::compareElementByElement(tc, spread({0, 1, 2}), quarterW, {}, nullptr, &classes);
  CHECK(covered.equal);
  CHECK_FALSE(sem::compareElementByElement(tc, spread({0, 1, 2}), quarterW, {}).equal);
}

TEST_CASE("normal form: log of a sum with a positive common factor splits it off") {
  sem::TermContext tc;
  auto key = [&](TermPtr t) {
    sem::NormalForm nf(tc);
    return nf.key(t);
  };
  auto x = [&](int64_t i) { return tc.read(0, {IndexExpr::constant(i)}, F); };
  TermPtr m = tc.read(1, {}, F);
  auto shiftedExp = [&](int64_t i) { return tc.make(TOp::Exp, {tc.make(TOp::Sub, {x(i), m}, F)}, F); };
  TermPtr sumExp = add(tc, tc.make(TOp::Exp, {x(0)}, F), tc.make(TOp::Exp, {x(1)}, F));
  // log(sum_j exp(x_j - m)) = log(sum_j exp(x_j)) - m: a log-softmax of x - max against one of x.
  TermPtr shifted = tc.make(TOp::Log, {add(tc, shiftedExp(0), shiftedExp(1))}, F);
  CHECK(key(shifted) == key(tc.make(TOp::Sub, {tc.make(TOp::Log, {sumExp}, F), m}, F)));
  // log(1 / P) = -log(P) for a positive sum P, whichever way P is written.
  TermPtr inverse = tc.make(TOp::Log, {tc.make(TOp::Div, {tc.constant(1, F), sumExp}, F)}, F);
  CHECK(key(inverse) == key(tc.make(TOp::Neg, {tc.make(TOp::Log, {sumExp}, F)}, F)));
  // A factor not known positive stays inside: log(y * (e0 + e1)) is not log(y) + log(e0 + e1).
  TermPtr y = tc.read(2, {}, F);
  TermPtr scaled = tc.make(TOp::Log, {mul(tc, y, sumExp)}, F);
  CHECK(key(scaled) != key(add(tc, tc.make(TOp::Log, {y}, F), tc.make(TOp::Log, {sumExp}, F))));
}

TEST_CASE("element by element: a tensor one side reads alone is read as its definition") {
  // Note [Frontier reads on one side]: a[t] = exp(x[t]) * s[t], where s (slot 5) is the merged
  // state, b[t] = exp(x[t]) * (y[t] + 1); s's definition is y + 1. Without the definitions the
  // forms differ; with them they agree, and the comparison says it expanded.
  sem::TermContext tc;
  int t = tc.vars.fresh(4, "t");
  IndexExpr T = IndexExpr::var(t);
  auto ex = [&](sem::TermContext &c, const IndexExpr &i) { return c.make(TOp::Exp, {c.read(0, {i}, F)}, F); };
  TermPtr a = mul(tc, ex(tc, T), tc.read(5, {T}, F));
  TermPtr b = mul(tc, ex(tc, T), add(tc, tc.read(1, {T}, F), tc.constant(1, F)));
  sem::ElementLimits limits;
  CHECK_FALSE(sem::compareElementByElement(tc, a, b, limits).equal);
  int asked = 0;
  sem::ExpandRead expand = [&](sem::TermContext &c, int slot, const std::vector<IndexExpr> &idx,
                               bool indexMapsOnly) -> TermPtr {
    ++asked;
    if (slot != 5 || indexMapsOnly) return nullptr;  // s is an addition, no index map
    return add(c, c.read(1, idx, F), c.constant(1, F));
  };
  sem::ElementComparison cmp = sem::compareElementByElement(tc, a, b, limits, nullptr, nullptr, expand);
  CHECK(cmp.equal);
  CHECK(cmp.expanded);
  CHECK(asked > 0);
  // A definition that computes something else still differs.
  sem::ExpandRead wrong = [&](sem::TermContext &c, int slot, const std::vector<IndexExpr> &idx,
                              bool indexMapsOnly) -> TermPtr {
    if (slot != 5 || indexMapsOnly) return nullptr;
    return add(c, c.read(1, idx, F), c.constant(2, F));
  };
  CHECK_FALSE(sem::compareElementByElement(tc, a, b, limits, nullptr, nullptr, wrong).equal);
}
