// The kernels' dtype code (kernel_dtype.h) of a CANN data type, for the tiling entries. Host only.
#pragma once
#include <cstdint>

#include "graph/types.h"
#include "kernel_dtype.h"

namespace normgrad {

// false for a type no kernel handles.
inline bool KernelDtypeOf(ge::DataType dtype, uint32_t* code) {
  switch (dtype) {
    case ge::DT_FLOAT: *code = kDtypeFloat32; return true;
    case ge::DT_FLOAT16: *code = kDtypeFloat16; return true;
    case ge::DT_BF16: *code = kDtypeBfloat16; return true;
    case ge::DT_INT32: *code = kDtypeInt32; return true;
    default: return false;
  }
}

// A floating type the GroupNorm and LayerNorm kernels take on this chip: the training and inference
// series have no bfloat16 (docs/hardware-rules.md §6).
inline bool FloatKernelDtypeOf(ge::DataType dtype, bool hasBf16, KernelDtype* out) {
  uint32_t code = 0;
  if (!KernelDtypeOf(dtype, &code) || code == kDtypeInt32) return false;
  *out = static_cast<KernelDtype>(code);
  return code != kDtypeBfloat16 || hasBf16;
}

}  // namespace normgrad
