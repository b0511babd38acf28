// BatchNormElemtGrad for short rows of a few 32-byte blocks on few batches (ResNet-50 stage 4 at
// N = 4: hw = 49): core b owns the channel slabs' block of channels [c0, c0 + channels) x batches
// [n0, n0 + batches), but every (n, c) row of hw elements starts its own 32-byte-aligned UB row
// (one DataCopyPad per batch moves the batch's channels), and the four coefficients are Brcb'd to
// one 32-byte block per row of a tile. Each step of the math is then one level-0 instruction that
// repeats over up to 255 rows (op_kernel/common/row_repeat.h), where the slabs spend one Duplicate
// per channel and coefficient expanding the coefficients along the slab row.
//
//   x  = x - mean          Sub  (mean Brcb'd per row)
//   x  = x * nab           Mul
//   dy = dy * a            Mul
//   x  = x + dy            Add  (count form over the tile)
//   dx = x + nac           Add  (into the dx tile when dx is fp32)
//
// The same ops on the same values as the slabs: outputs bitwise those of channel slabs.
#pragma once
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_channel_block.h"
#include "batch_norm_elemt_grad_tile_stream.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "common/pipe_fence.h"
#include "common/row_repeat.h"

namespace normgrad {

class BatchNormElemtGradChannelRows {
 public:
  __aicore__ inline void Init(GM_ADDR dy, GM_ADDR x, const BnElemtStatArgs& stats, GM_ADDR dx,
                              const BatchNormElemtGradTiling& t, AscendC::TPipe* pipe) {
    t_ = &t;
    block_.Locate(t);
    const uint32_t tileElems = static_cast<uint32_t>(BnElemtTileElems(t));
    stream_.Init(pipe, t, dy, x, dx, tileElems);
    const UbBuffer coef = BnElemtUbOf(t, tileElems).coef;  // kCoefCount buffers (the layout's order)
    for (int32_t i = 0; i < kCoefCount; ++i) pipe->InitBuffer(coef_[i], static_cast<uint32_t>(coef.bytes));
    block_.LoadStats(stats, t, tileElems, pipe);
    BroadcastCoefficients(coef.bytes);
  }

  __aicore__ inline void Process() {
    const uint32_t perTile = t_->channelSlabs.rowsPerTile;
    const uint32_t pitch = t_->channelSlabs.rowPitch;
    for (uint32_t done = 0; done < block_.batches; done += perTile) {
      const uint32_t batches = block_.batches - done < perTile ? block_.batches - done : perTile;
      BnElemtTile tile{((block_.n0 + done) * t_->c + block_.c0) * t_->hw, t_->hw, block_.channels,
                       static_cast<uint32_t>(t_->hw), pitch, batches, t_->c * t_->hw};
      stream_.CopyIn(tile);
      Compute(tile);
      stream_.CopyOut(tile);
    }
  }

 private:
  enum Coef : int32_t { kMean = 0, kNab, kA, kNac, kCoefCount };
  static_assert(kCoefCount == kBnElemtCoefRows, "the UB layout plans kBnElemtCoefRows coefficient buffers");

  __aicore__ inline void Compute(const BnElemtTile& tile) {
    stream_.BeginCompute(tile);
    const uint32_t rows = tile.rows * tile.groups, cols = tile.rowLen;
    const uint8_t rep = static_cast<uint8_t>(tile.pitch / 8);  // fp32 blocks per row
    const RowOperand x{stream_.X(), 1, rep}, dy{stream_.Dy(), 1, rep}, result{stream_.Result(), 1, rep};
    const auto coef = [this](int32_t i) { return RowOperand{coef_[i].Get<float>(), 0, 1}; };
    RowsBinary(RowOp::kSub, x, x, coef(kMean), rows, cols);
    RowsBinary(RowOp::kMul, x, x, coef(kNab), rows, cols);
    RowsBinary(RowOp::kMul, dy, dy, coef(kA), rows, cols);
    AscendC::Add(stream_.X(), stream_.X(), stream_.Dy(), static_cast<int32_t>(tile.Count()));
    RowsBinary(RowOp::kAdd, result, x, coef(kNac), rows, cols);
    stream_.EndCompute(tile);
  }

  // Block r of each coefficient buffer = 8 copies of row r's coefficient, for the rows of a full
  // tile (channel j of every batch: block b * channels + j). The channels' values are written by the
  // scalar unit past the blocks, Brcb'd onto blocks [0, channels), then copied batch after batch.
  __aicore__ inline void BroadcastCoefficients(uint64_t coefBytes) {
    const uint32_t channels = block_.channels;
    const uint32_t brcbRows = (channels + 7) / 8 * 8;
    const uint32_t stageAt = static_cast<uint32_t>(coefBytes / 4) - brcbRows;  // floats
    const float total = block_.Total();
    for (uint32_t j = 0; j < brcbRows; ++j) {
      BnElemtCoefficients k{0.0f, 0.0f, 0.0f, 0.0f};  // the pad rows Brcb reads get zeros
      if (j < channels) k = block_.Coefficients(total, j);
      coef_[kMean].Get<float>().SetValue(stageAt + j, k.mean);
      coef_[kNab].Get<float>().SetValue(stageAt + j, k.nab);
      coef_[kA].Get<float>().SetValue(stageAt + j, k.a);
      coef_[kNac].Get<float>().SetValue(stageAt + j, k.nac);
    }
    PipeFence<AscendC::HardEvent::S_V>();
    const uint32_t batchesPerTile = t_->channelSlabs.rowsPerTile;
    for (int32_t i = 0; i < kCoefCount; ++i) {
      const AscendC::LocalTensor<float> blocks = coef_[i].Get<float>();
      RowScalars(blocks, blocks[stageAt], channels);
      AscendC::PipeBarrier<PIPE_V>();
      // Batches 0..k-1 copied onto k..2k-1, doubling k; each copy reads what the one before wrote.
      for (uint32_t have = 1; have < batchesPerTile; have *= 2) {
        const uint32_t copy = batchesPerTile - have < have ? batchesPerTile - have : have;
        AscendC::DataCopy(blocks[have * channels * 8], blocks, copy * channels * 8);
        AscendC::PipeBarrier<PIPE_V>();
      }
    }
  }

  const BatchNormElemtGradTiling* t_ = nullptr;
  BnElemtTileStream stream_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> coef_[kCoefCount];
  BnElemtChannelBlock block_;
};

}  // namespace normgrad
