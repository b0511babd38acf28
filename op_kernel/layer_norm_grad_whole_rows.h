// LayerNorm backward mode WholeRows (colSplit == 1): whole rows of dy and x resident in UB, gamma
// and the dgamma/dbeta sums of all D columns resident across batches; no exchange between cores
// until the dgamma/dbeta partials (see layer_norm_grad_batch.h for the math).
#pragma once
#include "layer_norm_grad_chunks.h"

namespace normgrad {

template <typename T, typename Copy>
class LayerNormGradWholeRows : public LayerNormGradChunks<T, Copy> {
  using Base = LayerNormGradChunks<T, Copy>;

 public:
  __aicore__ inline void Process() {
    const bool deferDx = DefersDx();
    bool deferred = false;  // the batch before holds g, x - mean and its row sums, dx not yet formed
    uint64_t prevR0 = 0;
    uint32_t prevN = 0;
    for (uint32_t batch = 0;; ++batch) {
      const uint64_t first = BatchStart(batch);
      const uint32_t n = static_cast<uint32_t>(BatchStart(batch + 1) - first);
      if (n == 0) break;
      const uint64_t r0 = this->rowStart_ + first;
      if (deferred) {
        LastBatchAfterDeferredDx(r0, n, prevR0, prevN);
        continue;
      }
      this->CopyIn(r0, n);
      if (deferDx && BatchStart(batch + 2) > BatchStart(batch + 1) && BatchStart(batch + 3) == BatchStart(batch + 2)) {
        // The last batch but one: its row sums now, its dx after the last batch's flag set.
        this->AccumulateTile(n);
        this->FinishRowSums(n);
        prevDy_ = this->dyIn_;
        prevX_ = this->xIn_;
        prevSlot_ = this->dySlot_;
        prevR0 = r0;
        prevN = n;
        deferred = true;
        continue;
      }
      if (this->PublishEarly(BatchStart(batch + 2) == BatchStart(batch + 1))) {
        // Last batch, split phase: publish the partials as soon as they are final; the row sums
        // (one chunk: from the work tiles the params pass left) and dx follow the flag's set.
        const bool tile = !this->recompute_;
        if (tile) {
          this->AccumulateTile(n, Base::kTileParams);
        } else {
          for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += this->t_.chunkCols) this->AccumulateChunk(n, c0);
        }
        this->PublishParams();
        if (tile) this->AccumulateTile(n, Base::kTileRowSums);
      } else {
        for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += this->t_.chunkCols) this->AccumulateChunk(n, c0);
      }
      if (this->t_.needDx) {
        this->FinishRowSums(n);
        for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += this->t_.chunkCols) this->DxChunk(n, c0);
        this->StoreDx(r0, n);
      }
      this->FreeInputs();
    }
    this->DrainDx();
    this->FinishDense();
    this->PublishParams();
  }

 private:
  // fp32 whole rows in one tile with the split-phase stage-2 flag and double buffering: the last
  // batch but one forms its row sums and leaves its dx until after the last batch's dgamma/dbeta
  // are published, so that dx also runs between the flag's set and its wait (the model charges
  // the wait less the work since the set: fp32 8192 x 768, 9-row batches, 1.25 -> about 0.85 us).
  // The last batch's params pass centres x into the third work tile (tmpF_), as the x - mean of
  // the batch before still sits in xhatF_, and reads its statistics from acc2_, as meanF_/rstdF_
  // still hold the batch before's. Same ops in the same order on the same values: same outputs.
  __aicore__ inline bool DefersDx() const {
    return Base::kFloatIn && !this->recompute_ && !this->fused_ && !this->shortRows_ && this->t_.reduce.splitPhase &&
           this->t_.needDx && this->t_.bufferNum == 2 && this->t_.accResident && !this->t_.blockCopy;
  }

  __aicore__ inline void LastBatchAfterDeferredDx(uint64_t r0, uint32_t n, uint64_t prevR0, uint32_t prevN) {
    if constexpr (Base::kFloatIn) {  // DefersDx: fp32 only
      const uint32_t w = this->t_.chunkCols;
      const int32_t cnt = static_cast<int32_t>(this->sliceCols_);
      // Load the last batch, its statistics into acc2_ (free until its row sums).
      AscendC::LocalTensor<float> mean = this->acc2_, rstd = this->acc2_[this->bp_];
      this->LoadBatch(r0, n, mean, rstd);
      // Its dgamma/dbeta half, with x - mean in tmpF_, then publish.
      this->CentredTileParams(n, this->dyIn_, this->tmpF_, this->tmpF_, mean, rstd);
      this->PublishParams();
      // The batch before's dx, from its resident g, x - mean (xhatF_), row sums and statistics.
      const AscendC::LocalTensor<float> dy = this->dyIn_, x = this->xIn_;
      const uint32_t slot = this->dySlot_;
      this->dyIn_ = prevDy_;
      this->xIn_ = prevX_;
      this->dySlot_ = prevSlot_;
      this->DxChunk(prevN, 0);
      this->StoreDx(prevR0, prevN);
      this->FreeInputs();
      this->dyIn_ = dy;
      this->xIn_ = x;
      this->dySlot_ = slot;
      // The last batch: statistics into place, x - mean again, row sums, dx.
      AscendC::Muls(this->meanF_, mean, 1.0f, static_cast<int32_t>(n));
      AscendC::Muls(this->rstdF_, rstd, 1.0f, static_cast<int32_t>(n));
      this->ZeroRowSums(n);
      PipeFence<AscendC::HardEvent::V_S>();
      for (uint32_t r = 0; r < n; ++r) {
        AscendC::Adds(this->xhatF_[r * w], this->xIn_[r * w], -this->meanF_.GetValue(r), cnt);
      }
      this->AccumulateTile(n, Base::kTileRowSums);
      this->FinishRowSums(n);
      this->DxChunk(n, 0);
      this->StoreDx(r0, n);
      this->FreeInputs();
    }
  }

  AscendC::LocalTensor<T> prevDy_, prevX_;
  uint32_t prevSlot_ = 0;

  // First row (within the core's range) of batch `batch`, rowCount_ past the last. With
  // reduce.splitPhase the short batch comes first, so the last one, whose row sums and dx run
  // after the flag's set, is a full batch; the rows keep their order, so the sums are the same.
  __aicore__ inline uint64_t BatchStart(uint32_t batch) const {
    const uint64_t b = this->t_.rowsPerBatch, rows = this->rowCount_;
    const uint64_t lead = this->t_.reduce.splitPhase ? (b - rows % b) % b : 0;  // rows the first batch lacks
    const uint64_t s = static_cast<uint64_t>(batch) * b;
    const uint64_t start = s > lead ? s - lead : 0;
    return start < rows ? start : rows;
  }
};

}  // namespace normgrad
