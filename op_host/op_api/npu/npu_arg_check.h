// Argument checks shared by the CANN builds of the API-named aclnn functions: tensor dims through
// nnopbase's aclTensor, and one macro that logs a message naming the argument (CANN's OP_LOGE, which
// also reports it to aclGetRecentErrMsg) and returns the documented status (161001 / 161002).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "opdev/common_types.h"
#include "opdev/op_errno.h"
#include "opdev/op_log.h"
#include "shape_string.h"

// CANN compiles cust_opapi with -fvisibility=hidden; the API-named functions must stay visible
// (the generated level-1 ones carry the same attribute).
#define NORMGRAD_NPU_EXPORT __attribute__((visibility("default")))

// Logs "<api>: <message>" and returns `status` from the calling function.
#define NORMGRAD_NPU_FAIL(status, api, fmt, ...)            \
  do {                                                      \
    OP_LOGE(status, "%s: " fmt, api, ##__VA_ARGS__);        \
    return status;                                          \
  } while (false)

namespace normgrad {
namespace npu {

inline std::vector<int64_t> Dims(const aclTensor* t) {
  const op::Shape& s = t->GetViewShape();
  std::vector<int64_t> dims(s.GetDimNum());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = s.GetDim(i);
  return dims;
}

inline int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline std::string DimsOf(const aclTensor* t) { return ShapeString(Dims(t)); }

// Reads a three-element output mask; false when the array does not have three elements.
inline bool ReadMask(const aclBoolArray* mask, bool out[3]) {
  if (mask->Size() != 3) return false;
  for (uint64_t i = 0; i < 3; ++i) out[i] = (*mask)[i];
  return true;
}

}  // namespace npu
}  // namespace normgrad
