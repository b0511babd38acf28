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
    for (uint32_t batch = 0;; ++batch) {
      const uint64_t first = BatchStart(batch);
      const uint32_t n = static_cast<uint32_t>(BatchStart(batch + 1) - first);
      if (n == 0) break;
      const uint64_t r0 = this->rowStart_ + first;
      this->CopyIn(r0, n);
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
