// Tensor types: a dtype and a shape whose dims are concrete sizes or named symbols.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace torchtv {

// A dimension: a concrete size (>= 0) or a named symbol such as "B".
class Dim {
public:
  Dim(int64_t size) : v_(size) {}  // NOLINT: implicit, sizes read naturally
  static Dim symbol(std::string name) { return Dim(std::move(name)); }

  bool isConcrete() const { return std::holds_alternative<int64_t>(v_); }
  int64_t size() const { return std::get<int64_t>(v_); }
  const std::string &symbolName() const { return std::get<std::string>(v_); }
  std::string str() const;

  bool operator==(const Dim &o) const { return v_ == o.v_; }
  bool operator!=(const Dim &o) const { return !(*this == o); }
  bool operator<(const Dim &o) const { return v_ < o.v_; }

private:
  explicit Dim(std::string name) : v_(std::move(name)) {}
  std::variant<int64_t, std::string> v_;
};

using Shape = std::vector<Dim>;

std::string shapeStr(const Shape &s);  // "[4,B]"
// Number of elements, when every dim is concrete.
std::optional<int64_t> numel(const Shape &s);

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  std::string str() const;  // "f32[4,B]"
  bool operator==(const TensorType &o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
};

// Wraps a possibly negative dim index into [0, rank); nullopt when out of range.
// A rank-0 tensor accepts dims -1 and 0, as PyTorch does.
std::optional<int64_t> wrapDim(int64_t dim, int64_t rank);

}  // namespace torchtv
