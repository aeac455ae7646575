// A reference/production pair parsed from .tvir text, with what the prover
// reads of it (RegionInputs): shared numbers and matrix products, as
// checkGraphs computes them (for the region and prover tests).
#pragma once

#include <string>
#include <unordered_set>

#include "ir/text_format.h"
#include "src/match/divergence.h"
#include "src/verify/region.h"

namespace torchtv {

struct RegionFixture {
  explicit RegionFixture(const std::string &text, const std::string &path)
      : module(parseModule(text, path)), ref(*module.find("reference")), prod(*module.find("production")) {
    vn.addGraph(ref);
    vn.addGraph(prod);
    std::unordered_set<int> refNumbers = numbersOf(ref, vn);
    for (int n : numbersOf(prod, vn))
      if (refNumbers.count(n)) shared.insert(n);
    addMatrixProductNumbers(ref, vn, products);
  }
  RegionFixture(const RegionFixture &) = delete;

  Module module;
  const Graph &ref, &prod;
  ValueNumbering vn;
  std::unordered_set<int> shared, products;
  std::unordered_set<const Value *> constants;
  RegionInputs in{ref, prod, vn, shared, products, constants};
};

}  // namespace torchtv
