// GroupNormGrad dgamma/dbeta, after every piece sum is in the workspace: core k owns a channel
// range; for each channel the n samples are added in order 0..n-1, so the result is the same
// bitwise whatever the core count or the timing:
//   dbeta[c]  = sum_n sum_j db[n, c, j]
//   dgamma[c] = sum_n rstd[n, g] * (sum_j ds[n, c, j] - mean[n, g] * sum_j db[n, c, j])
// With DataCopyPad, each batch of rows copies the mean/rstd of its groups into UB (one strided
// DataCopyPad each, exact bytes) instead of reading GM scalars through the data cache; block-copy
// mode (Atlas training) keeps the GM scalar reads: whole-block copies of rows of a few groups
// would need the tail handling of block_copy.h for a few bytes.
#pragma once
#include "common/pad_copy.h"
#include "group_norm_grad_copy_path.h"
#include "group_norm_grad_scalars.h"
#include "group_norm_grad_ub_alloc.h"

namespace normgrad {

// Writes fp32 acc[0, channels) to dst[c0, c0 + channels) in T (CAST_RINT for 16-bit, staged in
// `stage`); acc was written by the scalar unit.
template <typename T>
__aicore__ inline void GngStoreChannels(const AscendC::GlobalTensor<T>& dst, AscendC::TBuf<AscendC::TPosition::VECCALC>& stage,
                                        const AscendC::LocalTensor<float>& acc, uint64_t c0, uint32_t channels) {
  AscendC::DataCopyExtParams p(1, channels * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
  if constexpr (AscendC::IsSameType<T, float>::value) {
    PipeFence<AscendC::HardEvent::S_MTE3>();
    PadCopy(dst[c0], acc, p);
    PipeFence<AscendC::HardEvent::MTE3_S>();
  } else {
    AscendC::LocalTensor<T> out = stage.template Get<T>();
    PipeFence<AscendC::HardEvent::S_V>();
    AscendC::Cast(out, acc, AscendC::RoundMode::CAST_RINT, channels);
    PipeFence<AscendC::HardEvent::V_MTE3>();
    PadCopy(dst[c0], out, p);
    PipeFence<AscendC::HardEvent::MTE3_V>();
    PipeFence<AscendC::HardEvent::V_S>();
  }
}

// Copy: the copy path (group_norm_grad_copy_path.h); block copies read and write whole blocks.
template <typename T, typename Copy>
class GroupNormGradParams {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    gm_ = gm;
    rowFloats_ = static_cast<uint32_t>((t.paramBatchChannels * t.hwParts + 7) / 8 * 8);
    // The layout the tiling summed (group_norm_grad_ub_layout.h); stats rows with DataCopyPad only.
    const GngParamUbLayout l = GngParamUb(sizeof(T), t.paramBatchChannels, t.paramBatchRows, t.hwParts,
                                          t.channelsPerGroup, t.g, Copy::kBlockCopy);
    GngAllocBuf(pipe, db_, l.db);
    GngAllocBuf(pipe, ds_, l.ds);
    GngAllocBuf(pipe, accG_, l.accG);
    GngAllocBuf(pipe, accB_, l.accB);
    GngAllocBuf(pipe, outG_, l.outG);
    GngAllocBuf(pipe, outB_, l.outB);
    GngAllocBuf(pipe, meanUb_, l.mean);
    GngAllocBuf(pipe, rstdUb_, l.rstd);
  }

  __aicore__ inline void Process() {
    const uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    const uint64_t rem = t_->paramChannelsRemainder;
    const uint64_t count = t_->paramChannelsPerCore + (core < rem ? 1 : 0);
    const uint64_t first = core * t_->paramChannelsPerCore + (core < rem ? core : rem);
    if (first >= t_->c) return;  // block-copy mode rounds ranges up to whole blocks
    const uint64_t end = first + count < t_->c ? first + count : t_->c;
    for (uint64_t c = first; c < end; c += t_->paramBatchChannels) {
      uint64_t left = end - c;
      Batch(c, static_cast<uint32_t>(left < t_->paramBatchChannels ? left : t_->paramBatchChannels));
    }
    // Block-copy mode: the partial block at C, as the batch of the last whole block of channels.
    const uint32_t pb = 32 / sizeof(T);
    if (Copy::kBlockCopy && end == t_->c && t_->c % pb != 0 && t_->c >= pb) Batch(t_->c - pb, pb);
  }

 private:
  __aicore__ inline void Batch(uint64_t c0, uint32_t channels) {
    AscendC::LocalTensor<float> accG = accG_.template Get<float>();
    AscendC::LocalTensor<float> accB = accB_.template Get<float>();
    for (uint32_t i = 0; i < channels; ++i) {
      accG.SetValue(i, 0.0f);
      accB.SetValue(i, 0.0f);
    }
    for (uint64_t n0 = 0; n0 < t_->n; n0 += t_->paramBatchRows) {
      uint64_t left = t_->n - n0;
      Rows(c0, channels, n0, static_cast<uint32_t>(left < t_->paramBatchRows ? left : t_->paramBatchRows));
    }
    if (Copy::kBlockCopy) {
      StoreBlocks(c0, channels);
      return;
    }
    if (t_->needDgamma) GngStoreChannels(gm_.dgamma, outG_, accG, c0, channels);
    if (t_->needDbeta) GngStoreChannels(gm_.dbeta, outB_, accB, c0, channels);
  }

  // Block-copy mode: whole blocks only. Batches start on block boundaries; the one ending at C
  // writes its whole blocks here, and Process recomputes its partial block as the batch of the
  // last pb channels, whose copy ends exactly at C and rewrites the overlapped channels with
  // identical values (same sums in the same order). C below one block: the caller gave
  // whole-block outputs; write forward.
  __aicore__ inline void StoreBlocks(uint64_t c0, uint32_t channels) {
    const uint32_t pb = 32 / sizeof(T);
    const uint32_t head = t_->c < pb ? (channels + pb - 1) / pb * pb : channels / pb * pb;
    AscendC::LocalTensor<float> accG = accG_.template Get<float>();
    AscendC::LocalTensor<float> accB = accB_.template Get<float>();
    if (head > 0) {
      if (t_->needDgamma) StoreWhole(gm_.dgamma, outG_, accG, c0, channels, head);
      if (t_->needDbeta) StoreWhole(gm_.dbeta, outB_, accB, c0, channels, head);
    }
  }

  __aicore__ inline void StoreWhole(const AscendC::GlobalTensor<T>& dst, AscendC::TBuf<AscendC::TPosition::VECCALC>& stage,
                                    const AscendC::LocalTensor<float>& acc, uint64_t c0, uint32_t channels,
                                    uint32_t count) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      PipeFence<AscendC::HardEvent::S_MTE3>();
      AscendC::DataCopy(dst[c0], acc, count);
      PipeFence<AscendC::HardEvent::MTE3_S>();
    } else {
      AscendC::LocalTensor<T> out = stage.template Get<T>();
      PipeFence<AscendC::HardEvent::S_V>();
      AscendC::Cast(out, acc, AscendC::RoundMode::CAST_NONE, channels);  // NONE: round to nearest even
      PipeFence<AscendC::HardEvent::V_MTE3>();
      AscendC::DataCopy(dst[c0], out, count);
      PipeFence<AscendC::HardEvent::MTE3_V>();
      PipeFence<AscendC::HardEvent::V_S>();
    }
  }

  // Adds samples [n0, n0 + rows) of channels [c0, c0 + channels) into the accumulators.
  __aicore__ inline void Rows(uint64_t c0, uint32_t channels, uint64_t n0, uint32_t rows) {
    const uint64_t hp = t_->hwParts;
    const uint64_t rowGm = t_->c * hp;
    AscendC::LocalTensor<float> db = db_.template Get<float>();
    AscendC::LocalTensor<float> ds = ds_.template Get<float>();
    uint32_t len = static_cast<uint32_t>(channels * hp);
    uint32_t ubRow = (len + 7) / 8 * 8;
    if (Copy::kBlockCopy) {
      // Whole blocks per row; the lanes past len belong to other channels and are not read (the
      // planes are 512-byte padded, so the last row's copy stays inside them).
      for (uint32_t r = 0; r < rows; ++r) {
        AscendC::DataCopy(db[r * ubRow], gm_.wsDb[(n0 + r) * rowGm + c0 * hp], ubRow);
        AscendC::DataCopy(ds[r * ubRow], gm_.wsDs[(n0 + r) * rowGm + c0 * hp], ubRow);
      }
    } else {
      AscendC::DataCopyExtParams p(static_cast<uint16_t>(rows), len * static_cast<uint32_t>(sizeof(float)),
                                   static_cast<uint32_t>((rowGm - len) * sizeof(float)), 0, 0);
      AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
      PadCopy(db, gm_.wsDb[n0 * rowGm + c0 * hp], p, pad);
      PadCopy(ds, gm_.wsDs[n0 * rowGm + c0 * hp], p, pad);
    }
    PipeFence<AscendC::HardEvent::MTE2_S>();
    if (!Copy::kBlockCopy) LoadStats(c0, channels, n0, rows);
    AscendC::LocalTensor<float> accG = accG_.template Get<float>();
    AscendC::LocalTensor<float> accB = accB_.template Get<float>();
    for (uint32_t r = 0; r < rows; ++r) {
      uint64_t q = ~0ull;
      float mean = 0.0f;
      float rstd = 0.0f;
      for (uint32_t i = 0; i < channels; ++i) {
        uint64_t group = (n0 + r) * t_->g + (c0 + i) / t_->channelsPerGroup;
        if (group != q) {
          q = group;
          mean = scalars_.Mean(gm_, q);
          rstd = scalars_.Rstd(gm_, q);
        }
        float sumDb = 0.0f;
        float sumDs = 0.0f;
        for (uint64_t j = 0; j < hp; ++j) {
          sumDb += db.GetValue(r * ubRow + static_cast<uint32_t>(i * hp + j));
          sumDs += ds.GetValue(r * ubRow + static_cast<uint32_t>(i * hp + j));
        }
        accB.SetValue(i, accB.GetValue(i) + sumDb);
        accG.SetValue(i, accG.GetValue(i) + rstd * (sumDs - mean * sumDb));
      }
    }
    PipeFence<AscendC::HardEvent::S_MTE2>();
  }

  // mean/rstd of samples [n0, n0 + rows) for the groups of channels [c0, c0 + channels).
  __aicore__ inline void LoadStats(uint64_t c0, uint32_t channels, uint64_t n0, uint32_t rows) {
    const uint64_t d = t_->channelsPerGroup;
    const uint64_t g0 = c0 / d;
    scalars_.mean = meanUb_.template Get<T>();
    scalars_.rstd = rstdUb_.template Get<T>();
    GroupNormGradGm<T> noGamma = gm_;
    noGamma.hasGamma = false;  // dgamma/dbeta do not need gamma
    scalars_.Load(noGamma, c0, channels, n0, rows, g0, static_cast<uint32_t>((c0 + channels - 1) / d - g0 + 1),
                  t_->g);
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  uint32_t rowFloats_ = 0;
  AscendC::TBuf<AscendC::TPosition::VECCALC> db_, ds_, accG_, accB_, outG_, outB_, meanUb_, rstdUb_;
  GngScalars<T> scalars_;  // GM reads in block-copy mode
};

}  // namespace normgrad
