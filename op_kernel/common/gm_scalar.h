// Scalar reads of GM vectors whose element type is known only at run time (per-channel stats,
// counters), converted to fp32 / int64 on the scalar unit. dtype: a KernelDtype.
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"
#include "kernel_dtype.h"

namespace normgrad {

template <typename T>
__aicore__ inline T GmScalar(GM_ADDR base, int64_t index) {
  AscendC::GlobalTensor<T> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(base));
  return gm.GetValue(index);
}

// base[index] as float.
__aicore__ inline float GmScalarAsFloat(GM_ADDR base, uint32_t dtype, int64_t index) {
  if (dtype == kDtypeFloat16) return static_cast<float>(GmScalar<half>(base, index));
#if !NORMGRAD_BLOCK_COPY_ARCH  // bfloat16 (and ToFloat): not on the training and inference series
  if (dtype == kDtypeBfloat16) return AscendC::ToFloat(GmScalar<bfloat16_t>(base, index));
#endif
  if (dtype == kDtypeInt32) return static_cast<float>(GmScalar<int32_t>(base, index));
  return GmScalar<float>(base, index);
}

}  // namespace normgrad
