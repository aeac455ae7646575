// Runs one equivalence query in a child process (src/util/subprocess.h, runForked).
//
// Note [Solver isolation]
// Debian's Z3 4.8.12 can die with SIGFPE on large nonlinear real queries, and
// any solver can run out of memory. Each query therefore runs in a forked
// child that builds its own Z3 context, solves, and writes a small text answer
// to a pipe. The parent maps a signal, a non-zero exit, a garbled answer or the
// wall-clock deadline to Crash/Unknown with the reason, never to Equal.
// TORCHTV_SOLVER_FAULT=sigfpe makes the child raise SIGFPE before solving
// (fault injection for the tests). The child's memory is capped (Note [Solver
// memory cap] in query.h).
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>
#include <unordered_set>

#include "src/smt/encode.h"
#include "src/util/subprocess.h"

namespace torchtv::smt {

namespace {

std::string memoryCapText(unsigned mb) {
  return "the solver exceeded its memory cap of " + std::to_string(mb) + " MiB (--solver-memory)";
}

// Headroom of the address-space limit over Z3's own cap, for what Z3 does not
// count (its stacks, the allocator's slack), so that Z3's clean stop comes first.
constexpr uint64_t kAddressSpaceHeadroomMB = 256;

// In the child: Note [Solver memory cap].
void capMemory(unsigned mb) {
  if (mb == 0) return;
  z3::set_param("memory_max_size", static_cast<int>(mb));
  // RLIMIT_AS counts the address space inherited from the parent too.
  uint64_t inherited = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(f, "%llu", &pages) == 1) inherited = pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::fclose(f);
  }
  rlim_t cap = static_cast<rlim_t>(inherited + (uint64_t(mb) + kAddressSpaceHeadroomMB) * (uint64_t(1) << 20));
  rlimit rl{cap, cap};
  setrlimit(RLIMIT_AS, &rl);
}

bool mentionsMemory(const std::string &s) {
  return s.find("memory") != std::string::npos || s.find("memout") != std::string::npos;
}

// The limit an Unknown's reason names: Z3's reason_unknown() ("max. resource limit exceeded",
// "canceled" on a timeout, "out of memory", ...) or our memory cap's text.
Limit limitNamed(const std::string &why) {
  if (mentionsMemory(why)) return Limit::Memory;
  if (why.find("resource limit") != std::string::npos || why.find("rlimit") != std::string::npos) return Limit::Resources;
  if (why.find("timeout") != std::string::npos || why.find("canceled") != std::string::npos) return Limit::Time;
  return Limit::None;
}

std::string formatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double parseDouble(const std::string &s) {
  if (s == "nan") return NAN;
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  return std::strtod(s.c_str(), nullptr);
}

// Note [Bitwise models by trial]
// Two IEEE terms that differ (a hand-derived gradient against autograd's: other
// operations, other order) differ at almost any input, but Z3 bit-blasts every
// multiplication before it searches, and a region of a few float products can
// run to the resource limit (rlimit) without finding a model: at 16 realistic
// layers grad_x's bitwise query (9 products) took 1.3 s of CPU, or its 10 s
// wall-clock guard on a loaded machine, about as much as the rest of decide,
// and ended "bitwise not decided". So an IEEE query with at least
// kTrialProducts float products, divisions or roots first tries a few fixed
// inputs: every float tensor read gets a seeded value (standard normal, rounded
// to its dtype) as an added constraint, which Z3's preprocessing propagates
// into ground arithmetic that it evaluates, each trial under a tenth of the
// rlimit. A satisfiable trial is a model of the query as asked (it only adds
// constraints), so "differ" is exact; any other trial result says nothing, and
// the query is then solved as it is. Smaller queries are solved directly:
// Z3's own models are the informative ones there (a -0 against a 0, a NaN),
// and a bit-blast of a few products is cheap. A float64 division or root alone
// counts as kTrialProducts: its bit-blast is of a 53-bit significand, and one
// of them (a backward's 1/24 written as a quotient) took 17 s of search where
// the first trial answers in a quarter of a second.
constexpr unsigned kTrialProducts = 6;

