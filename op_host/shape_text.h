// "[2, 3, 4]" for a gert::Shape, for host-function failure messages.
#pragma once
#include <string>

#include "exe_graph/runtime/shape.h"

namespace normgrad {

inline std::string ShapeText(const gert::Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.GetDimNum(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape.GetDim(i));
  }
  return s + "]";
}

}  // namespace normgrad
