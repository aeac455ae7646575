// Which operands of a cat take part in it (torch's legacy rule).
#pragma once

#include "ir/shape.h"

namespace torchtv {

// Note [Legacy empty cat operands]
// torch.cat skips every operand that is 1-d of size 0 (shape [0]), whatever
// the rank of the others: it checks neither its rank nor its sizes, and wraps
// `dim` against the rank of the first operand it does not skip (ATen's
// cat_meta and legacy_cat_wrap_dim, torch 1.13 to 2.11; the skipped operand
// still takes part in the result's dtype). transformers' caches start as such
// empty tensors: GPT-2's attention concatenates `torch.tensor([])` with keys of
// rank 4 along dim -2. When every operand is skipped the result is the first.
bool skippedByCat(const TensorType &operand);

}  // namespace torchtv