// The float products, divisions and roots in a and b (shared subterms once),
// a float64 division or root counted as kTrialProducts.
unsigned floatProducts(sem::TermPtr a, sem::TermPtr b) {
  unsigned n = 0;
  sem::anySubterm(a, b, [&](sem::TermPtr t) {
    if (!isFloating(t->dtype)) return false;
    bool quotientOrRoot = t->op == sem::TOp::Div || t->op == sem::TOp::Sqrt;
    if (quotientOrRoot && t->dtype == DType::F64) n += kTrialProducts;
    else if (quotientOrRoot || t->op == sem::TOp::Mul || t->op == sem::TOp::PowC) n += 1;
    return false;  // count them all
  });
  return n;
}

constexpr unsigned kBitwiseTrials = 3;

std::optional<z3::model> modelByTrial(z3::context &c, const Encoder &enc, const z3::expr &differ, const QueryOptions &o) {
  for (unsigned trial = 0; trial < kBitwiseTrials; ++trial) {
    z3::solver s(c);
    z3::params p(c);
    p.set("rlimit", std::max(1u, o.rlimit / 10));
    p.set("random_seed", o.seed);
    s.set(p);
    for (const z3::expr &k : enc.constraints()) s.add(k);
    s.add(differ);
    std::mt19937 rng(1000 * o.seed + trial);
    std::normal_distribution<double> normal(0, 1);
    size_t fixed = 0;
    for (const Encoder::ReadSite &rd : enc.reads()) {
      if (!rd.value.get_sort().is_fpa()) continue;
      s.add(rd.value == z3::expr(c, Z3_mk_fpa_numeral_double(c, normal(rng), rd.value.get_sort())));
      ++fixed;
    }
    if (fixed == 0) return std::nullopt;  // nothing to fix: the trial is the query itself
    if (s.check() == z3::sat) return s.get_model();
  }
  return std::nullopt;
}

