// Shapes in error messages, one spelling for every layer: "[2, 320, 64, 64]".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace normgrad {

inline std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace normgrad
