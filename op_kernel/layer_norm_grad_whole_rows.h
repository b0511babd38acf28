// LayerNorm backward mode WholeRows (colSplit == 1): whole rows of dy and x resident in UB, gamma
// and the dgamma/dbeta sums of all D columns resident across batches; no exchange between cores
// until the dgamma/dbeta partials (see layer_norm_grad_batch.h for the math).
#pragma once
#include "layer_norm_grad_chunks.h"

namespace normgrad {

template <typename T, typename Copy>
class LayerNormGradWholeRows : public LayerNormGradChunks<T, Copy> {
 public:
  __aicore__ inline void Process() {
    for (uint32_t batch = 0;; ++batch) {
      const uint32_t n = this->BatchRows(batch);
      if (n == 0) break;
      const uint64_t r0 = this->rowStart_ + static_cast<uint64_t>(batch) * this->t_.rowsPerBatch;
      this->CopyIn(r0, n);
      for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += this->t_.chunkCols) this->AccumulateChunk(n, c0);
      if (this->PublishEarly(this->BatchRows(batch + 1) == 0)) this->PublishParams();
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
};

}  // namespace normgrad
