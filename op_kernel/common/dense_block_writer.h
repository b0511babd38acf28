// Output rows shorter than one 32-byte block, written without DataCopyPad (Atlas training): the
// one core that owns all of them packs them in GM order and writes whole blocks only; the last,
// partial block is the block ending at the output's end, rebuilt from the last written block.
// Shared by GroupNormGrad and LayerNormGrad block-copy modes.
#pragma once
#include "kernel_operator.h"
#include "common/pipe_fence.h"

namespace normgrad {

// stage: [one block of the last written elements][pending elements not yet a whole block ...].
template <typename T>
class DenseBlockWriter {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, uint32_t chunkElems) {
    pipe->InitBuffer(stage_, (chunkElems + 2 * kPerBlock) * sizeof(T));
  }

  // Appends the first hw elements of rows slots of out (rowStride apart) and writes every whole
  // block. out was written by Vector and handed over through the VECOUT queue.
  __aicore__ inline void Append(const AscendC::GlobalTensor<T>& dx, const AscendC::LocalTensor<T>& out, uint32_t rows,
                                uint32_t rowStride, uint32_t hw) {
    AscendC::LocalTensor<T> st = stage_.template Get<T>();
    PipeFence<AscendC::HardEvent::V_S>();
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t j = 0; j < hw; ++j) st.SetValue(kPerBlock + pending_++, out.GetValue(r * rowStride + j));
    }
    const uint32_t full = pending_ / kPerBlock * kPerBlock;
    if (full == 0) return;
    PipeFence<AscendC::HardEvent::S_MTE3>();
    AscendC::DataCopy(dx[written_], st[kPerBlock], full);
    PipeFence<AscendC::HardEvent::MTE3_S>();
    // Keep the last written block as history and move the remainder behind it.
    for (uint32_t k = 0; k < kPerBlock + pending_ - full; ++k) st.SetValue(k, st.GetValue(full + k));
    written_ += full;
    pending_ -= full;
  }

  // Writes the last partial block: the block ending at the end of dx, rebuilt from history and
  // pending elements (same values as already written). A dx shorter than one block is written
  // as one block forward, into the whole-block buffer the caller provides for it.
  __aicore__ inline void Finish(const AscendC::GlobalTensor<T>& dx) {
    if (pending_ == 0) return;
    AscendC::LocalTensor<T> st = stage_.template Get<T>();
    uint64_t at = written_;
    uint32_t from = kPerBlock;
    if (written_ > 0) {
      for (uint32_t k = 0; k < kPerBlock; ++k) st.SetValue(k, st.GetValue(pending_ + k));
      at = written_ + pending_ - kPerBlock;
      from = 0;
    }
    PipeFence<AscendC::HardEvent::S_MTE3>();
    AscendC::DataCopy(dx[at], st[from], kPerBlock);
    PipeFence<AscendC::HardEvent::MTE3_S>();
    written_ += pending_;
    pending_ = 0;
  }

 private:
  static constexpr uint32_t kPerBlock = 32 / sizeof(T);
  AscendC::TBuf<AscendC::TPosition::VECCALC> stage_;
  uint64_t written_ = 0;
  uint32_t pending_ = 0;
};

}  // namespace normgrad
