// BatchNormElemtGrad for long rows: core b owns the flat range [b * chunkElems, ...) (512-byte
// aligned); every tile lies inside one (n, c) row, so its coefficients are four scalars and the
// UB holds only the streamed tiles.
//
//   x  = x - mean          Adds
//   x  = x * nab           Muls
//   x  = x + a * dy        Axpy
//   dx = x + nac           Adds (into the dx tile when dx is fp32)
#pragma once
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_coefficients.h"
#include "batch_norm_elemt_grad_tile_stream.h"
#include "batch_norm_elemt_grad_tiling.h"

namespace normgrad {

class BatchNormElemtGradRowScalars {
 public:
  __aicore__ inline void Init(GM_ADDR dy, GM_ADDR x, const BnElemtStatArgs& stats, GM_ADDR dx,
                              const BatchNormElemtGradTiling& t, AscendC::TPipe* pipe) {
    t_ = &t;
    stats_ = stats;
    const int64_t numel = t.n * t.c * t.hw;
    begin_ = AscendC::GetBlockIdx() * t.rowScalars.chunkElems;
    end_ = begin_ + t.rowScalars.chunkElems < numel ? begin_ + t.rowScalars.chunkElems : numel;
    stream_.Init(pipe, t, dy, x, dx, t.rowScalars.tileElems);
    total_ = BnElemtCounterTotal(stats, t);
  }

  __aicore__ inline void Process() {
    int64_t row = -1;
    for (int64_t pos = begin_; pos < end_;) {
      if (pos / t_->hw != row) {
        row = pos / t_->hw;
        k_ = BnElemtChannelCoefficients(stats_, *t_, total_, row % t_->c);
      }
      int64_t len = (row + 1) * t_->hw - pos;
      if (len > end_ - pos) len = end_ - pos;
      if (len > t_->rowScalars.tileElems) len = t_->rowScalars.tileElems;
      BnElemtTile tile{pos, len, 1, static_cast<uint32_t>(len), static_cast<uint32_t>(len)};
      stream_.CopyIn(tile);
      Compute(tile);
      stream_.CopyOut(tile);
      pos += len;
    }
  }

 private:
  __aicore__ inline void Compute(const BnElemtTile& tile) {
    stream_.BeginCompute(tile);
    const AscendC::LocalTensor<float>& x = stream_.X();
    const int32_t count = static_cast<int32_t>(tile.Count());
    AscendC::Adds(x, x, -k_.mean, count);
    AscendC::Muls(x, x, k_.nab, count);
    AscendC::Axpy(x, stream_.Dy(), k_.a, count);
    AscendC::Adds(stream_.Result(), x, k_.nac, count);
    stream_.EndCompute(tile);
  }

  const BatchNormElemtGradTiling* t_ = nullptr;
  BnElemtStatArgs stats_{};
  BnElemtTileStream stream_;
  BnElemtCoefficients k_{};
  float total_ = 0.0f;
  int64_t begin_ = 0;
  int64_t end_ = 0;
};

}  // namespace normgrad
