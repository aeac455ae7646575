// Note [What would decide it]: the hint an undecided output gets from its obstacles.
#include <doctest/doctest.h>

#include <string>

#include "src/sem/term.h"
#include "src/smt/query.h"
#include "src/verify/obstacle.h"

using namespace torchtv;

namespace {

const HintSettings kSettings{1000000, 4096, 30};

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an output with no obstacle a user can remove gets no hint") {
  CHECK(whatWouldDecide({}, kSettings).empty());
  std::vector<Blocker> blockers;
  addBlocker(blockers, sem::Unsupported("aten::add.Tensor on a uint64 tensor"));  // Gap::Other
  addBlocker(blockers, smt::Limit::None);  // Z3's incomplete theories
  CHECK(blockers.empty());
}

TEST_CASE("an op without semantics or definition is named, and no budget is suggested beside it") {
  std::vector<Blocker> blockers;
  addBlocker(blockers, sem::Unsupported("no semantics for aten::as_strided", sem::Gap::NoSemantics, "aten::as_strided"));
  addBlocker(blockers, sem::Unsupported("no semantics for my::opaque", sem::Gap::NoSemantics, "my::opaque"));
  addBlocker(blockers, smt::Limit::Resources);
  addBlocker(blockers, sem::Unsupported("the region needs more than 300000 terms", sem::Gap::TooLarge));
  std::string hint = whatWouldDecide(blockers, kSettings);
  // an op the registry knows lacks semantics; any other op lacks a definition (FUSIONS or --fusions)
  CHECK(has(hint, "a definition of aten::as_strided in terms of ops torchtv knows, in a --fusions folder"));
  CHECK(has(hint, "; and a definition of my::opaque: the pair file's FUSIONS"));
  CHECK_FALSE(has(hint, "--rlimit"));
  CHECK_FALSE(has(hint, "smaller shapes"));
}

TEST_CASE("budgets are alternatives, each remedy once, quoting this run's settings") {
  std::vector<Blocker> blockers;
  addBlocker(blockers, sem::Unsupported("the real normal form grew past 4000 monomials", sem::Gap::TooLarge));
  addBlocker(blockers, smt::Limit::Resources);
  addBlocker(blockers, smt::Limit::Resources);
  addBlocker(blockers, smt::Limit::Time);
  addBlocker(blockers, sem::Unsupported("more than 4096 elements to compare one by one", sem::Gap::TooLarge));
  CHECK(blockers.size() == 3);
  std::string hint = whatWouldDecide(blockers, kSettings);
  CHECK(hint ==
        "smaller shapes in example_inputs() (the terms to compare pass torchtv's size limits; a Z3 query ran past its "
        "time guard at these); or a larger --rlimit (this run: 1000000) lets Z3 work longer on each query");
}

TEST_CASE("the solver's memory cap and the check's time limit name their flags") {
  std::vector<Blocker> blockers;
  addBlocker(blockers, smt::Limit::Memory);
  addBlocker(blockers, sem::Unsupported("the time limit passed", sem::Gap::TimeLimit));
  CHECK(whatWouldDecide(blockers, kSettings) ==
        "a larger --solver-memory (this run: 4096 MiB); or a larger --timeout (this run: 30 s)");
}
