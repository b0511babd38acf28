// GroupNormGrad, channel slabs: core k holds the rows (n, c) of every sample n for its channel
// range [c0, c0 + channels) (the dgamma/dbeta split of the tiling), all resident at once.
//   - Groups wholly inside the range need nothing from other cores.
//   - The range shares at most two groups with its neighbours, the one it starts in (head) and
//     the one it ends in (tail). Per sample the core publishes its partial gamma-weighted sums
//     (db, ds) of both and, after one SyncAll, adds the partials of every core sharing the group
//     in core order, so all sharers compute the same bits run after run (no atomics). Ranges of
//     whole groups (the tiling's choice where modeled faster, GngSlabExchanges false) share
//     nothing: no partials, no barrier.
//   - dgamma/dbeta of its own channels are sums over n of the row sums it holds in UB, n in
//     order 0..N-1 like the params phase of the other modes.
// So no per-(n, c) sums go through the workspace: only 16 bytes per core and sample, written
// once and read by the one or two neighbours sharing a group.
//
// Workspace: core k's 4n floats start at k * 4n: [head (db, ds) for n = 0..N-1][tail (db, ds)
// for n = 0..N-1]. A core whose range lies inside one group writes the same sums on both sides.
// gamma of its channels and mean/rstd of its groups for every n are copied into UB once (three
// DataCopyPads of exact bytes) and read from there: GM scalar reads would move 64-byte lines.
#pragma once
#include "common/pad_copy.h"
#include "common/arch.h"
#include "group_norm_grad_params.h"
#include "group_norm_grad_tile.h"
#include "group_norm_grad_ub_alloc.h"

namespace normgrad {

template <typename T>
class GroupNormGradChannelSlab {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    gm_ = gm;
    core_ = static_cast<uint64_t>(AscendC::GetBlockIdx());
    const uint64_t d = t.channelsPerGroup;
    c0_ = FirstChannel(core_);
    channels_ = static_cast<uint32_t>(t.paramChannelsPerCore + (core_ < t.paramChannelsRemainder ? 1 : 0));
    headGroup_ = c0_ / d;
    tailGroup_ = (c0_ + channels_ - 1) / d;
    tile_.Init(t, gm, pipe, static_cast<uint32_t>(t.slabTileSlots), 1, 0,
               GngSlabDxBuffers(t.chunkElems, t.rowStride, t.slabTileSlots));
    // The layout the tiling summed beside the tile (group_norm_grad_ub_layout.h), sized for the
    // most channels and groups any core's range spans.
    const uint64_t most = t.paramChannelsPerCore + (t.paramChannelsRemainder > 0 ? 1 : 0);
    const GngSlabUbLayout l = GngSlabUb(sizeof(T), t.n, most, d, t.g, t.hasGamma != 0);
    GngAllocBuf(pipe, own_, l.own);
    GngAllocBuf(pipe, peer_, l.peer);
    GngAllocBuf(pipe, gathered_, l.gathered);
    GngAllocBuf(pipe, accG_, l.accG);
    GngAllocBuf(pipe, accB_, l.accB);
    GngAllocBuf(pipe, outG_, l.outG);
    GngAllocBuf(pipe, outB_, l.outB);
    GngAllocBuf(pipe, gammaUb_, l.gamma);
    GngAllocBuf(pipe, meanUb_, l.mean);
    GngAllocBuf(pipe, rstdUb_, l.rstd);
    GngAllocBuf(pipe, gammaF_, l.gammaF);
    GngAllocBuf(pipe, gammaBlocks_, l.gammaBlocks);
  }

  __aicore__ inline void Process() {
    const uint32_t n = static_cast<uint32_t>(t_->n);
    tile_.CopyIn(c0_, channels_, n, t_->c);  // hwParts == 1: piece (n, c) is n * C + c
    LoadScalars();
    tile_.Hold(c0_, channels_, n, t_->c);
    tile_.Sums(false);
    PipeFence<AscendC::HardEvent::V_S>();  // the row sums were written by WholeReduceSum
    const bool shares = Shared(headGroup_) || Shared(tailGroup_);
    if (shares) PublishPartials();
#if !NORMGRAD_BLOCK_COPY_ARCH  // split-phase flags: A2/A3 (the tiling's choice)
    // Split phase (paramsSplitPhase): the set rides the MTE3 queue behind this core's partials,
    // the only bytes other cores read, so dgamma/dbeta below run while the others finish theirs.
    if (t_->paramsSplitPhase) AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(kGngSlabFlagId);
#endif
    ParamGrads();  // needs nothing from other cores: done before waiting for them
    if (GngSlabExchanges(*t_)) {  // else every range is whole groups: nothing to wait for
      AscendC::PipeBarrier<PIPE_ALL>();  // partials land before other cores read them
#if !NORMGRAD_BLOCK_COPY_ARCH
      if (t_->paramsSplitPhase) {
        AscendC::CrossCoreWaitFlag(kGngSlabFlagId);  // every core's partials are stored
      } else {
        AscendC::SyncAll();
      }
#else
      AscendC::SyncAll();
#endif
    }
    if (shares) {
      GatherGroupSums();
      tile_.UseGatheredSums(gathered_.template Get<float>(), headGroup_);
    }
    tile_.Dx();
    tile_.Release();
  }

