// Equivalence queries to Z3 over scalar terms. This header does not include
// z3++.h; only src/smt/*.cpp do (Note [Solver isolation]).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/sem/index_range.h"
#include "src/sem/term.h"

namespace torchtv::smt {

// The solver answers with an enum, never a bool (as Alive2 does).
enum class Answer {
  Equal,     // unsat: no index and no values make the two terms differ
  Differ,    // sat: a model, in `model`
  Unknown,   // resource limit, incomplete theory: `detail` says which
  Crash,     // the solver process died (Debian's Z3 4.8.12 can raise SIGFPE)
};

// How float terms are encoded: IEEE sorts of each dtype, or real numbers.
enum class Arith { Ieee, Real };

// Note [Solver limits]
// Each query gets a fresh context with a fixed random seed and a resource
// limit (rlimit, deterministic, unlike wall-clock timeouts); the wall-clock
// deadline only guards the whole run (--timeout).
constexpr unsigned kDefaultRlimit = 1000000;
// The wall-clock guard of one query (below the global deadline, if any).
constexpr double kDefaultQuerySeconds = 10;
// Sums over at most this many elements are unrolled at level real; longer
// ones become uninterpreted functions of their (canonical) body, which is sound
// for equality of identical bodies only.
constexpr int64_t kUnrollLimit = 16;

// Note [Solver memory cap]
// Each query's child process may allocate at most this much (MiB) on top of
// what it inherits from the fork: Z3's own limit (memory_max_size) stops it
// cleanly, and RLIMIT_AS (the cap plus headroom) stops any other allocation.
// Past the cap the query is Unknown, naming the cap; never an OOM kill of the
// whole run. 0: no cap.
constexpr unsigned kDefaultSolverMemoryMB = 4096;

struct QueryOptions {
  unsigned rlimit = kDefaultRlimit;
  unsigned seed = 0;
  double deadlineSeconds = kDefaultQuerySeconds;  // wall clock for this query, a guard only
  unsigned memoryMB = kDefaultSolverMemoryMB;  // Note [Solver memory cap]
  // Every element of these integer tensors (by slot) lies in its range:
  // [0, bound) or one of the points the reference also accepts (Note [Index
  // inputs in range], Note [Reference kernel domains] in src/verify/input_domains.h).
  sem::IndexRanges indexBounds;
};

// One element of a tensor read in a model.
struct ModelRead {
  int slot = -1;
  std::vector<long long> index;
  double value = 0;
};

// Which of the query's limits ended an Unknown (or a Crash under a memory cap): what a user can
// raise (--rlimit, --solver-memory, --timeout); None when the solver gave up for another reason (an
// incomplete theory, an unsupported term).
enum class Limit { None, Resources, Memory, Time };

struct QueryResult {
  Answer answer = Answer::Unknown;
  std::string detail;
  std::vector<ModelRead> reads;  // Differ: the read elements' values
  double lhs = 0, rhs = 0;       // Differ: both sides' values (as doubles)
  Limit limit = Limit::None;     // Unknown, Crash: the limit that ended it
};

// Does a query on `a` and `b` read floats as extended reals at level real (Note [Extended reals at
// level real] in extended_real.h): do they hold a non-finite floating constant?
bool needsExtendedReals(sem::TermPtr a, sem::TermPtr b);

// Is `a` equal to `b` at every index in range (variables free in them range
// over their extents) and for every value of the tensors read and every
// interpretation of the uninterpreted functions? Runs in a child process
// (Note [Solver isolation]); exceptions, resource-outs and crashes become
// Unknown/Crash with the reason.
QueryResult proveEqual(const sem::TermContext &tc, sem::TermPtr a, sem::TermPtr b, Arith arith,
                       const QueryOptions &options);

}  // namespace torchtv::smt
