// How the batch modes of LayerNorm backward move a batch's rows of dy/x into UB and its dx out: a
// policy the mode templates take (layer_norm_grad_batch.h), chosen by the kernel entry from the
// tiling's blockCopy. Rows sit `sliceStride` elements apart in UB, `cols` apart in GM.
//   LnPadCopy   (A2/A3): DataCopyPad moves any row length in one strided copy per batch.
//   LnBlockCopy (Atlas training, no DataCopyPad): whole 32-byte blocks only (docs/hardware-rules.md):
//               one strided DataCopy when rows are whole blocks, else row by row through one
//               scratch block; rows under one block are packed by the dense writer.
#pragma once
#include "kernel_operator.h"
#include "common/block_copy.h"
#include "common/dense_block_writer.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "layer_norm_grad_tiling.h"

namespace normgrad {

// Row r0, column col of an M x D tensor at base.
template <typename T>
__aicore__ inline AscendC::GlobalTensor<T> LnRowsAt(GM_ADDR base, const LayerNormGradTiling& t, uint64_t r0,
                                                    uint64_t col) {
  AscendC::GlobalTensor<T> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(base) + r0 * t.cols + col);
  return gm;
}

template <typename T>
class LnPadCopy {
 public:
  static constexpr bool kBlocks = false;
  static constexpr AscendC::RoundMode kDownCast = AscendC::RoundMode::CAST_RINT;  // round to nearest even

  // Nothing of the UB layout is the copy's own.
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradTiling& t, const LnBatchUbLayout& ub,
                              const AscendC::LocalTensor<T>& scratch, GM_ADDR rangeDx) {}

  // Rows [r0, r0 + n) of src, columns [col, col + cw), into rows.
  __aicore__ inline void LoadRows(const AscendC::LocalTensor<T>& rows, GM_ADDR src, const LayerNormGradTiling& t,
                                  uint64_t r0, uint64_t col, uint32_t n, uint32_t cw) {
    const uint32_t s = sizeof(T), rowBlocks = (cw * s + 31) / 32;
    const AscendC::GlobalTensor<T> gm = LnRowsAt<T>(src, t, r0, col);
    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), cw * s, static_cast<uint32_t>((t.cols - cw) * s),
                                      t.sliceStride * s / 32 - rowBlocks, 0);
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0.0f));
    PadCopy(rows, gm, params, pad);
  }

  // n rows of width cw from out (stride UB elements apart) to gm (the first row's start).
  __aicore__ inline void StoreRows(const AscendC::GlobalTensor<T>& gm, const AscendC::LocalTensor<T>& out,
                                   const LayerNormGradTiling& t, uint32_t n, uint32_t cw, uint32_t stride) {
    const uint32_t s = sizeof(T);
    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), cw * s, stride * s / 32 - (cw * s + 31) / 32,
                                      static_cast<uint32_t>((t.cols - cw) * s), 0);
    PadCopy(gm, out, params);
  }

  __aicore__ inline void Finish(const LayerNormGradTiling& t) {}
};

template <typename T>
class LnBlockCopy {
 public:
  static constexpr bool kBlocks = true;
  // Atlas training has no CAST_RINT from float to half; CAST_NONE rounds to nearest even too.
  static constexpr AscendC::RoundMode kDownCast = AscendC::RoundMode::CAST_NONE;

  // The scratch block and, for rows under one block, the dense writer's stage (entry kLnUbDense
  // of the layout, allocated here in its place in the order). rangeDx: dx of this core's first row.
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradTiling& t, const LnBatchUbLayout& ub,
                              const AscendC::LocalTensor<T>& scratch, GM_ADDR rangeDx) {
    scratch_ = scratch;
    rangeDx_ = rangeDx;
    if (ub.buf[kLnUbDense].count) dense_.Init(pipe, t.rowsPerBatch * static_cast<uint32_t>(t.cols));
  }

  __aicore__ inline void LoadRows(const AscendC::LocalTensor<T>& rows, GM_ADDR src, const LayerNormGradTiling& t,
                                  uint64_t r0, uint64_t col, uint32_t n, uint32_t cw) {
    const uint32_t s = sizeof(T), rowBlocks = (cw * s + 31) / 32;
    const AscendC::GlobalTensor<T> gm = LnRowsAt<T>(src, t, r0, col);
    // DataCopyParams strides are uint16_t blocks: longer row pitches copy row by row.
    if ((cw * s) % 32 == 0 && (t.cols * s) % 32 == 0 && t.cols * s / 32 <= 65535) {
      AscendC::DataCopyParams params(static_cast<uint16_t>(n), static_cast<uint16_t>(rowBlocks),
                                     static_cast<uint16_t>((t.cols - cw) * s / 32),
                                     static_cast<uint16_t>(t.sliceStride * s / 32 - rowBlocks));
      AscendC::DataCopy(rows, gm, params);
      return;
    }
    AscendC::GlobalTensor<T> whole;
    whole.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(src));
    for (uint32_t r = 0; r < n; ++r) {
      LoadBlocks(rows[r * t.sliceStride], scratch_, whole, (r0 + r) * t.cols + col, cw, t.rows * t.cols);
    }
  }

  // Per row the whole blocks and the block ending at the row's end (the tiling keeps every slice
  // at least 16 columns wide); rows under one block go to the dense writer.
  __aicore__ inline void StoreRows(const AscendC::GlobalTensor<T>& gm, const AscendC::LocalTensor<T>& out,
                                   const LayerNormGradTiling& t, uint32_t n, uint32_t cw, uint32_t stride) {
    const uint32_t s = sizeof(T);
    if (t.denseRows) {
      AscendC::GlobalTensor<T> dx;
      dx.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(rangeDx_));
      dense_.Append(dx, out, n, stride, cw);
      return;
    }
    if ((cw * s) % 32 == 0 && (t.cols * s) % 32 == 0 && t.cols * s / 32 <= 65535) {
      AscendC::DataCopyParams params(static_cast<uint16_t>(n), static_cast<uint16_t>(cw * s / 32),
                                     static_cast<uint16_t>((stride - cw) * s / 32),
                                     static_cast<uint16_t>((t.cols - cw) * s / 32));
      AscendC::DataCopy(gm, out, params);
      return;
    }
    for (uint32_t r = 0; r < n; ++r) StoreBlocks(gm, out[r * stride], scratch_, r * t.cols, cw);
    PipeFence<AscendC::HardEvent::MTE3_S>();  // the last scratch block has left before its next use
  }

  // Rows under one block (denseRows): the last partial block once every row is packed.
  __aicore__ inline void Finish(const LayerNormGradTiling& t) {
    if (!t.denseRows || !t.needDx) return;
    AscendC::GlobalTensor<T> dx;
    dx.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(rangeDx_));
    dense_.Finish(dx);
  }

 private:
  AscendC::LocalTensor<T> scratch_;
  GM_ADDR rangeDx_ = nullptr;
  DenseBlockWriter<T> dense_;
};

}  // namespace normgrad
