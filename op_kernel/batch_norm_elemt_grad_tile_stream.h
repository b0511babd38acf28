// The streamed part of BatchNormElemtGrad shared by every mode: double-buffered dy, x and dx tiles
// of "rows" (GM runs of rowLen elements, gmStride apart, each starting a 32-byte-aligned UB row of
// `pitch` elements), their fp32 views for the math, and the rounding of dx back to its dtype.
#pragma once
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "common/ub_alloc.h"

namespace normgrad {

// A tile: `groups` groups (groupStride elements apart in GM, back to back in UB) of rows runs of
// rowLen elements; row r of group g starts at GM element gmOffset + g * groupStride + r * gmStride
// and at UB element (g * rows + r) * pitch (pitch = rowLen rounded up to 32 bytes of the widest
// of dy, x, dx). One DataCopyPad moves each group.
struct BnElemtTile {
  int64_t gmOffset;
  int64_t gmStride;
  uint32_t rows;
  uint32_t rowLen;
  uint32_t pitch;
  uint32_t groups = 1;
  int64_t groupStride = 0;
  // UB elements the math runs over: a single row needs no pad lanes.
  __aicore__ inline uint32_t Count() const { return rows * groups == 1 ? rowLen : rows * groups * pitch; }
  // UB gap between rows, in 32-byte blocks, for a dtype whose rows are padded to `padded`.
  __aicore__ inline uint32_t UbGapBlocks(uint32_t padded, uint32_t elemBytes) const {
    return rows == 1 ? 0 : (pitch - padded) * elemBytes / 32;
  }
};

template <typename T>
__aicore__ inline void BnElemtRowsIn(const AscendC::LocalTensor<uint8_t>& dst, GM_ADDR base, const BnElemtTile& tile) {
  constexpr uint32_t kBlockElems = 32 / sizeof(T);
  const uint32_t padded = (tile.rowLen + kBlockElems - 1) / kBlockElems * kBlockElems;
  AscendC::GlobalTensor<T> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(base) + tile.gmOffset);
  // Zero padding to the 32-byte boundary keeps the pad lanes of the math finite.
  AscendC::DataCopyExtParams params(static_cast<uint16_t>(tile.rows), tile.rowLen * sizeof(T),
                                    static_cast<uint32_t>((tile.gmStride - tile.rowLen) * sizeof(T)),
                                    tile.UbGapBlocks(padded, sizeof(T)), 0);
  AscendC::DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(padded - tile.rowLen), T{});
  const AscendC::LocalTensor<T> ub = dst.ReinterpretCast<T>();
  for (uint32_t g = 0; g < tile.groups; ++g) {
    AscendC::DataCopyPad(ub[g * tile.rows * tile.pitch], gm[g * tile.groupStride], params, pad);
  }
}

template <typename T>
__aicore__ inline void BnElemtRowsOut(GM_ADDR base, const AscendC::LocalTensor<uint8_t>& src, const BnElemtTile& tile) {
  constexpr uint32_t kBlockElems = 32 / sizeof(T);
  const uint32_t padded = (tile.rowLen + kBlockElems - 1) / kBlockElems * kBlockElems;
  AscendC::GlobalTensor<T> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(base) + tile.gmOffset);
  AscendC::DataCopyExtParams params(static_cast<uint16_t>(tile.rows), tile.rowLen * sizeof(T),
                                    tile.UbGapBlocks(padded, sizeof(T)),
                                    static_cast<uint32_t>((tile.gmStride - tile.rowLen) * sizeof(T)), 0);
  const AscendC::LocalTensor<T> ub = src.ReinterpretCast<T>();
  for (uint32_t g = 0; g < tile.groups; ++g) {
    AscendC::DataCopyPad(gm[g * tile.groupStride], ub[g * tile.rows * tile.pitch], params);
  }
}

