#include "src/verify/code_runs.h"

#include <cmath>
#include <exception>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/verify/verdict_table.h"

namespace torchtv {

namespace {

// The outputs refuted on the graphs, and those the code's runs refuted (Note [Verdict table]): the
// graphs' counterexample is run through the code for each. Only the former depend on what it shows;
// the latter keep their verdict, and their reason says whether the counterexample reproduced too.
std::vector<size_t> refutationsToRun(const CheckResult &result) {
  std::vector<size_t> out;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const OutputResult &o = result.outputs[i];
    if (o.verdict == Verdict::NotEquivalent && (refutedOnGraphs(o.code) || o.code == ReasonCode::RefutedByRunning))
      out.push_back(i);
  }
  return out;
}

// JSON has no NaN or infinity: the capture package reads these strings as floats.
nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

std::string codeRunRequest(const CheckResult &result, const std::vector<size_t> &refuted) {
  const Counterexample &cex = *result.counterexample;
  nlohmann::json inputs = nlohmann::json::array();
  for (const TensorValues &t : cex.inputs) {
    nlohmann::json values = nlohmann::json::array();
    for (double v : t.values) values.push_back(number(v));
    inputs.push_back({{"name", t.name}, {"type", t.type}, {"values", std::move(values)}});
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (size_t i : refuted) {
    nlohmann::json o = {{"name", result.outputs[i].name}, {"position", i}};
    o["index"] = result.outputs[i].name == cex.output ? nlohmann::json(cex.index) : nlohmann::json(nullptr);
    outputs.push_back(std::move(o));
  }
  return nlohmann::json{{"inputs", std::move(inputs)}, {"outputs", std::move(outputs)}}.dump();
}

namespace {

void notRun(CheckResult &result, const std::vector<size_t> &refuted, const std::string &why) {
  for (size_t i : refuted) {
    OutputResult &out = result.outputs[i];
    if (applyEvidence(out, Evidence::CodeNotRun))
      out.reason = std::string(reasons::kCodeNotRun) + " (" + why + "): " + out.reason;
  }
}

double valueOf(const nlohmann::json &v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return std::strtod(v.get<std::string>().c_str(), nullptr);  // "nan", "inf"
  return 0;
}

// The pair's counterexample names an output the code shows: the code's values
// where the counterexample's own output is not shown.
void pointCounterexampleAt(Counterexample &cex, const nlohmann::json &shown) {
  cex.output = shown.value("name", cex.output);
  if (shown.contains("index") && shown["index"].is_array()) {
    cex.index.clear();
    for (const auto &i : shown["index"]) cex.index.push_back(i.get<long long>());
    cex.referenceValue = valueOf(shown["reference"]);
    cex.productionValue = valueOf(shown["production"]);
  }
  cex.firstDifference.reset();  // localized for the other output
  cex.note += "; the values are the code's, run eagerly";
}

// Each refuted output of `result`, confirmed or made unknown by the code's reply.
void holdAgainstCode(CheckResult &result, const CodeRunner &run, const std::vector<size_t> &refuted) {
  if (!result.counterexample || result.counterexample->inputs.empty()) {
    notRun(result, refuted, "the counterexample kept no inputs");
    return;
  }
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(run(codeRunRequest(result, refuted)));
  } catch (const std::exception &e) {
    notRun(result, refuted, e.what());
    return;
  }
  if (!reply.is_object() || !reply.value("ran", false)) {
    notRun(result, refuted,
           reply.is_object() && reply.contains("why") && reply["why"].is_string() ? reply["why"].get<std::string>()
                                                                                  : "the capture package gave no answer");
    return;
  }
  Counterexample &cex = *result.counterexample;
  std::vector<bool> answered(result.outputs.size(), false);
  std::optional<nlohmann::json> shownElsewhere;  // an output the code shows, other than the counterexample's
  bool cexShown = false, cexRefuted = false;
  for (size_t i : refuted) cexRefuted = cexRefuted || result.outputs[i].name == cex.output;
  const nlohmann::json outputs = reply.value("outputs", nlohmann::json::array());
  for (const nlohmann::json &o : outputs) {
    const std::string name = o.value("name", "");
    for (size_t i : refuted) {
      OutputResult &out = result.outputs[i];
      if (out.name != name || answered[i]) continue;
      answered[i] = true;
      const std::string how = o.value("how", "");
      if (o.value("shows", false)) {
        out.reason += std::string("; ") + reasons::kReproducedOnTheCode + ": " + how;
        if (name == cex.output) cexShown = true;
        else if (!shownElsewhere) shownElsewhere = o;
      } else if (name != cex.output) {
        // Refuted on the graphs at another input (the pair keeps one counterexample's inputs):
        // that the code agrees here says nothing about the capture.
        if (applyEvidence(out, Evidence::CodeNotRun))
          out.reason = std::string(reasons::kRefutedOnAnotherInput) + cex.output + ", where this output agrees: " +
                       how + "): " + out.reason;
      } else if (applyEvidence(out, o.value("reference_raises", false) ? Evidence::ReferenceRaisesOnCode
                                                                         : Evidence::RefutationNotReproducedEagerly)) {
        out.reason = std::string(reasons::kCaptureIsNotTheCode) + ": " + how +
                     "; the capture is not the code that runs (on the graphs: " + out.reason + ")";
      }
    }
  }
  // An output the reply did not answer is not confirmed.
  for (size_t i : refuted)
    if (!answered[i]) notRun(result, {i}, "the capture package did not answer for this output");
  if (cexRefuted && !cexShown) {
    if (shownElsewhere) pointCounterexampleAt(cex, *shownElsewhere);
    else cex.note += std::string("; ") + reasons::kCaptureIsNotTheCode + " (kept as evidence)";
  }
}

}  // namespace

void applyCodeRuns(CheckResult &result, const CodeRunner &run) {
  if (!run) return;
  const std::vector<size_t> refuted = refutationsToRun(result);
  if (refuted.empty()) return;
  holdAgainstCode(result, run, refuted);
  result.reason.clear();
  summarize(result);
}

}  // namespace torchtv
