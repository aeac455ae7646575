// Phrases that several report formats share, so that they say the same thing.
#pragma once

#include <string>

#include "src/verify/verdict.h"

namespace torchtv {

// "equivalent (bitwise)", "not_equivalent", ...
std::string verdictWithLevel(Verdict v, Level l);
// "%t3 = aten::mul.Tensor (model.py:12)"
std::string siteText(const Site &s);
// The counterexample as lines of text: output, index, both values, inputs
// (each shortened to `maxValues` values).
std::string counterexampleText(const Counterexample &c, size_t maxValues = 16);
// The values of a tensor, shortened: "[1, 2, 3, ... (61 more)]".
std::string valuesText(const std::vector<double> &values, size_t maxValues);

// A "file:line" or "file:line:col" location taken apart; line 0 when absent.
struct FileLine {
  std::string file;
  int line = 0;
  int col = 0;
};
FileLine parseFileLine(const std::string &loc);

}  // namespace torchtv