class BnElemtTileStream {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, const BatchNormElemtGradTiling& t, GM_ADDR dy, GM_ADDR x,
                              GM_ADDR dx, uint32_t tileElems) {
    t_ = &t;
    dy_ = dy;
    x_ = x;
    dx_ = dx;
    const BnElemtUbLayout ub = BnElemtUbOf(t, tileElems);
    UbAllocQue(pipe, dyQue_, ub.dy);
    UbAllocQue(pipe, xQue_, ub.x);
    UbAllocQue(pipe, dxQue_, ub.dx);
    UbAllocBuf(pipe, dyFloat_, ub.dyF);
    UbAllocBuf(pipe, xFloat_, ub.xF);
  }

  __aicore__ inline void CopyIn(const BnElemtTile& tile) {
    AscendC::LocalTensor<uint8_t> dy = dyQue_.AllocTensor<uint8_t>();
    AscendC::LocalTensor<uint8_t> x = xQue_.AllocTensor<uint8_t>();
    RowsIn(dy, dy_, t_->dyDtype, tile);
    RowsIn(x, x_, t_->xDtype, tile);
    dyQue_.EnQue(dy);
    xQue_.EnQue(x);
  }

  // Dequeues the tile's inputs as fp32 (in place for fp32 inputs) and allocates its output;
  // Result() is where the last op of the math writes.
  __aicore__ inline void BeginCompute(const BnElemtTile& tile) {
    dyIn_ = dyQue_.DeQue<uint8_t>();
    xIn_ = xQue_.DeQue<uint8_t>();
    dxOut_ = dxQue_.AllocTensor<uint8_t>();
    dyF_ = AsFloat(dyIn_, dyFloat_, t_->dyDtype, tile.Count());
    xF_ = AsFloat(xIn_, xFloat_, t_->xDtype, tile.Count());
    result_ = t_->dxDtype == kDtypeFloat32 ? dxOut_.ReinterpretCast<float>() : xF_;
  }
  __aicore__ inline const AscendC::LocalTensor<float>& Dy() const { return dyF_; }
  __aicore__ inline const AscendC::LocalTensor<float>& X() const { return xF_; }
  __aicore__ inline const AscendC::LocalTensor<float>& Result() const { return result_; }

  __aicore__ inline void EndCompute(const BnElemtTile& tile) {
    if (t_->dxDtype == kDtypeFloat16) {
      AscendC::Cast(dxOut_.ReinterpretCast<half>(), result_, AscendC::RoundMode::CAST_RINT, tile.Count());
    } else if (t_->dxDtype == kDtypeBfloat16) {
      AscendC::Cast(dxOut_.ReinterpretCast<bfloat16_t>(), result_, AscendC::RoundMode::CAST_RINT, tile.Count());
    }
    dxQue_.EnQue(dxOut_);
    dyQue_.FreeTensor(dyIn_);
    xQue_.FreeTensor(xIn_);
  }

  __aicore__ inline void CopyOut(const BnElemtTile& tile) {
    AscendC::LocalTensor<uint8_t> dx = dxQue_.DeQue<uint8_t>();
    if (t_->dxDtype == kDtypeFloat32) {
      BnElemtRowsOut<float>(dx_, dx, tile);
    } else if (t_->dxDtype == kDtypeFloat16) {
      BnElemtRowsOut<half>(dx_, dx, tile);
    } else {
      BnElemtRowsOut<bfloat16_t>(dx_, dx, tile);
    }
    dxQue_.FreeTensor(dx);
  }

 private:

  __aicore__ inline static void RowsIn(const AscendC::LocalTensor<uint8_t>& dst, GM_ADDR base, uint32_t dtype,
                                       const BnElemtTile& tile) {
    if (dtype == kDtypeFloat32) {
      BnElemtRowsIn<float>(dst, base, tile);
    } else if (dtype == kDtypeFloat16) {
      BnElemtRowsIn<half>(dst, base, tile);
    } else {
      BnElemtRowsIn<bfloat16_t>(dst, base, tile);
    }
  }

  __aicore__ inline static AscendC::LocalTensor<float> AsFloat(const AscendC::LocalTensor<uint8_t>& in,
                                                               AscendC::TBuf<AscendC::TPosition::VECCALC>& work,
                                                               uint32_t dtype, uint32_t count) {
    if (dtype == kDtypeFloat32) return in.ReinterpretCast<float>();
    AscendC::LocalTensor<float> f = work.Get<float>();
    if (dtype == kDtypeFloat16) {
      AscendC::Cast(f, in.ReinterpretCast<half>(), AscendC::RoundMode::CAST_NONE, count);
    } else {
      AscendC::Cast(f, in.ReinterpretCast<bfloat16_t>(), AscendC::RoundMode::CAST_NONE, count);
    }
    return f;
  }

  const BatchNormElemtGradTiling* t_ = nullptr;
  GM_ADDR dy_ = nullptr;
  GM_ADDR x_ = nullptr;
  GM_ADDR dx_ = nullptr;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> dyQue_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> xQue_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> dxQue_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> dyFloat_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> xFloat_;
  AscendC::LocalTensor<uint8_t> dyIn_;
  AscendC::LocalTensor<uint8_t> xIn_;
  AscendC::LocalTensor<uint8_t> dxOut_;
  AscendC::LocalTensor<float> dyF_;
  AscendC::LocalTensor<float> xF_;
  AscendC::LocalTensor<float> result_;
};

}  // namespace normgrad
