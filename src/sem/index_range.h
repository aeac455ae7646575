// The values an index tensor's elements may take under an assumption.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace torchtv::sem {

// [0, bound), and the points outside it that the reference's kernel also
// accepts (nll_loss's ignore_index, embedding_dense_backward's padding_idx):
// Note [Reference kernel domains] in src/verify/input_domains.h.
struct IndexRange {
  int64_t bound = 0;
  std::vector<int64_t> alsoDefined;  // sorted, each outside [0, bound)

  bool contains(int64_t v) const {
    return (v >= 0 && v < bound) || std::binary_search(alsoDefined.begin(), alsoDefined.end(), v);
  }
  bool operator==(const IndexRange &o) const { return bound == o.bound && alsoDefined == o.alsoDefined; }
};

// By slot (or value number).
using IndexRanges = std::map<int, IndexRange>;

}  // namespace torchtv::sem