 private:
  // Hardware flag of the split-phase barrier (ids 0-10 are the kernel's; SyncAll uses 11-14).
  static constexpr uint16_t kGngSlabFlagId = 0;

  __aicore__ inline uint64_t FirstChannel(uint64_t k) const {
    const uint64_t rem = t_->paramChannelsRemainder;
    return k * t_->paramChannelsPerCore + (k < rem ? k : rem);
  }
  // The core whose range holds channel c (paramChannelsPerCore >= 1 in this mode).
  __aicore__ inline uint64_t CoreOf(uint64_t c) const {
    const uint64_t base = t_->paramChannelsPerCore;
    const uint64_t big = t_->paramChannelsRemainder * (base + 1);
    return c < big ? c / (base + 1) : t_->paramChannelsRemainder + (c - big) / base;
  }
  // Group g has channels outside this core's range.
  __aicore__ inline bool Shared(uint64_t g) const {
    const uint64_t d = t_->channelsPerGroup;
    return g * d < c0_ || (g + 1) * d > c0_ + channels_;
  }
  __aicore__ inline float Gamma(uint64_t c) const { return scalars_.Gamma(gm_, c); }

  // gamma of the core's channels, mean and rstd of its groups [head, tail] for every sample.
  __aicore__ inline void LoadScalars() {
    scalars_.gamma = gammaUb_.template Get<T>();
    scalars_.mean = meanUb_.template Get<T>();
    scalars_.rstd = rstdUb_.template Get<T>();
    scalars_.Load(gm_, c0_, channels_, 0, static_cast<uint32_t>(t_->n), headGroup_,
                  static_cast<uint32_t>(tailGroup_ - headGroup_ + 1), t_->g);
    tile_.UseScalars(scalars_);
    // 16-bit slabs are vector-bound (fp32 ones wait on the port: their dx and sums keep the
    // per-row instructions and their bits).
    if constexpr (!AscendC::IsSameType<T, float>::value) {
      tile_.UseBlockSums();
      if (t_->hasGamma) GammaBlocks();
    }
  }

  // gamma of slot (sample r, channel i) in block r * channels + i for the tile's dx
  // (UseGammaBlocks): gamma in fp32 (zero past the core's channels, which Brcb's last repeat
  // reads), then one Brcb per sample, in sample order so each overwrites the previous one's spill.
  __aicore__ inline void GammaBlocks() {
    AscendC::LocalTensor<float> g = gammaF_.template Get<float>();
    AscendC::LocalTensor<float> blocks = gammaBlocks_.template Get<float>();
    const int32_t padded = static_cast<int32_t>((channels_ + 7) / 8 * 8);
    PipeFence<AscendC::HardEvent::MTE2_V>();  // gamma's UB copy (LoadScalars)
    AscendC::Duplicate(g, 0.0f, padded);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Cast(g, gammaUb_.template Get<T>(), AscendC::RoundMode::CAST_NONE, static_cast<int32_t>(channels_));
    AscendC::PipeBarrier<PIPE_V>();
    for (uint32_t r = 0; r < static_cast<uint32_t>(t_->n); ++r) RowScalars(blocks[r * channels_ * 8], g, channels_);
    tile_.UseGammaBlocks(blocks);
  }

  // sum over local channels [begin, end) of gamma * (db, ds) of sample n, in channel order (the
  // order the tile uses for groups it holds whole).
  __aicore__ inline void WeightedSums(uint32_t n, uint32_t begin, uint32_t end, float& sumDb, float& sumDs) {
    AscendC::LocalTensor<float> db = tile_.SlotDb();
    AscendC::LocalTensor<float> ds = tile_.SlotDs();
    sumDb = 0.0f;
    sumDs = 0.0f;
    for (uint32_t i = begin; i < end; ++i) {
      const float gamma = Gamma(c0_ + i);
      sumDb += gamma * db.GetValue(n * channels_ + i);
      sumDs += gamma * ds.GetValue(n * channels_ + i);
    }
  }

