// The element types the three kernels handle, one code per type, as every tiling stores them
// (uint32_t fields, so the kernels and the host share them without CANN types).
// Seen by the device compiler: the tiling headers and op_kernel/common include it.
#pragma once
#include <cstdint>

namespace normgrad {

enum KernelDtype : uint32_t {
  kDtypeFloat32 = 0,
  kDtypeFloat16 = 1,
  kDtypeBfloat16 = 2,
  kDtypeInt32 = 3,  // BatchNormElemtGrad's counter only
};

// Bytes of one element: 2 for the 16-bit floats, 4 for float32 and int32.
inline uint32_t KernelDtypeBytes(uint32_t dtype) {
  return dtype == kDtypeFloat16 || dtype == kDtypeBfloat16 ? 2u : 4u;
}

// The operator-prefixed names of these codes, kept while tests/ and op_host/op_api/ still spell
// them; new code uses KernelDtype.
using GroupNormGradDtype = KernelDtype;
using LayerNormGradDtype = KernelDtype;
using BatchNormElemtGradDtype = KernelDtype;
constexpr KernelDtype kGngFloat32 = kDtypeFloat32;
constexpr KernelDtype kGngFloat16 = kDtypeFloat16;
constexpr KernelDtype kGngBfloat16 = kDtypeBfloat16;
constexpr KernelDtype kLnFloat32 = kDtypeFloat32;
constexpr KernelDtype kLnFloat16 = kDtypeFloat16;
constexpr KernelDtype kLnBfloat16 = kDtypeBfloat16;
constexpr KernelDtype kBnElemtFloat32 = kDtypeFloat32;
constexpr KernelDtype kBnElemtFloat16 = kDtypeFloat16;
constexpr KernelDtype kBnElemtBFloat16 = kDtypeBfloat16;
constexpr KernelDtype kBnElemtInt32 = kDtypeInt32;
inline uint32_t LayerNormGradDtypeBytes(uint32_t dtype) { return KernelDtypeBytes(dtype); }
inline uint32_t BnElemtDtypeBytes(uint32_t dtype) { return KernelDtypeBytes(dtype); }

}  // namespace normgrad
