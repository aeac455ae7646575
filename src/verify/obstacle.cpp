#include "src/verify/obstacle.h"

#include <algorithm>

#include <spdlog/fmt/fmt.h>

#include "ir/op_registry.h"
#include "src/sem/term.h"
#include "src/smt/query.h"

namespace torchtv {

namespace {

// Note [What would decide it]: what the user could change, most decisive first; an obstacle's
// remedy is the first row that lists it. `{ops}` is the obstacles' subjects, `{why}` their
// `because` texts, `{rlimit}`, `{memory}` and `{timeout}` this run's settings.
struct Cause {
  Obstacle what;
  const char *because;  // for {why}
};
struct Remedy {
  std::vector<Cause> causes;
  const char *text;
};
const Remedy kRemedies[] = {
    {{{Obstacle::NoSemantics, ""}},
     "a definition of {ops} in terms of ops torchtv knows, in a --fusions folder (docs/tvir.md): torchtv has no "
     "semantics for it"},
    {{{Obstacle::NoDefinition, ""}},
     "a definition of {ops}: the pair file's FUSIONS, or a .tvir file in a --fusions folder (docs/tvir.md)"},
    {{{Obstacle::DefinitionMisfit, ""}}, "a definition of {ops} whose header fits this call (the reason says what does not)"},
    {{{Obstacle::TooLarge, "the terms to compare pass torchtv's size limits"},
      {Obstacle::QueryTime, "a Z3 query ran past its time guard"}},
     "smaller shapes in example_inputs() ({why} at these)"},
    {{{Obstacle::SolverResources, ""}}, "a larger --rlimit (this run: {rlimit}) lets Z3 work longer on each query"},
    {{{Obstacle::SolverMemory, ""}}, "a larger --solver-memory (this run: {memory} MiB)"},
    {{{Obstacle::CheckTimeLimit, ""}}, "a larger --timeout (this run: {timeout} s)"},
};

bool isMeaning(Obstacle o) {
  return o == Obstacle::NoSemantics || o == Obstacle::NoDefinition || o == Obstacle::DefinitionMisfit;
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

}  // namespace

void addBlocker(std::vector<Blocker> &to, Blocker b) {
  if (std::find(to.begin(), to.end(), b) == to.end()) to.push_back(std::move(b));
}

void addBlocker(std::vector<Blocker> &to, const sem::Unsupported &e) {
  switch (e.gap) {
  case sem::Gap::NoSemantics:  // an op torchtv's registry knows (ATen) has no semantics; any other op, no definition
    return addBlocker(to, {lookupOp(e.subject) ? Obstacle::NoSemantics : Obstacle::NoDefinition, e.subject});
  case sem::Gap::TooLarge: return addBlocker(to, {Obstacle::TooLarge, ""});
  case sem::Gap::TimeLimit: return addBlocker(to, {Obstacle::CheckTimeLimit, ""});
  case sem::Gap::Other: return;
  }
}

void addBlocker(std::vector<Blocker> &to, smt::Limit limit) {
  switch (limit) {
  case smt::Limit::Resources: return addBlocker(to, {Obstacle::SolverResources, ""});
  case smt::Limit::Memory: return addBlocker(to, {Obstacle::SolverMemory, ""});
  case smt::Limit::Time: return addBlocker(to, {Obstacle::QueryTime, ""});
  case smt::Limit::None: return;
  }
}

std::string whatWouldDecide(const std::vector<Blocker> &blockers, const HintSettings &settings) {
  // Every op without a meaning needs one (joined by "and"); the budgets are alternatives ("or").
  bool lacksMeaning = std::any_of(blockers.begin(), blockers.end(), [](const Blocker &b) { return isMeaning(b.what); });
  std::string text;
  for (const Remedy &r : kRemedies) {
    std::string ops, why;
    bool seen = false;
    for (const Cause &c : r.causes) {
      if (lacksMeaning != isMeaning(c.what)) continue;
      bool here = false;
      for (const Blocker &b : blockers) {
        if (b.what != c.what) continue;
        here = true;
        if (!b.subject.empty()) ops += (ops.empty() ? "" : ", ") + b.subject;
      }
      if (here && *c.because) why += (why.empty() ? "" : "; ") + std::string(c.because);
      seen = seen || here;
    }
    if (!seen) continue;
    std::string line = r.text;
    replaceAll(line, "{ops}", ops.empty() ? "the op" : ops);
    replaceAll(line, "{why}", why);
    replaceAll(line, "{rlimit}", std::to_string(settings.rlimit));
    replaceAll(line, "{memory}", std::to_string(settings.solverMemoryMB));
    replaceAll(line, "{timeout}", fmt::format("{:g}", settings.timeoutSeconds));  // as the watchdog's reason
    text += (text.empty() ? "" : lacksMeaning ? "; and " : "; or ") + line;
  }
  return text;
}

}  // namespace torchtv