  // own = [head (db, ds) per n][tail (db, ds) per n], then one copy to this core's workspace slot.
  __aicore__ inline void PublishPartials() {
    const uint64_t d = t_->channelsPerGroup;
    const uint32_t n = static_cast<uint32_t>(t_->n);
    const uint64_t end = c0_ + channels_;
    const uint32_t headEnd = static_cast<uint32_t>(((headGroup_ + 1) * d < end ? (headGroup_ + 1) * d : end) - c0_);
    const uint32_t tailBegin = static_cast<uint32_t>((tailGroup_ * d > c0_ ? tailGroup_ * d : c0_) - c0_);
    AscendC::LocalTensor<float> own = own_.template Get<float>();
    for (uint32_t r = 0; r < n; ++r) {
      float db = 0.0f;
      float ds = 0.0f;
      WeightedSums(r, 0, headEnd, db, ds);
      own.SetValue(2 * r, db);
      own.SetValue(2 * r + 1, ds);
      if (tailGroup_ != headGroup_) WeightedSums(r, tailBegin, channels_, db, ds);
      own.SetValue(2 * n + 2 * r, db);
      own.SetValue(2 * n + 2 * r + 1, ds);
    }
    PipeFence<AscendC::HardEvent::S_MTE3>();
    AscendC::DataCopyExtParams p(1, n * 4 * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    PadCopy(gm_.wsDb[core_ * 4 * n], own, p);
  }

  // gathered[(n * 2 + side) * 2 + {db, ds}]: the full sums of the head (side 0) and tail (side 1)
  // groups, the partials of their sharing cores added in core order from 0.0.
  __aicore__ inline void GatherGroupSums() {
    const uint32_t n = static_cast<uint32_t>(t_->n);
    AscendC::LocalTensor<float> sums = gathered_.template Get<float>();
    for (uint32_t i = 0; i < 4 * n; ++i) sums.SetValue(i, 0.0f);
    if (Shared(headGroup_)) AddSharers(headGroup_, 0);
    if (tailGroup_ != headGroup_ && Shared(tailGroup_)) AddSharers(tailGroup_, 1);
  }

  // Adds into side `side` of the gathered sums the partials of group g of every core sharing it:
  // this core's own, a core before it its tail side, a core after it its head side.
  __aicore__ inline void AddSharers(uint64_t g, uint32_t side) {
    const uint64_t d = t_->channelsPerGroup;
    const uint32_t n = static_cast<uint32_t>(t_->n);
    AscendC::LocalTensor<float> sums = gathered_.template Get<float>();
    AscendC::LocalTensor<float> own = own_.template Get<float>();
    AscendC::LocalTensor<float> peer = peer_.template Get<float>();
    const uint64_t last = CoreOf((g + 1) * d - 1);
    for (uint64_t k = CoreOf(g * d); k <= last; ++k) {
      AscendC::LocalTensor<float> from = own[side * 2 * n];
      if (k != core_) {
        const uint64_t peerSide = k < core_ ? 1 : 0;
        AscendC::DataCopyExtParams p(1, n * 2 * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
        AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
        PadCopy(peer, gm_.wsDb[(k * 4 + peerSide * 2) * n], p, pad);
        PipeFence<AscendC::HardEvent::MTE2_S>();
        from = peer;
      }
      for (uint32_t i = 0; i < 2 * n; ++i) {
        const uint32_t at = (i / 2 * 2 + side) * 2 + i % 2;
        sums.SetValue(at, sums.GetValue(at) + from.GetValue(i));
      }
      if (k != core_) PipeFence<AscendC::HardEvent::S_MTE2>();  // the next copy overwrites peer
    }
  }

  // dgamma[c] = sum_n rstd[n, g] * (ds[n, c] - mean[n, g] * db[n, c]), dbeta[c] = sum_n db[n, c].
  __aicore__ inline void ParamGrads() {
    if (!t_->needDgamma && !t_->needDbeta) return;
    const uint64_t d = t_->channelsPerGroup;
    AscendC::LocalTensor<float> db = tile_.SlotDb();
    AscendC::LocalTensor<float> ds = tile_.SlotDs();
    AscendC::LocalTensor<float> accG = accG_.template Get<float>();
    AscendC::LocalTensor<float> accB = accB_.template Get<float>();
    for (uint32_t i = 0; i < channels_; ++i) {
      accG.SetValue(i, 0.0f);
      accB.SetValue(i, 0.0f);
    }
    for (uint32_t r = 0; r < static_cast<uint32_t>(t_->n); ++r) {
      uint64_t q = ~0ull;
      float mean = 0.0f;
      float rstd = 0.0f;
      for (uint32_t i = 0; i < channels_; ++i) {
        const uint64_t group = r * t_->g + (c0_ + i) / d;
        if (group != q) {
          q = group;
          mean = scalars_.Mean(gm_, q);
          rstd = scalars_.Rstd(gm_, q);
        }
        const float sumDb = db.GetValue(r * channels_ + i);
        const float sumDs = ds.GetValue(r * channels_ + i);
        accB.SetValue(i, accB.GetValue(i) + sumDb);
        accG.SetValue(i, accG.GetValue(i) + rstd * (sumDs - mean * sumDb));
      }
    }
    if (t_->needDgamma) GngStoreChannels(gm_.dgamma, outG_, accG, c0_, channels_);
    if (t_->needDbeta) GngStoreChannels(gm_.dbeta, outB_, accB, c0_, channels_);
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  GroupNormGradTile<T, GngPadCopy<T>> tile_;  // DataCopyPad chips only (tiling)
  AscendC::TBuf<AscendC::TPosition::VECCALC> own_, peer_, gathered_, accG_, accB_, outG_, outB_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> gammaUb_, meanUb_, rstdUb_, gammaF_, gammaBlocks_;
  GngScalars<T> scalars_;
  uint64_t core_ = 0;
  uint64_t c0_ = 0;
  uint32_t channels_ = 0;
  uint64_t headGroup_ = 0;
  uint64_t tailGroup_ = 0;
};

}  // namespace normgrad