// Note [Extended queries simplified]
// A query over extended reals goes to a solver that simplifies and propagates
// values before its SMT core: the pairs' kind tests branch on reads whose
// indices are written two ways (0 and 0 + 1*0), and Z3 4.8.12's default
// solver ran out of its resource limit on "is x_0 - max_k x_k NaN exactly when
// all three are masked", which this one proves at once (simplifying the query
// alone did not help).
z3::solver extendedSolver(z3::context &c) {
  return (z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") & z3::tactic(c, "smt")).mk_solver();
}

// The child's work: returns the answer as text lines.
std::string solve(const sem::TermContext &tc, sem::TermPtr a, sem::TermPtr b, Arith arith, const QueryOptions &o) {
  try {
    z3::context c;
    Encoder enc(c, tc, arith, o.indexBounds, needsExtendedReals(a, b));
    z3::expr ea = enc.encode(a), eb = enc.encode(b);
    z3::solver s = enc.extendedReals() ? extendedSolver(c) : z3::solver(c);
    z3::params p(c);
    p.set("rlimit", o.rlimit);
    p.set("random_seed", o.seed);
    s.set(p);
    for (const z3::expr &k : enc.constraints()) s.add(k);
    s.add(!enc.same(ea, eb));
    // Note [Bitwise models by trial]
    std::optional<z3::model> found;
    if (arith == Arith::Ieee && floatProducts(a, b) >= kTrialProducts) found = modelByTrial(c, enc, !enc.same(ea, eb), o);
    if (!found) {
      z3::check_result r = s.check();
      if (r == z3::unsat) return "equal\n";
      if (r == z3::unknown) {
        std::string why = s.reason_unknown();
        if (o.memoryMB && mentionsMemory(why)) why = memoryCapText(o.memoryMB) + ": " + why;
        return "unknown\n" + why + "\n";
      }
      found = s.get_model();
    }
    z3::model m = *found;
    std::ostringstream out;
    out << "differ\n";
    double va = 0, vb = 0;
    Encoder::toDouble(c, m.eval(ea, true), va);
    Encoder::toDouble(c, m.eval(eb, true), vb);
    out << "V " << formatDouble(va) << " " << formatDouble(vb) << "\n";
    for (const auto &rd : enc.reads()) {
      std::ostringstream line;
      line << "R " << rd.slot;
      bool ok = true;
      for (const z3::expr &i : rd.index) {
        z3::expr v = m.eval(i, true);
        int64_t n = 0;
        if (!v.is_numeral_i64(n)) ok = false;
        line << " " << n;
      }
      double val = 0;
      if (!Encoder::toDouble(c, m.eval(rd.value, true), val)) ok = false;
      if (ok) out << line.str() << " = " << formatDouble(val) << "\n";
    }
    return out.str();
  } catch (const z3::exception &e) {
    std::string msg = e.msg();
    if (o.memoryMB && mentionsMemory(msg)) return "unknown\n" + memoryCapText(o.memoryMB) + ": Z3: " + msg + "\n";
    return "unknown\nZ3 exception: " + msg + "\n";
  } catch (const sem::Unsupported &e) {
    return std::string("unknown\n") + e.what() + "\n";
  } catch (const std::bad_alloc &) {
    return "unknown\n" + memoryCapText(o.memoryMB) + "\n";
  }
}

QueryResult parse(const std::string &text) {
  QueryResult r;
  std::istringstream in(text);
  std::string head;
  std::getline(in, head);
  if (head == "equal") {
    r.answer = Answer::Equal;
    return r;
  }
  if (head == "unknown") {
    r.answer = Answer::Unknown;
    std::getline(in, r.detail);
    if (r.detail.empty()) r.detail = "the solver gave up";
    return r;
  }
  if (head != "differ") {
    r.answer = Answer::Crash;
    r.detail = "the solver process returned no answer";
    return r;
  }
  r.answer = Answer::Differ;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "V") {
      std::string x, y;
      ls >> x >> y;
      r.lhs = parseDouble(x);
      r.rhs = parseDouble(y);
    } else if (tag == "R") {
      ModelRead mr;
      ls >> mr.slot;
      std::string tok;
      while (ls >> tok && tok != "=") mr.index.push_back(std::stoll(tok));
      ls >> tok;
      mr.value = parseDouble(tok);
      r.reads.push_back(mr);
    }
  }
  return r;
}

}  // namespace

QueryResult proveEqual(const sem::TermContext &tc, sem::TermPtr a, sem::TermPtr b, Arith arith,
                       const QueryOptions &options) {
  ProcessResult child = runForked(
      [&](int fd) {
        const char *fault = std::getenv("TORCHTV_SOLVER_FAULT");
        if (fault && std::strcmp(fault, "sigfpe") == 0) raise(SIGFPE);
        capMemory(options.memoryMB);
        writeAll(fd, solve(tc, a, b, arith, options));
      },
      options.deadlineSeconds);
  if (!child.started) return {Answer::Unknown, "cannot fork the solver process", {}, 0, 0, Limit::None};
  if (child.timedOut) return {Answer::Unknown, "the solver ran past the time limit", {}, 0, 0, Limit::Time};
  // A child that dies under a memory cap may have died of it (an allocation
  // that failed outside Z3's own accounting): say so.
  std::string capNote = options.memoryMB ? " (under its memory cap of " + std::to_string(options.memoryMB) + " MiB)" : "";
  Limit underCap = capNote.empty() ? Limit::None : Limit::Memory;
  if (child.signal)
    return {Answer::Crash,
            std::string("the solver process died with signal ") + strsignal(child.signal) +
                (child.signal == SIGFPE ? "" : capNote),
            {}, 0, 0, child.signal == SIGFPE ? Limit::None : underCap};
  if (child.exitCode != 0) return {Answer::Crash, "the solver process exited abnormally" + capNote, {}, 0, 0, underCap};
  QueryResult r = parse(child.out);
  if (r.answer == Answer::Unknown) r.limit = limitNamed(r.detail);
  return r;
}

}  // namespace torchtv::smt
