// GroupNormGrad sample rows, stage 2: with Pn > 1 sample chunks each core left fp32 dgamma/dbeta
// partials of its chunk in the workspace ([chunk][C] for dgamma, then for dbeta); after one
// SyncAll core k adds the Pn partials of its channel range in chunk order 0..Pn-1 and writes the
// outputs, bitwise identical run after run. UB layout: GngStage2Ub (group_norm_grad_ub_layout.h).
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "group_norm_grad_scalars.h"
#include "group_norm_grad_ub_alloc.h"

namespace normgrad {

template <typename T>
class GroupNormGradSampleRowsStage2 {
 public:
  // After every core's tiles (GroupNormGradSampleRows::Process): the stage-2 sum.
  __aicore__ inline void Run(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    gm_ = gm;
    pipe_ = pipe;
    if (t_->sampleRows.sampleSplit <= 1 || !(t_->needDgamma || t_->needDbeta)) return;
    AscendC::PipeBarrier<PIPE_ALL>();  // the partials have left before the other cores read them
    AscendC::SyncAll();
    pipe_->Reset();
    const uint64_t pn = t_->sampleRows.sampleSplit;
    const uint32_t batch = static_cast<uint32_t>(t_->sampleRows.stage2Batch);
    const GngStage2UbLayout l = GngStage2Ub(sizeof(T), pn, batch);
    GngAllocBuf(pipe_, parts_, l.parts);
    GngAllocBuf(pipe_, sum_, l.sum);
    GngAllocBuf(pipe_, stage_, l.stage);
    const uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    const uint64_t begin = core * t_->sampleRows.stage2Channels;
    uint64_t end = begin + t_->sampleRows.stage2Channels;
    if (end > t_->c) end = t_->c;
    for (uint64_t c = begin; c < end; c += batch) {
      const uint32_t count = static_cast<uint32_t>(end - c < batch ? end - c : batch);
      if (t_->needDgamma) Stage2Batch(0, gm_.dgamma, c, count);
      if (t_->needDbeta) Stage2Batch(1, gm_.dbeta, c, count);
    }
  }

 private:
  static constexpr bool IsFloat() { return AscendC::IsSameType<T, float>::value; }

  // Channels [c, c + count) of plane `which`: the Pn partials summed in chunk order, then stored.
  __aicore__ inline void Stage2Batch(uint32_t which, const AscendC::GlobalTensor<T>& out, uint64_t c, uint32_t count) {
    const uint32_t stride = (static_cast<uint32_t>(t_->sampleRows.stage2Batch) + 7) / 8 * 8;
    const uint32_t pn = static_cast<uint32_t>(t_->sampleRows.sampleSplit);
    AscendC::LocalTensor<float> parts = parts_.template Get<float>();
    AscendC::LocalTensor<float> sum = sum_.template Get<float>();
    AscendC::GlobalTensor<float> ws = which == 0 ? gm_.wsDb : gm_.wsDs;
    AscendC::DataCopyExtParams p(static_cast<uint16_t>(pn), count * 4, static_cast<uint32_t>((t_->c - count) * 4),
                                 (stride - (count + 7) / 8 * 8) / 8, 0);
    AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    PipeFence<AscendC::HardEvent::V_MTE2>();
    PipeFence<AscendC::HardEvent::MTE3_MTE2>();
    PadCopy(parts, ws[c], p, pad);
    PipeFence<AscendC::HardEvent::MTE2_V>();
    AscendC::Adds(sum, parts, 0.0f, static_cast<int32_t>(count));
    AscendC::PipeBarrier<PIPE_V>();
    for (uint32_t k = 1; k < pn; ++k) {
      AscendC::Add(sum, sum, parts[k * stride], static_cast<int32_t>(count));
      AscendC::PipeBarrier<PIPE_V>();
    }
    AscendC::DataCopyExtParams o(1, count * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
    if constexpr (IsFloat()) {
      PipeFence<AscendC::HardEvent::V_MTE3>();
      PadCopy(out[c], sum, o);
    } else {
      AscendC::LocalTensor<T> staging = stage_.template Get<T>();
      PipeFence<AscendC::HardEvent::MTE3_V>();
      AscendC::Cast(staging, sum, AscendC::RoundMode::CAST_RINT, count);
      PipeFence<AscendC::HardEvent::V_MTE3>();
      PadCopy(out[c], staging, o);
    }
    PipeFence<AscendC::HardEvent::MTE3_V>();
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  AscendC::TPipe* pipe_ = nullptr;
  AscendC::TBuf<AscendC::TPosition::VECCALC> parts_, sum_, stage_;
};

}  // namespace normgrad
