#include "src/verify/self_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "src/eval/concrete.h"
#include "src/verify/refute.h"
#include "src/verify/counterexample_replay.h"
#include "src/verify/value_difference.h"

namespace torchtv {

namespace {


std::string describe(const char *what, const std::string &output, size_t i, const std::string &inputs, long double a,
                     long double b) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s: output %s element %zu (%s): reference %.17Lg, production %.17Lg", what,
                output.c_str(), i, inputs.c_str(), a, b);
  return buf;
}

// Records a bit difference of one element in `c` (the first one described).
void noteBitDifference(EagerOutputCheck &c, const std::string &where, long double a, long double b) {
  c.bitwiseEqual = false;
  ++c.elementsDiffer;
  if (c.firstDifference.empty()) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: reference %.17Lg, production %.17Lg", where.c_str(), a, b);
    c.firstDifference = buf;
  }
}

}  // namespace

SelfCheck selfCheck(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                    const CheckResult &result, EagerEvidence &runs) {
  SelfCheck sc;
  sc.ran = true;
  runs = EagerEvidence{};
  runs.ran = true;
  for (const OutputResult &out : result.outputs) {
    EagerOutputCheck c;
    c.output = out.name;
    runs.outputs.push_back(c);
  }
  auto note = [&](const std::string &detail) {
    if (sc.agreed) sc.detail = detail;
    sc.agreed = false;
  };
  bool anyBitwise = std::any_of(result.outputs.begin(), result.outputs.end(), [](const OutputResult &o) {
    return o.verdict == Verdict::Equivalent && o.level == Level::Bitwise;
  });
  bool replayed = false;
  std::string replayProblem;
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
        runs = EagerEvidence{};
        return sc;
      }
      ++sc.runs;
      std::string label = "seed " + std::to_string(seed) + ", input kind " + std::to_string(kind);
      // LibTorch's kernels on the original graphs, for bitwise claims (once per input kind, seed 0).
      std::vector<std::vector<double>> rt, pt;
      if (anyBitwise && seed == 0 && replayProblem.empty()) {
        ReplayedOutputs run = replayBoth(origRef, origProd, inputs);
        if (run.why.empty()) {
          rt = std::move(run.reference);
          pt = std::move(run.production);
          replayed = true;
        } else if (kind != 5) {
          replayProblem = run.why;
        }
      }
      for (size_t o = 0; o < result.outputs.size(); ++o) {
        const OutputResult &out = result.outputs[o];
        if (out.verdict != Verdict::Equivalent) continue;
        EagerOutputCheck &c = runs.outputs[o];
        bool bitwise = out.level == Level::Bitwise;
        if (!bitwise && kind == 5) continue;
        ++c.draws;
        for (size_t i = 0; i < rn[o].values.size(); ++i) {
          if (bitwise) {
            if (!eval::bitEqual(rn[o].values[i], pn[o].values[i])) {
              note(describe("torchtv's evaluator", out.name, i, label, rn[o].values[i], pn[o].values[i]));
              noteBitDifference(c, "evaluator, " + label + ", element " + std::to_string(i), rn[o].values[i],
                                pn[o].values[i]);
            }
          } else {
            long double a = rw[o].values[i], b = pw[o].values[i];
            bool ok = !differ::selfCheckDiffer(a, b);  // Note [When values differ], row 4
            if (!ok && !c.beyondRounding) {
              std::string d = describe("torchtv's evaluator (long double)", out.name, i, label, a, b);
              note(d);
              c.beyondRounding = d;
            }
          }
        }
        if (bitwise && o < rt.size() && o < pt.size() && rt[o].size() == pt[o].size())
          for (size_t i = 0; i < rt[o].size(); ++i)
            if (!eval::bitEqual(rt[o][i], pt[o][i])) {
              note(describe("LibTorch's kernels", out.name, i, label, rt[o][i], pt[o][i]));
              noteBitDifference(c, "LibTorch, " + label + ", element " + std::to_string(i), rt[o][i], pt[o][i]);
            }
      }
    }
  }
  if (sc.agreed) {
    sc.detail = "agreed on " + std::to_string(sc.runs) + " seeded runs";
    if (replayed) sc.detail += ", bitwise outputs also through LibTorch's kernels";
    else if (!replayProblem.empty()) sc.detail += "; not replayed through LibTorch: " + replayProblem;
  }
  return sc;
}

}  // namespace torchtv
