// The element types the three kernels handle, one code per type, as every tiling stores them
// (uint32_t fields, so the kernels and the host share them without CANN types).
// Seen by the device compiler: the tiling headers and op_kernel/common include it.
#pragma once
#include <cstdint>

#include "host_aicore.h"

namespace normgrad {

enum KernelDtype : uint32_t {
  kDtypeFloat32 = 0,
  kDtypeFloat16 = 1,
  kDtypeBfloat16 = 2,
  kDtypeInt32 = 3,  // BatchNormElemtGrad's counter only
};

// Bytes of one element: 2 for the 16-bit floats, 4 for float32 and int32.
NORMGRAD_HOST_AICORE constexpr uint32_t KernelDtypeBytes(uint32_t dtype) {
  return dtype == kDtypeFloat16 || dtype == kDtypeBfloat16 ? 2u : 4u;
}

}  // namespace normgrad
