#include "src/verify/counterexample_replay.h"

#include <csignal>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

#include "src/torch/replay.h"
#include "src/util/subprocess.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

std::vector<ConcreteTensor> toConcrete(const std::vector<eval::EvalTensor> &inputs) {
  std::vector<ConcreteTensor> out;
  for (const eval::EvalTensor &t : inputs) {
    ConcreteTensor c{t.type, {}};
    for (long double v : t.values) c.values.push_back(static_cast<double>(v));
    out.push_back(std::move(c));
  }
  return out;
}

// Every NaN equals every NaN (README.md, verdicts); -0.0 and 0.0 differ only
// bitwise, and a counterexample shows a difference of values.
bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

size_t flatten(const Shape &shape, const std::vector<long long> &index) {
  size_t flat = 0;
  for (size_t k = 0; k < index.size() && k < shape.size(); ++k)
    flat = flat * static_cast<size_t>(shape[k].size()) + static_cast<size_t>(index[k]);
  return flat;
}

// The replay itself, in the child (Note [Replay isolation]).
ReplayOutcome replayHere(const Graph &reference, const Graph &production, const std::vector<eval::EvalTensor> &inputs,
                         size_t output, const std::vector<long long> &preferredIndex, const ReplayObserver *observer) {
  ReplayOutcome r;
  std::vector<ConcreteTensor> ref, prod;
  try {
    auto concrete = toConcrete(inputs);
    ref = replayGraph(reference, concrete, nullptr, observer);
    prod = replayGraph(production, concrete, nullptr, observer);
  } catch (const ReplayUnavailable &e) {
    r.kind = ReplayOutcome::Kind::Unavailable;
    r.detail = e.what();
    return r;
  } catch (const std::exception &e) {
    r.detail = e.what();
    return r;
  }
  const ConcreteTensor &a = ref.at(output), &b = prod.at(output);
  if (a.values.size() != b.values.size()) {
    r.detail = "LibTorch results of different sizes";
    return r;
  }
  size_t preferred = flatten(a.type.shape, preferredIndex);
  auto report = [&](size_t flat) {
    r.kind = ReplayOutcome::Kind::Replayed;
    r.index = eval::unflatten(a.type.shape, flat);
    r.referenceValue = a.values[flat];
    r.productionValue = b.values[flat];
    return r;
  };
  if (preferred < a.values.size() && !sameValue(a.values[preferred], b.values[preferred])) return report(preferred);
  for (size_t i = 0; i < a.values.size(); ++i)
    if (!sameValue(a.values[i], b.values[i])) return report(i);
  r.kind = ReplayOutcome::Kind::DidNotReplay;
  r.detail = "LibTorch computes equal values for this output on these inputs";
  return r;
}

// The child's answer: lines "at <node>" as it goes, then the outcome.
// Doubles as C99 hex floats (exact; strtod reads them, and inf and nan).
std::string hexDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string serialize(const ReplayOutcome &r) {
  std::ostringstream out;
  out << "outcome " << static_cast<int>(r.kind) << "\nindex";
  for (long long i : r.index) out << " " << i;
  out << "\nvalues " << hexDouble(r.referenceValue) << " " << hexDouble(r.productionValue) << "\ndetail ";
  for (char c : r.detail) out << (c == '\n' ? ' ' : c);
  out << "\n";
  return out.str();
}

std::string where(const Graph &g, const Node &n) {
  return n.op + (n.outputs.empty() ? "" : " (result %" + n.outputs[0]->name + ")") + " of @" + g.name();
}

ReplayOutcome crashed(const std::string &why) {
  ReplayOutcome r;
  r.kind = ReplayOutcome::Kind::Crashed;
  r.detail = why;
  return r;
}

