// What a capture saw by running the user's code eagerly (Note [Eager cross-check]
// in src/capture/torchtv_capture/eager.py). Plain data: read from capture.json
// (src/import/capture_json.cpp), held against the verdict by src/verify.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchtv {

struct EagerOutputCheck {
  std::string output;
  int draws = 0;              // inputs both functions ran on
  bool bitwiseEqual = true;   // bit-identical on every draw (NaN matches NaN)
  long long elementsDiffer = 0;
  double maxUlp = 0;
  // Set when float64 runs still differ: not rounding. Says on which input and by how much.
  std::optional<std::string> beyondRounding;
  // Set when rounding could be neither ruled in nor out (e.g. the code does not run in float64).
  std::optional<std::string> inconclusive;
  std::string firstDifference;  // "example_inputs(): element [0, 1] is a in reference, b in production"
};

struct EagerEvidence {
  bool ran = false;
  std::string why;     // when !ran
  std::string inputs;  // what the functions ran on
  // Ran at other shapes than the graphs' (a shape-only pair's small_inputs()):
  // such runs can refute, never weaken a bitwise claim (Note [Cross-checks]).
  bool reducedShapes = false;
  std::vector<EagerOutputCheck> outputs;

  const EagerOutputCheck *find(const std::string &output) const {
    for (const auto &o : outputs)
      if (o.output == output) return &o;
    return nullptr;
  }
};

// The suffix of the output that returns an input's value after the code ran,
// for inputs modified in place: NAME__updated (Note [Input mutations] in
// src/capture/torchtv_capture/export.py).
inline constexpr const char *kUpdatedSuffix = "__updated";

// What the capture learnt about the user's code besides its graphs.
struct CaptureEvidence {
  std::optional<EagerEvidence> eager;
  // Inputs each function modifies in place (Note [Input mutations] in
  // src/capture/torchtv_capture/export.py): the graphs return their updated
  // values as extra outputs named NAME__updated.
  std::vector<std::string> referenceMutates, productionMutates;
  // The graphs are a shape-only pair's, captured at its small_inputs() shapes
  // only, because its runs there refuted it (Note [Refuted before the
  // shape-only capture] in src/capture/torchtv_capture/capture.py): they may
  // refute, never prove.
  bool reducedOnly = false;
  // The pair file's ASSUME, as "NAME in [0, N)" texts over the graphs' input
  // names (Note [Declared input domains] in src/verify/input_domains.h).
  std::vector<std::string> declaredDomains;
  // What the capture warned of (its "warnings": a custom op without a FUSIONS entry, a FUSIONS
  // entry production never calls, an input the loss does not depend on, ...): shown with the
  // verdict, since each one can mean the pair does not check what its author meant.
  std::vector<std::string> warnings;
};

}  // namespace torchtv
