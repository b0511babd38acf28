// LayerNorm backward mode RowSlices (colSplit > 1): each of colSplit cores keeps one column slice
// of a batch of rows resident; after the slice's row sums are known the cores of a group swap
// them through the workspace around a barrier per batch (a SyncAll, or on A2/A3 the split-phase
// hardware flags, tiling field exchangeSync), so dy and x are still read once. With the flags,
// dgamma/dbeta of the first rowSlices.paramsAfterSet chunks are summed between set and wait.
#pragma once
#include "layer_norm_grad_chunks.h"
#include "common/arch.h"

namespace normgrad {

template <typename T, typename Copy>
class LayerNormGradRowSlices : public LayerNormGradChunks<T, Copy> {
 public:
  // Every core runs batchesPerRange batches (some may be empty) so that all reach each barrier.
  __aicore__ inline void Process() {
    const LayerNormGradTiling& t = this->t_;
    for (uint32_t batch = 0; batch < t.batchesPerRange; ++batch) {
      const uint32_t n = this->BatchRows(batch);
      const uint64_t r0 = this->rowStart_ + static_cast<uint64_t>(batch) * t.rowsPerBatch;
      if (n > 0) {
        this->CopyIn(r0, n);
        for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += t.chunkCols) this->AccumulateChunk(n, c0);
        if (t.needDx) this->FinishRowSums(n);
      }
      if (t.needDx) PublishRowSums(batch, n);
      // Work that needs no other slice's sums covers the barrier's latency (split flag only).
      if (n > 0) {
        const uint32_t end = t.rowSlices.paramsAfterSet * t.chunkCols;
        for (uint32_t c0 = 0; c0 < end && c0 < this->sliceCols_; c0 += t.chunkCols) this->ParamsChunk(n, c0);
        if (t.rowSlices.exchangeSync == kLnExchangeSplitFlag) this->PrepareDxRow0(n);
      }
      if (this->PublishEarly(batch + 1 == t.batchesPerRange)) this->PublishParams();
      if (t.needDx) CollectRowSums(batch, n);
      if (n > 0) {
        if (t.needDx) {
          for (uint32_t c0 = 0; c0 < this->sliceCols_; c0 += t.chunkCols) this->DxChunk(n, c0);
          this->StoreDx(r0, n);
        }
        this->FreeInputs();
      }
    }
    this->DrainDx();
    this->PublishParams();
  }

 private:
  // Slot layout in the workspace, floats: [parity][core][sum1 | sum2][bp]. Alternating parity lets
  // a core publish batch i+1 while a slower peer is still reading batch i.
  __aicore__ inline uint64_t ParityBase(uint32_t batch) const {
    return static_cast<uint64_t>(batch % 2) * this->t_.blockDim * 2 * this->bp_;
  }

  // Stores this slice's row sums of the batch; with the split flag also raises it (the first half
  // of the barrier).
  __aicore__ inline void PublishRowSums(uint32_t batch, uint32_t n) {
    const uint32_t bp = this->bp_;
    GM_ADDR slots = this->a_.workspace + this->t_.exchangeOffset;
    const uint64_t parityBase = ParityBase(batch);
    if (n > 0) {
      PipeFence<AscendC::HardEvent::V_MTE3>();
      CopyUbToGm(slots, parityBase + this->core_ * 2ull * bp, this->sum1_, bp, this->ioWs_);
      CopyUbToGm(slots, parityBase + (this->core_ * 2ull + 1) * bp, this->sum2_, bp, this->ioWs_);
    }
    if (this->t_.rowSlices.exchangeSync == kLnExchangeSplitFlag) SetExchangeFlag();
  }

  // Waits for every slice's sums of the batch (the flag, or a SyncAll) and adds them in slice order.
  __aicore__ inline void CollectRowSums(uint32_t batch, uint32_t n) {
    const LayerNormGradTiling& t = this->t_;
    const uint32_t bp = this->bp_;
    GM_ADDR slots = this->a_.workspace + t.exchangeOffset;
    const uint64_t parityBase = ParityBase(batch);
    if (t.rowSlices.exchangeSync == kLnExchangeSplitFlag) {
      WaitExchangeFlag();
    } else {
      FullSyncAll();
    }
    if (n == 0) return;
    AscendC::LocalTensor<float> all = this->Ub(kLnUbExch);
    CopyGmToUb(all, slots, parityBase + static_cast<uint64_t>(this->range_) * t.colSplit * 2 * bp,
               t.colSplit * 2 * bp, this->ioWs_);
    PipeFence<AscendC::HardEvent::MTE2_S>();
    for (uint32_t r = 0; r < n; ++r) {
      float s1 = 0.0f, s2 = 0.0f;
      for (uint32_t j = 0; j < t.colSplit; ++j) {  // slice order: the same sum on every core
        s1 += all.GetValue(j * 2 * bp + r);
        s2 += all.GetValue((j * 2 + 1) * bp + r);
      }
      this->sum1_.SetValue(r, s1);
      this->sum2_.SetValue(r, s2);
    }
    PipeFence<AscendC::HardEvent::S_V>();
  }

  // Everyone's batch sums are in the workspace: PipeBarrier<PIPE_ALL> and a SyncAll (hard, or the
  // soft one on the training series), one pipe drain per batch.
  __aicore__ inline void FullSyncAll() {
    const LayerNormGradTiling& t = this->t_;
    AscendC::PipeBarrier<PIPE_ALL>();
    if (t.softSync) {
      AscendC::GlobalTensor<int32_t> flags;
      flags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(this->a_.workspace + t.syncOffset), t.blockDim * 8);
      AscendC::SyncAll(flags, this->buf_[kLnUbSync].template Get<int32_t>());
    } else {
      AscendC::SyncAll();
    }
  }

  // The same barrier in split phase without draining the pipes (A2/A3): the set rides the MTE3
  // queue behind this core's stores of its sums, so it lands once they have; the wait (scalar
  // unit) holds back the reads of the other slices' sums until every core has set. The MTE3_MTE2
  // fence orders this core's own read after its own store (the flags order other cores only).
  // Between the two the core goes on with work of its own (paramsAfterSet).
  __aicore__ inline void SetExchangeFlag() {
#if !NORMGRAD_BLOCK_COPY_ARCH
    AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(kExchangeFlagId);
    PipeFence<AscendC::HardEvent::MTE3_MTE2>();
#endif
  }
  __aicore__ inline void WaitExchangeFlag() {
#if !NORMGRAD_BLOCK_COPY_ARCH
    AscendC::CrossCoreWaitFlag(kExchangeFlagId);
#endif
  }

  // Hardware flag of the exchange (ids 0-10 are the kernel's; SyncAll uses 11-14).
  static constexpr uint16_t kExchangeFlagId = 0;
};

}  // namespace normgrad
