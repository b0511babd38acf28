// What BatchNormElemtGrad's channel slabs and channel rows share: the block of channels
// [c0, c0 + channels) x batches [n0, n0 + batches) core b owns, and its channels' coefficients,
// from the statistics copied into the UB (statsInUb) or read from GM as scalars.
#pragma once
#include "kernel_operator.h"
#include "batch_norm_elemt_grad_coefficients.h"
#include "batch_norm_elemt_grad_tiling.h"

namespace normgrad {

struct BnElemtChannelBlock {
  int64_t c0 = 0;
  int64_t n0 = 0;
  uint32_t channels = 0;
  uint32_t batches = 0;

  // This core's block (the last channel and batch groups may be smaller).
  __aicore__ inline void Locate(const BatchNormElemtGradTiling& t) {
    const BatchNormElemtGradChannelSlabsTiling& s = t.channelSlabs;
    const int64_t block = AscendC::GetBlockIdx();
    c0 = block / s.batchGroups * s.channelsPerCore;
    n0 = block % s.batchGroups * s.batchesPerCore;
    channels = t.c - c0 < s.channelsPerCore ? static_cast<uint32_t>(t.c - c0) : s.channelsPerCore;
    batches = t.n - n0 < s.batchesPerCore ? static_cast<uint32_t>(t.n - n0) : s.batchesPerCore;
  }

  // The statistics slots, the last member of the UB layout (allocated after the coefficients), and
  // their copy; a no-op when the tiling reads the statistics from GM.
  __aicore__ inline void LoadStats(const BnElemtStatArgs& stats, const BatchNormElemtGradTiling& t,
                                   uint64_t tileElems, AscendC::TPipe* pipe) {
    stats_ = stats;
    t_ = &t;
    if (t.channelSlabs.statsInUb == 0) return;
    pipe->InitBuffer(statsBuf_, static_cast<uint32_t>(BnElemtUbOf(t, tileElems).stats.bytes));
    ubStats_.slots = statsBuf_.Get<uint8_t>();
    ubStats_.slotBytes = static_cast<uint32_t>(BnElemtStatSlotBytes(t.channelSlabs.channelsPerCore, t.counterNumel));
    ubStats_.Load(stats, t, c0, channels);
  }

  // The counter's total, then the coefficients of channel c0 + j (scalar unit).
  __aicore__ inline float Total() const {
    return t_->channelSlabs.statsInUb != 0 ? ubStats_.Total(*t_) : BnElemtCounterTotal(stats_, *t_);
  }
  __aicore__ inline BnElemtCoefficients Coefficients(float total, uint32_t j) const {
    return t_->channelSlabs.statsInUb != 0 ? ubStats_.Coefficients(*t_, total, c0 + j)
                                           : BnElemtChannelCoefficients(stats_, *t_, total, c0 + j);
  }

 private:
  const BatchNormElemtGradTiling* t_ = nullptr;
  BnElemtStatArgs stats_{};
  AscendC::TBuf<AscendC::TPosition::VECCALC> statsBuf_;
  BnElemtUbStats ubStats_;
};

}  // namespace normgrad
