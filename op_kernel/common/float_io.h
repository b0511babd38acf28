// fp32 views of GM vectors whose element type is known only at run time (stats, weights): load
// with an up-cast, store with a round-to-nearest-even down-cast. dtype: a KernelDtype of a float type.
// Without DataCopyPad (Atlas training) a BlockIo selects whole-block copies (common/block_copy.h).
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"
#include "kernel_dtype.h"
#include "common/pad_copy.h"
#include "common/block_copy.h"
#include "common/pipe_fence.h"

namespace normgrad {

template <typename S>
__aicore__ inline void CopyGmToUb(const AscendC::LocalTensor<S>& dst, GM_ADDR base, uint64_t offset,
                                  uint32_t count) {
  AscendC::GlobalTensor<S> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ S*>(base) + offset, count);
  AscendC::DataCopyExtParams params(1, count * sizeof(S), 0, 0, 0);
  AscendC::DataCopyPadExtParams<S> pad(false, 0, 0, static_cast<S>(0));
  PadCopy(dst, gm, params, pad);
}

template <typename S>
__aicore__ inline void CopyUbToGm(GM_ADDR base, uint64_t offset, const AscendC::LocalTensor<S>& src,
                                  uint32_t count) {
  AscendC::GlobalTensor<S> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ S*>(base) + offset, count);
  AscendC::DataCopyExtParams params(1, count * sizeof(S), 0, 0, 0);
  PadCopy(gm, src, params);
}

// Whole-block copies (on = true): scratch is one 32-byte block, total the GM vector's elements.
// Stores of count below one block write the whole block: only where the caller owns it
// (workspace rows padded to 16 floats, or an output the aclnn layer stages through workspace).
struct BlockIo {
  bool on = false;
  AscendC::LocalTensor<float> scratch;
  uint64_t total = 0;
};

template <typename S>
__aicore__ inline void CopyGmToUb(const AscendC::LocalTensor<S>& dst, GM_ADDR base, uint64_t offset, uint32_t count,
                                  const BlockIo& io) {
  if (!io.on) {
    CopyGmToUb(dst, base, offset, count);
    return;
  }
  AscendC::GlobalTensor<S> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ S*>(base));
  LoadBlocks(dst, io.scratch.ReinterpretCast<S>(), gm, offset, count, io.total);
}

template <typename S>
__aicore__ inline void CopyUbToGm(GM_ADDR base, uint64_t offset, const AscendC::LocalTensor<S>& src, uint32_t count,
                                  const BlockIo& io) {
  if (!io.on) {
    CopyUbToGm(base, offset, src, count);
    return;
  }
  AscendC::GlobalTensor<S> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ S*>(base));
  const uint32_t pb = 32 / sizeof(S);
  if (count < pb) {
    PipeFence<AscendC::HardEvent::V_MTE3>();
    AscendC::DataCopy(gm[offset], src, pb);
  } else {
    StoreBlocks(gm, src, io.scratch.ReinterpretCast<S>(), offset, count);
  }
}

// dst[0, count) = float(gm[offset, offset + count)); raw is staging of at least count * 2 bytes.
// Leaves dst ready for Vector and scalar reads.
__aicore__ inline void LoadAsFloat(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& raw,
                                   GM_ADDR base, uint64_t offset, uint32_t count, uint32_t dtype,
                                   const BlockIo& io = BlockIo()) {
  PipeFence<AscendC::HardEvent::V_MTE2>();
  if (dtype == kDtypeFloat32) {
    CopyGmToUb(dst, base, offset, count, io);
    PipeFence<AscendC::HardEvent::MTE2_V>();
    return;
  }
  if (dtype == kDtypeFloat16) {
    AscendC::LocalTensor<half> h = raw.ReinterpretCast<half>();
    CopyGmToUb(h, base, offset, count, io);
    PipeFence<AscendC::HardEvent::MTE2_V>();
    AscendC::Cast(dst, h, AscendC::RoundMode::CAST_NONE, count);
  } else {
#if !NORMGRAD_BLOCK_COPY_ARCH  // bfloat16: not on the training and inference series
    AscendC::LocalTensor<bfloat16_t> b = raw.ReinterpretCast<bfloat16_t>();
    CopyGmToUb(b, base, offset, count);
    PipeFence<AscendC::HardEvent::MTE2_V>();
    AscendC::Cast(dst, b, AscendC::RoundMode::CAST_NONE, count);
#endif
  }
}

// gm[offset, offset + count) = src[0, count) rounded to dtype; stage holds count * 2 bytes.
// Both casts round to nearest even; Atlas training has no CAST_RINT from float to half.
__aicore__ inline void StoreFromFloat(GM_ADDR base, uint64_t offset, const AscendC::LocalTensor<float>& src,
                                      const AscendC::LocalTensor<float>& stage, uint32_t count, uint32_t dtype,
                                      const BlockIo& io = BlockIo()) {
  if (dtype == kDtypeFloat32) {
    PipeFence<AscendC::HardEvent::V_MTE3>();
    CopyUbToGm(base, offset, src, count, io);
  } else {
    PipeFence<AscendC::HardEvent::MTE3_V>();  // stage may still be leaving from the previous store
    if (dtype == kDtypeFloat16) {
      AscendC::LocalTensor<half> h = stage.ReinterpretCast<half>();
      AscendC::Cast(h, src, io.on ? AscendC::RoundMode::CAST_NONE : AscendC::RoundMode::CAST_RINT, count);
      PipeFence<AscendC::HardEvent::V_MTE3>();
      CopyUbToGm(base, offset, h, count, io);
    } else {
#if !NORMGRAD_BLOCK_COPY_ARCH  // bfloat16: not on the training and inference series
      AscendC::LocalTensor<bfloat16_t> b = stage.ReinterpretCast<bfloat16_t>();
      AscendC::Cast(b, src, AscendC::RoundMode::CAST_RINT, count);
      PipeFence<AscendC::HardEvent::V_MTE3>();
      CopyUbToGm(base, offset, b, count);
#endif
    }
  }
  PipeFence<AscendC::HardEvent::MTE3_V>();
}

}  // namespace normgrad
