// GroupNormGrad's global memory of one launch and its per-channel / per-group scalars (gamma,
// mean, rstd), read from GM or from UB copies. Every mode uses them.
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "group_norm_grad_tiling.h"

namespace normgrad {

// Global memory of one launch; ws planes hold db and ds per piece (n * c * hwParts floats each).
template <typename T>
struct GroupNormGradGm {
  AscendC::GlobalTensor<T> dy, x, mean, rstd, gamma, dx, dgamma, dbeta;
  AscendC::GlobalTensor<float> wsDb, wsDs;
  AscendC::GlobalTensor<int32_t> syncFlags;  // soft SyncAll (softSync)
  bool hasGamma;
};

template <typename T>
__aicore__ inline float GngToFloat(T v) {
#if !NORMGRAD_BLOCK_COPY_ARCH  // bfloat16 (and ToFloat): not on the training and inference series
  if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
    return AscendC::ToFloat(v);
  }
#endif
  return static_cast<float>(v);
}

// Where gamma, mean and rstd are read from. Scalar GetValue on GM goes through the data cache,
// which moves a whole 64-byte line per miss: a core needing 14 bytes of gamma and a few stats pays
// hundreds of bytes, 5-7 % of the traffic of short 16-bit rows. With inUb, the caller has copied
// gamma[c0, c0 + channels) and the stats of samples [n0, n0 + rows) x groups [g0, g0 + groups)
// into UB with one DataCopyPad each (exact bytes; Load) and the reads come from there. Without it
// (block-copy mode, or a phase that did not load them) they go to GM as before.
template <typename T>
struct GngScalars {
  AscendC::LocalTensor<T> gamma;       // channel c at c - c0
  AscendC::LocalTensor<T> mean, rstd;  // group q = n * g + j at (n - n0) * rowElems + j - g0
  uint64_t c0 = 0;
  uint64_t n0 = 0;
  uint64_t g0 = 0;
  uint64_t g = 1;
  uint32_t rowElems = 0;
  bool inUb = false;

  // gamma/mean/rstd are UB buffers of at least AlignUp(channels) and rows * AlignUp(groups) elements
  // (32-byte rows). Leaves them ready for scalar reads (MTE2_S).
  __aicore__ inline void Load(const GroupNormGradGm<T>& gm, uint64_t cFirst, uint32_t channels, uint64_t nFirst,
                              uint32_t rows, uint64_t gFirst, uint32_t groups, uint64_t groupCount) {
    c0 = cFirst;
    n0 = nFirst;
    g0 = gFirst;
    g = groupCount;
    rowElems = (groups * static_cast<uint32_t>(sizeof(T)) + 31) / 32 * 32 / static_cast<uint32_t>(sizeof(T));
    inUb = true;
    PipeFence<AscendC::HardEvent::S_MTE2>();  // scalar reads of a previous load are done
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0.0f));
    if (gm.hasGamma) {
      AscendC::DataCopyExtParams one(1, channels * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
      PadCopy(gamma, gm.gamma[c0], one, pad);
    }
    AscendC::DataCopyExtParams p(static_cast<uint16_t>(rows), groups * static_cast<uint32_t>(sizeof(T)),
                                 static_cast<uint32_t>((g - groups) * sizeof(T)), 0, 0);
    PadCopy(mean, gm.mean[n0 * g + g0], p, pad);
    PadCopy(rstd, gm.rstd[n0 * g + g0], p, pad);
    PipeFence<AscendC::HardEvent::MTE2_S>();
  }

  __aicore__ inline float Gamma(const GroupNormGradGm<T>& gm, uint64_t c) const {
    if (!gm.hasGamma) return 1.0f;
    return GngToFloat(inUb ? gamma.GetValue(static_cast<uint32_t>(c - c0)) : gm.gamma.GetValue(c));
  }
  __aicore__ inline float Mean(const GroupNormGradGm<T>& gm, uint64_t q) const { return Stat(gm.mean, mean, q); }
  __aicore__ inline float Rstd(const GroupNormGradGm<T>& gm, uint64_t q) const { return Stat(gm.rstd, rstd, q); }

 private:
  __aicore__ inline float Stat(const AscendC::GlobalTensor<T>& src, const AscendC::LocalTensor<T>& ub,
                               uint64_t q) const {
    if (!inUb) return GngToFloat(src.GetValue(q));
    return GngToFloat(ub.GetValue(static_cast<uint32_t>((q / g - n0) * rowElems + q % g - g0)));
  }
};

}  // namespace normgrad
