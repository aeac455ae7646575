#include "src/verify/counterexample_replay.h"

#include <csignal>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

#include "src/torch/replay.h"
#include "src/util/subprocess.h"
#include "src/verify/value_difference.h"
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

// Note [When values differ], row 2: every NaN equals every NaN (README.md, verdicts); -0.0 and 0.0
// differ only bitwise, and a counterexample shows a difference of values.
bool sameValue(double a, double b) { return !differ::replayedDiffer(a, b); }

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
  // Note [Replay outcomes fail closed]: which side raised, and how, is the outcome's kind.
  auto replaySide = [&](const Graph &g, std::vector<ConcreteTensor> &out, ReplayOutcome::Kind raised) {
    try {
      out = replayGraph(g, toConcrete(inputs), nullptr, observer);
      return true;
    } catch (const ReplayUnavailable &e) {
      r.kind = ReplayOutcome::Kind::Unavailable;
      r.detail = e.what();
    } catch (const ReplayOpMissing &e) {
      r.kind = ReplayOutcome::Kind::OpMissing;
      r.detail = e.what();
    } catch (const ReplayKernelRaised &e) {
      r.kind = raised;
      r.detail = e.what();
    } catch (const std::exception &e) {
      r.kind = ReplayOutcome::Kind::Failed;
      r.detail = e.what();
    }
    return false;
  };
  if (!replaySide(reference, ref, ReplayOutcome::Kind::ReferenceRaised) ||
      !replaySide(production, prod, ReplayOutcome::Kind::ProductionRaised))
    return r;
  const ConcreteTensor &a = ref.at(output), &b = prod.at(output);
  if (a.values.size() != b.values.size()) {
    r.kind = ReplayOutcome::Kind::Failed;
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

namespace {

// Both graphs replayed in a child: the outputs (in order, named "#0", "#1", ...), or with
// `everyValue` every value by name. The child writes one line per tensor, "R" or "P", its name,
// then its values as hex floats, or one line "error WHY".
ReplayedValues replayForked(const Graph &reference, const Graph &production,
                            const std::vector<eval::EvalTensor> &inputs, bool everyValue) {
  ReplayedValues r;
  try {
    loadReplay();
  } catch (const ReplayUnavailable &e) {
    r.why = e.what();
    return r;
  }
  ProcessResult p = runForked(
      [&](int fd) {
        setReplayThreads(1);
        auto write = [&](char tag, const std::string &name, const ConcreteTensor &t) {
          std::string line = std::string(1, tag) + " " + name;
          for (double v : t.values) line += " " + hexDouble(v);
          writeAll(fd, line + "\n");
        };
        try {
          auto concrete = toConcrete(inputs);
          for (auto [tag, graph] : {std::pair<char, const Graph *>{'R', &reference}, {'P', &production}}) {
            std::map<const Value *, ConcreteTensor> trace;
            std::vector<ConcreteTensor> outs = replayGraph(*graph, concrete, everyValue ? &trace : nullptr);
            for (size_t i = 0; i < outs.size(); ++i) write(tag, "#" + std::to_string(i), outs[i]);
            for (const auto &[v, t] : trace) write(tag, v->name, t);
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
  // Names to types: the values as the graphs declare them.
  std::map<std::string, TensorType> types[2];
  for (int side = 0; side < 2; ++side) {
    const Graph &g = side ? production : reference;
    for (const Value *v : g.inputs()) types[side][v->name] = v->type;
    for (const auto &n : g.nodes())
      for (const Value *v : n->outputs) types[side][v->name] = v->type;
    for (size_t i = 0; i < g.outputs().size(); ++i) types[side]["#" + std::to_string(i)] = g.outputs()[i]->type;
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
    std::string name;
    ls >> tag >> name;
    const int side = tag == 'P';
    eval::EvalTensor t{types[side][name], {}};
    for (std::string v; ls >> v;) t.values.push_back(std::strtod(v.c_str(), nullptr));
    (side ? r.production : r.reference)[name] = std::move(t);
  }
  return r;
}

// Beyond rounding, as Note [Counterexamples through LibTorch] says: the first element of `b`
// that differs from `a`'s.
std::optional<size_t> differsBeyondRounding(const eval::EvalTensor &a, const eval::EvalTensor &b) {
  if (a.values.size() != b.values.size()) return std::nullopt;
  long double scale = 1;
  for (long double v : a.values)
    if (std::isfinite(static_cast<double>(v))) scale = std::max(scale, std::fabs(v));
  const DType dt = a.type.dtype;
  const double rel = differ::replayTolerance(dt);  // Note [When values differ], row 3
  for (size_t k = 0; k < a.values.size(); ++k) {
    long double x = a.values[k], y = b.values[k];
    if (std::isnan(static_cast<double>(x)) && std::isnan(static_cast<double>(y))) continue;
    if (x == y) continue;
    if (!(std::fabs(x - y) <= rel * scale)) return k;  // NaN against a number, inf against finite
  }
  return std::nullopt;
}

class ReplayConfirmer : public CounterexampleConfirmer {
public:
  ReplayConfirmer(const Graph &reference, const Graph &production) : reference_(reference), production_(production) {}
  // The graphs given are the compared ones; the replay runs the originals, whose inputs are the same.
  std::optional<ConfirmedDifference> confirm(const Graph &, const Graph &, const std::vector<eval::EvalTensor> &inputs,
                                             const std::vector<size_t> &outputs) override {
    ReplayedValues r = replayForked(reference_, production_, inputs, false);
    if (!r.why.empty()) return std::nullopt;
    for (size_t o : outputs) {
      const std::string name = "#" + std::to_string(o);
      auto a = r.reference.find(name), b = r.production.find(name);
      if (a == r.reference.end() || b == r.production.end() || a->second.type != b->second.type) continue;
      if (std::optional<size_t> k = differsBeyondRounding(a->second, b->second))
        return ConfirmedDifference{o, eval::unflatten(a->second.type.shape, *k), static_cast<double>(a->second.values[*k]),
                                   static_cast<double>(b->second.values[*k])};
    }
    return std::nullopt;
  }

private:
  const Graph &reference_, &production_;
};

}  // namespace

ReplayedOutputs replayBoth(const Graph &reference, const Graph &production,
                           const std::vector<eval::EvalTensor> &inputs) {
  ReplayedValues v = replayForked(reference, production, inputs, false);
  ReplayedOutputs r;
  r.why = v.why;
  if (!r.why.empty()) return r;
  for (auto [side, into] : {std::pair{&v.reference, &r.reference}, {&v.production, &r.production}})
    for (size_t i = 0; side->count("#" + std::to_string(i)); ++i) {
      std::vector<double> values;
      for (long double x : side->at("#" + std::to_string(i)).values) values.push_back(static_cast<double>(x));
      into->push_back(std::move(values));
    }
  return r;
}

ReplayedValues replayValues(const Graph &reference, const Graph &production,
                            const std::vector<eval::EvalTensor> &inputs) {
  return replayForked(reference, production, inputs, true);
}

std::unique_ptr<CounterexampleConfirmer> makeReplayConfirmer(const Graph &reference, const Graph &production) {
  return std::make_unique<ReplayConfirmer>(reference, production);
}

}  // namespace torchtv
