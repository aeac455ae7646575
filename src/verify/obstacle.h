// What kept an output undecided, as data, and what would decide it.
#pragma once

#include <string>
#include <vector>

namespace torchtv::sem {
class Unsupported;
}
namespace torchtv::smt {
enum class Limit;
}

namespace torchtv {

// Note [What would decide it]
// An `unknown` output is a question left to the user: trust it, fix it, or give torchtv what it
// lacked. The reason says what happened (every note of every attempt); the hint says what the
// user could change that would let torchtv decide: a definition for an op without one, smaller
// shapes for a region past a size limit, a larger solver budget. The prover and the classify stage
// record each obstacle where it happens, typed (sem::Gap from the term builders, smt::Limit from
// the solver), never by reading the reason's text; `whatWouldDecide` renders them through one
// table (kRemedies in obstacle.cpp: each obstacle's remedy, each remedy said once, most decisive
// first). Where an op lacks a meaning that is the hint, alone: no budget decides such an op. It
// says what may decide the output, not what will: a smaller region can still differ, a larger
// budget still run out. An
// obstacle that nothing the user sets removes (an unsupported dtype, Z3's incomplete theories, a
// model over abstracted values) gives no hint, and an output with only those has none: the runs
// of the code (Note [Evidence of undecided outputs]) are then the evidence there is.
enum class Obstacle {
  NoSemantics,       // `subject`, an ATen op, has no semantics in torchtv
  NoDefinition,      // `subject`, a custom op, has no definition
  DefinitionMisfit,  // `subject` has a definition that does not fit its call
  TooLarge,          // a region, normal form or element comparison passed a size limit
  QueryTime,         // a Z3 query ran past its wall-clock guard (smt::kDefaultQuerySeconds)
  SolverResources,   // Z3 ran out of its resource limit (--rlimit)
  SolverMemory,      // Z3 ran past its memory cap (--solver-memory)
  CheckTimeLimit,    // the check's --timeout ran out
};

struct Blocker {
  Obstacle what;
  std::string subject;  // the op, where the obstacle is one
  bool operator==(const Blocker &o) const { return what == o.what && subject == o.subject; }
};

// Adds `b` to `to` unless it is there already.
void addBlocker(std::vector<Blocker> &to, Blocker b);
// The obstacle a term builder's exception names, if the user can do something about it.
void addBlocker(std::vector<Blocker> &to, const sem::Unsupported &e);
// The obstacle a solver's Unknown names (its limit), if any.
void addBlocker(std::vector<Blocker> &to, smt::Limit limit);

// What the hint may quote of this run's settings.
struct HintSettings {
  unsigned rlimit = 0;
  unsigned solverMemoryMB = 0;
  double timeoutSeconds = 0;
};

// "a definition of my::opaque (...)", "smaller shapes (...); or a larger --rlimit (...)"; "" when
// nothing the user sets helps.
std::string whatWouldDecide(const std::vector<Blocker> &blockers, const HintSettings &settings);

}  // namespace torchtv
