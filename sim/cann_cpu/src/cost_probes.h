// Force-included into front end B's kernel objects (sim/cann_cpu/CMakeLists.txt): makes the scalar GM
// accesses of CANN's GlobalTensor visible to the cost report. In CPU-debug mode the devkit's
// GlobalTensor<T>::GetValue / SetValue are plain loads and stores of host memory (kernel_tensor_impl.h), so
// no intrinsic shows them; these explicit specialisations do the same access and tell the core's DCache
// model about it, as front end A's GlobalTensor does (ascendc/dcache.h). Nothing of the devkit is changed:
// the specialisations replace the member functions for the element types our kernels read GM with.
#pragma once
#include "kernel_operator.h"

namespace normgrad::cann {
void NoteScalarGmRead(const void* p, uint64_t bytes);
void NoteScalarGmWrite(const void* p, uint64_t bytes);
}  // namespace normgrad::cann

#define NORMGRAD_CANN_SCALAR_GM_PROBES(T)                                                                     \
  template <>                                                                                                 \
  inline typename AscendC::GlobalTensor<T>::PrimType AscendC::GlobalTensor<T>::GetValue(const uint64_t offset) \
      const {                                                                                                 \
    normgrad::cann::NoteScalarGmRead(this->oriAddress_ + offset, sizeof(PrimType));                           \
    return this->oriAddress_[offset];                                                                         \
  }                                                                                                           \
  template <>                                                                                                 \
  inline void AscendC::GlobalTensor<T>::SetValue(const uint64_t offset, PrimType value) {                     \
    normgrad::cann::NoteScalarGmWrite(this->oriAddress_ + offset, sizeof(PrimType));                          \
    this->oriAddress_[offset] = value;                                                                        \
  }

NORMGRAD_CANN_SCALAR_GM_PROBES(float)
NORMGRAD_CANN_SCALAR_GM_PROBES(half)
NORMGRAD_CANN_SCALAR_GM_PROBES(int32_t)
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
NORMGRAD_CANN_SCALAR_GM_PROBES(bfloat16_t)
#endif
#undef NORMGRAD_CANN_SCALAR_GM_PROBES