// The parent's reading of a child's run.
ReplayOutcome readChild(const ProcessResult &p) {
  if (!p.started) return crashed("the replay process could not be started: " + p.error);
  std::istringstream in(p.out);
  std::string line, at;
  std::optional<ReplayOutcome> r;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "at") {
      at = line.substr(3);
    } else if (tag == "outcome") {
      int kind = -1;
      ls >> kind;
      if (kind < 0 || kind > static_cast<int>(ReplayOutcome::Kind::Crashed)) break;  // garbled: no outcome
      r = ReplayOutcome{};
      r->kind = static_cast<ReplayOutcome::Kind>(kind);
    } else if (tag == "index" && r) {
      long long i;
      while (ls >> i) r->index.push_back(i);
    } else if (tag == "values" && r) {
      std::string a, b;
      ls >> a >> b;
      r->referenceValue = std::strtod(a.c_str(), nullptr);
      r->productionValue = std::strtod(b.c_str(), nullptr);
    } else if (tag == "detail" && r) {
      r->detail = line.size() > 7 ? line.substr(7) : "";
    }
  }
  std::string during = at.empty() ? " before replaying any node" : " while replaying " + at;
  if (p.timedOut) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", kReplayTimeoutSeconds);
    return crashed(std::string(reasons::kReplayHung) + " " + secs + " s (stopped" + during + ")");
  }
  if (p.signal) {
    const char *abbrev = ::sigabbrev_np(p.signal);
    return crashed(std::string(reasons::kReplayCrashed) + " (" + (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(p.signal)) + ")" + during);
  }
  if (p.exitCode != 0 || !r)
    return crashed(std::string(reasons::kReplayDied) + " (exit " + std::to_string(p.exitCode) + ")" + during);
  return *r;
}

}  // namespace

ReplayOutcome replayOnOriginals(const Graph &reference, const Graph &production,
                                const std::vector<eval::EvalTensor> &inputs, size_t output,
                                const std::vector<long long> &preferredIndex) {
  try {
    loadReplay();  // here, once, so that the children inherit the module
  } catch (const ReplayUnavailable &e) {
    ReplayOutcome r;
    r.kind = ReplayOutcome::Kind::Unavailable;
    r.detail = e.what();
    return r;
  }
  const char *fault = std::getenv("TORCHTV_REPLAY_FAULT");
  bool injectCrash = fault && std::strcmp(fault, "sigsegv") == 0;
  ProcessResult p = runForked(
      [&](int fd) {
        setReplayThreads(1);
        ReplayObserver observe = [&](const Graph &g, const Node &n) {
          writeAll(fd, "at " + where(g, n) + "\n");
          if (injectCrash) std::raise(SIGSEGV);
        };
        writeAll(fd, serialize(replayHere(reference, production, inputs, output, preferredIndex, &observe)));
      },
      kReplayTimeoutSeconds);
  return readChild(p);
}

ReplayedOutputs replayBoth(const Graph &reference, const Graph &production,
                           const std::vector<eval::EvalTensor> &inputs) {
  ReplayedOutputs r;
  try {
    loadReplay();
  } catch (const ReplayUnavailable &e) {
    r.why = e.what();
    return r;
  }
  // The child writes one line per output, "R" or "P" then its values as hex
  // floats, or one line "error WHY".
  ProcessResult p = runForked(
      [&](int fd) {
        setReplayThreads(1);
        try {
          auto concrete = toConcrete(inputs);
          for (auto [tag, graph] : {std::pair<char, const Graph *>{'R', &reference}, {'P', &production}}) {
            for (const ConcreteTensor &t : replayGraph(*graph, concrete)) {
              std::string line(1, tag);
              for (double v : t.values) line += " " + hexDouble(v);
              writeAll(fd, line + "\n");
            }
          }
        } catch (const ReplayError &e) {
          std::string why = e.what();
          for (char &c : why)
            if (c == '\n') c = ' ';
          writeAll(fd, "error " + why + "\n");
        }
      },
      kReplayTimeoutSeconds);
  if (!p.started || p.timedOut || p.signal || p.exitCode != 0) {
    r.why = readChild(p).detail;
    return r;
  }
  std::istringstream in(p.out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("error ", 0) == 0) {
      r.why = line.substr(6);
      return r;
    }
    std::istringstream ls(line);
    char tag = 0;
    ls >> tag;
    std::vector<double> values;
    for (std::string v; ls >> v;) values.push_back(std::strtod(v.c_str(), nullptr));
    (tag == 'R' ? r.reference : r.production).push_back(std::move(values));
  }
  return r;
}

}  // namespace torchtv
