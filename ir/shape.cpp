#include "ir/shape.h"

namespace torchtv {

std::string Dim::str() const { return isConcrete() ? std::to_string(size()) : symbolName(); }

std::string shapeStr(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + s[i].str();
  return out + "]";
}

std::optional<int64_t> numel(const Shape &s) {
  int64_t n = 1;
  for (const Dim &d : s) {
    if (!d.isConcrete()) return std::nullopt;
    n *= d.size();
  }
  return n;
}

std::string TensorType::str() const { return std::string(dtypeName(dtype)) + shapeStr(shape); }

std::optional<int64_t> wrapDim(int64_t dim, int64_t rank) {
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

}  // namespace torchtv
