// BatchNormElemtGrad for short rows (small hw, [N, C] inputs): core b owns channels
// [c0, c0 + channels) of batches [n0, n0 + batches). For one batch those channels are one GM run
// of channels * hw elements (a "slab row"), so a tile of several batches is one strided DMA, and
// the four coefficients, expanded along a slab row and repeated for every row of a tile, stay
// resident in the UB for the whole kernel: the math is five full-width vector ops per tile.
//
//   x  = x - meanRow        Sub
//   x  = x * nabRow         Mul
//   dy = dy * aRow          Mul
//   x  = x + dy             Add
//   dx = x + nacRow         Add (into the dx tile when dx is fp32)
#pragma once
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_channel_block.h"
#include "batch_norm_elemt_grad_tile_stream.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "common/pipe_fence.h"

namespace normgrad {

class BatchNormElemtGradChannelSlabs {
 public:
  __aicore__ inline void Init(GM_ADDR dy, GM_ADDR x, const BnElemtStatArgs& stats, GM_ADDR dx,
                              const BatchNormElemtGradTiling& t, AscendC::TPipe* pipe) {
    t_ = &t;
    block_.Locate(t);
    rowLen_ = block_.channels * static_cast<uint32_t>(t.hw);
    const uint32_t blockElems = 32 / KernelDtypeBytes(t.dyDtype);
    pitch_ = (rowLen_ + blockElems - 1) / blockElems * blockElems;
    const uint32_t tileElems = static_cast<uint32_t>(BnElemtTileElems(t));
    stream_.Init(pipe, t, dy, x, dx, tileElems);
    const UbBuffer coef = BnElemtUbOf(t, tileElems).coef;  // kCoefCount rows (the layout's order)
    for (int32_t i = 0; i < kCoefCount; ++i) pipe->InitBuffer(coefRows_[i], static_cast<uint32_t>(coef.bytes));
    block_.LoadStats(stats, t, tileElems, pipe);
    ExpandCoefficients();
  }

  __aicore__ inline void Process() {
    const uint32_t rowsPerTile = t_->channelSlabs.rowsPerTile;
    for (uint32_t done = 0; done < block_.batches; done += rowsPerTile) {
      const uint32_t rows = block_.batches - done < rowsPerTile ? block_.batches - done : rowsPerTile;
      BnElemtTile tile{((block_.n0 + done) * t_->c + block_.c0) * t_->hw, t_->c * t_->hw, rows, rowLen_, pitch_};
      stream_.CopyIn(tile);
      Compute(tile);
      stream_.CopyOut(tile);
    }
  }

 private:
  enum CoefRow : int32_t { kMeanRow = 0, kNabRow, kARow, kNacRow, kCoefCount };
  static_assert(kCoefCount == kBnElemtCoefRows, "the UB layout plans kBnElemtCoefRows coefficient rows");

  __aicore__ inline void Compute(const BnElemtTile& tile) {
    stream_.BeginCompute(tile);
    const AscendC::LocalTensor<float>& x = stream_.X();
    const AscendC::LocalTensor<float>& dy = stream_.Dy();
    const int32_t count = static_cast<int32_t>(tile.Count());
    AscendC::Sub(x, x, coefRows_[kMeanRow].Get<float>(), count);
    AscendC::Mul(x, x, coefRows_[kNabRow].Get<float>(), count);
    AscendC::Mul(dy, dy, coefRows_[kARow].Get<float>(), count);
    AscendC::Add(x, x, dy, count);
    AscendC::Add(stream_.Result(), x, coefRows_[kNacRow].Get<float>(), count);
    stream_.EndCompute(tile);
  }

  // Row 0 of each coefficient buffer gets channel j's value on [j * hw, (j + 1) * hw) and zeros
  // on the pad lanes; rows 1.. are copies of row 0.
  __aicore__ inline void ExpandCoefficients() {
    for (int32_t i = 0; i < kCoefCount; ++i) AscendC::Duplicate(coefRows_[i].Get<float>(), 0.0f, pitch_);
    PipeFence<AscendC::HardEvent::V_S>();
    const float total = block_.Total();
    for (uint32_t j = 0; j < block_.channels; ++j) {
      const BnElemtCoefficients k = block_.Coefficients(total, j);
      const uint32_t begin = j * static_cast<uint32_t>(t_->hw);
      const uint32_t end = begin + static_cast<uint32_t>(t_->hw);
      Fill(coefRows_[kMeanRow].Get<float>(), begin, end, k.mean);
      Fill(coefRows_[kNabRow].Get<float>(), begin, end, k.nab);
      Fill(coefRows_[kARow].Get<float>(), begin, end, k.a);
      Fill(coefRows_[kNacRow].Get<float>(), begin, end, k.nac);
    }
    PipeFence<AscendC::HardEvent::S_V>();
    // Rows 0..k-1 copied onto rows k..2k-1, doubling k: log2(rowsPerTile) contiguous UB copies per
    // buffer instead of one per row (rows are consecutive, pitch floats apart: 32-byte multiples).
    // Each copy depends on the one before it: they run in order on the vector pipe.
    const uint32_t rows = t_->channelSlabs.rowsPerTile;
    for (int32_t i = 0; i < kCoefCount; ++i) {
      AscendC::LocalTensor<float> row = coefRows_[i].Get<float>();
      for (uint32_t have = 1; have < rows; have *= 2) {
        const uint32_t copy = rows - have < have ? rows - have : have;
        AscendC::DataCopy(row[have * pitch_], row, copy * pitch_);
        AscendC::PipeBarrier<PIPE_V>();
      }
    }
  }

  // dst[begin, end) = value: Duplicate on the whole 32-byte blocks, scalar stores on the ends.
  __aicore__ inline static void Fill(const AscendC::LocalTensor<float>& dst, uint32_t begin, uint32_t end,
                                     float value) {
    constexpr uint32_t kBlockFloats = 8;
    const uint32_t alignedBegin = (begin + kBlockFloats - 1) / kBlockFloats * kBlockFloats;
    const uint32_t alignedEnd = end / kBlockFloats * kBlockFloats;
    if (alignedBegin >= alignedEnd) {
      for (uint32_t i = begin; i < end; ++i) dst.SetValue(i, value);
      return;
    }
    for (uint32_t i = begin; i < alignedBegin; ++i) dst.SetValue(i, value);
    AscendC::Duplicate(dst[alignedBegin], value, static_cast<int32_t>(alignedEnd - alignedBegin));
    for (uint32_t i = alignedEnd; i < end; ++i) dst.SetValue(i, value);
  }

  const BatchNormElemtGradTiling* t_ = nullptr;
  BnElemtTileStream stream_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> coefRows_[kCoefCount];
  BnElemtChannelBlock block_;
  uint32_t rowLen_ = 0;
  uint32_t pitch_ = 0;
};

}  // namespace normgrad
