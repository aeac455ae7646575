#include "src/verify/self_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/eval/concrete.h"
#include "src/verify/refute.h"

namespace torchtv {

namespace {

bool bitEqual(long double a, long double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

SelfCheck selfCheck(const Graph &ref, const Graph &prod, const CheckResult &result) {
  SelfCheck sc;
  sc.ran = true;
  for (unsigned seed = 0; seed < 2; ++seed) {
    for (int kind = 0; kind < kInputKinds; ++kind) {
      std::vector<eval::EvalTensor> inputs;
      std::vector<eval::EvalTensor> rn, pn, rw, pw;
      try {
        inputs = randomInputs(ref, 1000 + seed, kind);
        rn = eval::evaluateGraph(ref, inputs, eval::Precision::Native);
        pn = eval::evaluateGraph(prod, inputs, eval::Precision::Native);
        if (kind != 5) {
          rw = eval::evaluateGraph(ref, inputs, eval::Precision::Wide);
          pw = eval::evaluateGraph(prod, inputs, eval::Precision::Wide);
        }
      } catch (const eval::EvalError &e) {
        if (kind == 5) continue;  // e.g. NaN converted to an integer
        sc.ran = false;
        sc.detail = std::string("could not evaluate: ") + e.what();
        return sc;
      }
      ++sc.runs;
      for (size_t o = 0; o < result.outputs.size(); ++o) {
        const OutputResult &out = result.outputs[o];
        if (out.verdict != Verdict::Equivalent) continue;
        bool bitwise = out.level == Level::Bitwise;
        if (!bitwise && kind == 5) continue;
        for (size_t i = 0; i < rn[o].values.size(); ++i) {
          bool ok;
          if (bitwise) {
            ok = bitEqual(rn[o].values[i], pn[o].values[i]);
          } else {
            long double a = rw[o].values[i], b = pw[o].values[i];
            long double scale = std::max<long double>({1.0L, std::fabs(a), std::fabs(b)});
            ok = (std::isnan(a) && std::isnan(b)) || std::fabs(a - b) <= 1e-9L * scale || a == b;
          }
          if (!ok) {
            sc.agreed = false;
            char buf[256];
            std::snprintf(buf, sizeof buf, "output %s element %zu (input kind %d): reference %.17Lg, production %.17Lg",
                          out.name.c_str(), i, kind, bitwise ? rn[o].values[i] : rw[o].values[i],
                          bitwise ? pn[o].values[i] : pw[o].values[i]);
            sc.detail = buf;
            return sc;
          }
        }
      }
    }
  }
  sc.detail = "agreed on " + std::to_string(sc.runs) + " seeded runs";
  return sc;
}

}  // namespace torchtv
