// Note [Counterexample inputs as text] in src/report/describe.cpp: a shrunk input prints its
// non-zero entries with their indices, integers as integers.
#include <doctest/doctest.h>

#include "src/report/describe.h"

using namespace torchtv;

TEST_CASE("a large input of mostly zeros prints its non-zero entries with their indices") {
  TensorValues t{"residual", "f32[2,4,16]", std::vector<double>(128, 0.0)};
  t.values[1 * 64 + 2 * 16 + 5] = 0.5;
  t.values[127] = -2.0;
  CHECK(inputValuesText(t, 16) == "2 of 128 entries non-zero: [1,2,5]=0.5, [1,3,15]=-2.0");
  std::fill(t.values.begin(), t.values.end(), 0.0);
  CHECK(inputValuesText(t, 16) == "all 128 entries zero");
}

TEST_CASE("a negative zero counts as an entry to print: it can be the difference") {
  TensorValues t{"x", "f32[40]", std::vector<double>(40, 0.0)};
  t.values[3] = -0.0;
  CHECK(inputValuesText(t, 16) == "1 of 40 entries non-zero: [3]=-0.0");
}

TEST_CASE("integer inputs print as integers, small and dense ones as a list") {
  CHECK(inputValuesText({"y", "i64[3]", {4, 0, 2}}, 16) == "[4, 0, 2]");
  CHECK(inputValuesText({"m", "bool[2]", {1, 0}}, 16) == "[1, 0]");
  CHECK(inputValuesText({"x", "f32[3]", {1, 0, 2.5}}, 16) == "[1.0, 0.0, 2.5]");
  TensorValues dense{"x", "f32[20]", std::vector<double>(20, 1.0)};
  CHECK(inputValuesText(dense, 4) == "[1.0, 1.0, 1.0, 1.0, ... (16 more)]");
}

TEST_CASE("shortened cuts long text with '...' and never inside a UTF-8 character") {
  CHECK(shortened("abcdef", 6) == "abcdef");
  CHECK(shortened("abcdefg", 6) == "abc...");
  // "ab" then U+00E9 (two bytes): a cut at byte 3 would split it, so it comes before it.
  CHECK(shortened("ab\xC3\xA9xyz", 6) == "ab...");
}

TEST_CASE("a 0-d output's counterexample shows its values (a loss has the empty index)") {
  Counterexample loss;
  loss.output = "loss";
  loss.referenceValue = 0.38;
  loss.productionValue = 0.76;
  loss.note = "found by seeded random inputs";
  CHECK(counterexampleText(loss, 16) == "counterexample: output loss: reference 0.38, production 0.76; found by seeded random inputs\n");
  Counterexample types;  // a type difference has no values to show
  types.output = "y";
  types.note = "types differ";
  CHECK(counterexampleText(types, 16) == "counterexample: output y: types differ\n");
  Counterexample element = loss;
  element.index = {1, 2};
  CHECK(counterexampleText(element, 16) ==
        "counterexample: output loss at index [1,2]: reference 0.38, production 0.76; found by seeded random inputs\n");
}
