// GroupNormGrad's Unified Buffer tile: a run of consecutive pieces (row segments) of dy and x held
// in their native dtype, one 32-byte-aligned slot per piece, plus the fp32 working chunks. Every
// mode (whole groups, split groups, channel slabs) is built from its three steps: CopyIn, Sums,
// Dx. Channel slabs hold several equal runs, one per sample n, runStride pieces apart in GM.
//
// For group q = (n, g) with M = channelsPerGroup * hw elements, per channel c of the group:
//   db[c] = sum_hw dy          ds[c] = sum_hw dy * x
//   sumDb = sum_c gamma[c] * db[c]      sumDs = sum_c gamma[c] * ds[c]
//   c2 = (sumDb * mean - sumDs) * rstd^3 / M      c3 = -c2 * mean - sumDb * rstd / M
//   dx = gamma[c] * rstd * dy + c2 * x + c3
// db and ds are kept per piece; they also feed dgamma/dbeta (group_norm_grad_params.h).
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "common/row_sums.h"
#include "group_norm_grad_block_io.h"
#include "group_norm_grad_tiling.h"

namespace normgrad {

// Global memory of one launch; ws planes hold db and ds per piece (n * c * hwParts floats each).
template <typename T>
struct GroupNormGradGm {
  AscendC::GlobalTensor<T> dy, x, mean, rstd, gamma, dx, dgamma, dbeta;
  AscendC::GlobalTensor<float> wsDb, wsDs;
  AscendC::GlobalTensor<int32_t> syncFlags;  // soft SyncAll (softSync)
  bool hasGamma;
};

template <typename T>
__aicore__ inline float GngToFloat(T v) {
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ != 1001  // bfloat16 (and ToFloat) are Atlas A2/A3 only
  if constexpr (AscendC::IsSameType<T, bfloat16_t>::value) {
    return AscendC::ToFloat(v);
  }
#endif
  return static_cast<float>(v);
}

// Where gamma, mean and rstd are read from. Scalar GetValue on GM goes through the data cache,
// which moves a whole 64-byte line per miss: a core needing 14 bytes of gamma and a few stats pays
// hundreds of bytes, 5-7 % of the traffic of short 16-bit rows. With inUb, the caller has copied
// gamma[c0, c0 + channels) and the stats of samples [n0, n0 + rows) x groups [g0, g0 + groups)
// into UB with one DataCopyPad each (exact bytes; Load) and the reads come from there. Without it
// (block-copy mode, or a phase that did not load them) they go to GM as before.
template <typename T>
struct GngScalars {
  AscendC::LocalTensor<T> gamma;       // channel c at c - c0
  AscendC::LocalTensor<T> mean, rstd;  // group q = n * g + j at (n - n0) * rowElems + j - g0
  uint64_t c0 = 0;
  uint64_t n0 = 0;
  uint64_t g0 = 0;
  uint64_t g = 1;
  uint32_t rowElems = 0;
  bool inUb = false;

  // gamma/mean/rstd are UB buffers of at least AlignUp(channels) and rows * AlignUp(groups) elements
  // (32-byte rows). Leaves them ready for scalar reads (MTE2_S).
  __aicore__ inline void Load(const GroupNormGradGm<T>& gm, uint64_t cFirst, uint32_t channels, uint64_t nFirst,
                              uint32_t rows, uint64_t gFirst, uint32_t groups, uint64_t groupCount) {
    c0 = cFirst;
    n0 = nFirst;
    g0 = gFirst;
    g = groupCount;
    rowElems = (groups * static_cast<uint32_t>(sizeof(T)) + 31) / 32 * 32 / static_cast<uint32_t>(sizeof(T));
    inUb = true;
    PipeFence<AscendC::HardEvent::S_MTE2>();  // scalar reads of a previous load are done
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0.0f));
    if (gm.hasGamma) {
      AscendC::DataCopyExtParams one(1, channels * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
      PadCopy(gamma, gm.gamma[c0], one, pad);
    }
    AscendC::DataCopyExtParams p(static_cast<uint16_t>(rows), groups * static_cast<uint32_t>(sizeof(T)),
                                 static_cast<uint32_t>((g - groups) * sizeof(T)), 0, 0);
    PadCopy(mean, gm.mean[n0 * g + g0], p, pad);
    PadCopy(rstd, gm.rstd[n0 * g + g0], p, pad);
    PipeFence<AscendC::HardEvent::MTE2_S>();
  }

  __aicore__ inline float Gamma(const GroupNormGradGm<T>& gm, uint64_t c) const {
    if (!gm.hasGamma) return 1.0f;
    return GngToFloat(inUb ? gamma.GetValue(static_cast<uint32_t>(c - c0)) : gm.gamma.GetValue(c));
  }
  __aicore__ inline float Mean(const GroupNormGradGm<T>& gm, uint64_t q) const { return Stat(gm.mean, mean, q); }
  __aicore__ inline float Rstd(const GroupNormGradGm<T>& gm, uint64_t q) const { return Stat(gm.rstd, rstd, q); }

 private:
  __aicore__ inline float Stat(const AscendC::GlobalTensor<T>& src, const AscendC::LocalTensor<T>& ub,
                               uint64_t q) const {
    if (!inUb) return GngToFloat(src.GetValue(q));
    return GngToFloat(ub.GetValue(static_cast<uint32_t>((q / g - n0) * rowElems + q % g - g0)));
  }
};

template <typename T>
class GroupNormGradTile {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe,
                              uint32_t tileSlots, uint32_t bufferNum, uint32_t wsBatch) {
    t_ = &t;
    gm_ = gm;
    wsBatch_ = wsBatch;
    const uint32_t pb = 32 / sizeof(T);
    if (t.blockCopyOnly) {
      const uint64_t len = t.lastSegLen;
      overlapStart_ = static_cast<uint32_t>(len >= pb ? len / pb * pb : len);
      overlapCount_ = static_cast<uint32_t>(len % pb == 0 ? 0 : (len >= pb ? pb - len % pb : pb - len));
      dense_ = t.hw < pb;
    }
    // The layout the tiling summed (group_norm_grad_ub_layout.h), allocated member by member.
    const GngTileUbLayout l = GngTileUb({sizeof(T), t.chunkElems, t.rowStride, tileSlots, bufferNum, wsBatch,
                                         t.blockCopyOnly != 0, dense_, 0});
    pipe->InitBuffer(inDy_, l.dy.num, static_cast<uint32_t>(l.dy.bytes));
    pipe->InitBuffer(inX_, l.x.num, static_cast<uint32_t>(l.x.bytes));
    pipe->InitBuffer(outDx_, l.dx.num, static_cast<uint32_t>(l.dx.bytes));
    if (l.dyF.num > 0) pipe->InitBuffer(dyF_, static_cast<uint32_t>(l.dyF.bytes));  // block copies: overlap lanes zeroed
    if (l.xF.num > 0) pipe->InitBuffer(xF_, static_cast<uint32_t>(l.xF.bytes));
    if (l.dense.num > 0) denseOut_.Init(pipe, static_cast<uint32_t>(t.chunkElems));  // l.dense.bytes
    pipe->InitBuffer(work_, static_cast<uint32_t>(l.work.bytes));
    pipe->InitBuffer(fold_, static_cast<uint32_t>(l.fold.bytes));
    // Block copies keep the sums at lane piece0 % 8 of whole blocks (one block more).
    pipe->InitBuffer(db_, static_cast<uint32_t>(l.db.bytes));
    pipe->InitBuffer(ds_, static_cast<uint32_t>(l.ds.bytes));
    if (l.wsDb.num > 0) pipe->InitBuffer(wsDb_, static_cast<uint32_t>(l.wsDb.bytes));
    if (l.wsDs.num > 0) pipe->InitBuffer(wsDs_, static_cast<uint32_t>(l.wsDs.bytes));
    pipe->InitBuffer(scratch_, static_cast<uint32_t>(l.scratch.bytes));  // two 64-lane accumulators
  }

  // Starts loading pieces [piece0, piece0 + slots) into a free buffer pair (MTE2); with runs > 1,
  // runs of `slots` pieces starting runStride pieces apart, one after another in the slots.
  __aicore__ inline void CopyIn(uint64_t piece0, uint32_t slots, uint32_t runs = 1, uint64_t runStride = 0) {
    AscendC::LocalTensor<T> dy = inDy_.template AllocTensor<T>();
    AscendC::LocalTensor<T> x = inX_.template AllocTensor<T>();
    const uint32_t runElems = slots * static_cast<uint32_t>(t_->rowStride);
    for (uint32_t r = 0; r < runs; ++r) {
      LoadPieces(dy[r * runElems], gm_.dy, piece0 + r * runStride, slots);
      LoadPieces(x[r * runElems], gm_.x, piece0 + r * runStride, slots);
    }
    inDy_.EnQue(dy);
    inX_.EnQue(x);
  }
  // Takes the oldest loaded tile as the one Sums and Dx work on (the same runs as its CopyIn).
  __aicore__ inline void Hold(uint64_t piece0, uint32_t slots, uint32_t runs = 1, uint64_t runStride = 0) {
    dy_ = inDy_.template DeQue<T>();
    x_ = inX_.template DeQue<T>();
    piece0_ = piece0;
    runSlots_ = slots;
    runs_ = runs;
    runStride_ = runs > 1 ? runStride : (slots > 0 ? slots : 1);
    slots_ = slots * runs;
    lead_ = t_->blockCopyOnly ? static_cast<uint32_t>(piece0 % 8) : 0;
    sumsValid_ = false;
    gathered_ = false;
  }
  __aicore__ inline void Release() {
    inDy_.FreeTensor(dy_);
    inX_.FreeTensor(x_);
  }

  // db, ds of every held piece; copied to the workspace planes when toWorkspace.
  __aicore__ inline void Sums(bool toWorkspace) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    const uint32_t chunk = static_cast<uint32_t>(t_->chunkElems);
    AscendC::LocalTensor<float> db = db_.template Get<float>()[lead_];
    AscendC::LocalTensor<float> ds = ds_.template Get<float>()[lead_];
    AscendC::LocalTensor<float> prod = work_.template Get<float>();
    if (t_->hwParts == 1 && rs <= chunk && RowSumsFits(rs)) {
      const uint32_t rowsPerChunk = chunk / rs;
      for (uint32_t s = 0; s < slots_; s += rowsPerChunk) {
        uint32_t rows = slots_ - s < rowsPerChunk ? slots_ - s : rowsPerChunk;
        AscendC::LocalTensor<float> dyF = DyFloat(s * rs, rows * rs);
        AscendC::LocalTensor<float> xF = XFloat(s * rs, rows * rs);
        if (overlapCount_ > 0) {
          dyF = OwnDy(dyF, rows * rs);
          GngZeroRowLanes(dyF, rows, rs, overlapStart_, overlapCount_);
        }
        AscendC::Mul(prod, dyF, xF, static_cast<int32_t>(rows * rs));
        if (overlapCount_ > 0) GngZeroRowLanes(prod, rows, rs, overlapStart_, overlapCount_);
        RowSums(db[s], dyF, Fold(), rows, rs);
        RowSums(ds[s], prod, Fold(), rows, rs);
      }
    } else {
      // Long rows and row pieces: 64-lane accumulators over the chunks, one tree sum per row.
      AscendC::LocalTensor<float> accDy = scratch_.template Get<float>();
      AscendC::LocalTensor<float> accDyX = accDy[kRowSumsLanes];
      for (uint32_t s = 0; s < slots_; ++s) {
        const uint32_t len = PaddedLen(PieceOf(s));
        AscendC::Duplicate(accDy, 0.0f, static_cast<int32_t>(2 * kRowSumsLanes));
        for (uint32_t off = 0; off < len; off += chunk) {
          uint32_t n = len - off < chunk ? len - off : chunk;
          AscendC::LocalTensor<float> dyF = DyFloat(s * rs + off, n);
          AscendC::LocalTensor<float> xF = XFloat(s * rs + off, n);
          const bool cut = overlapCount_ > 0 && IsLastPiece(PieceOf(s)) && overlapStart_ >= off &&
                           overlapStart_ < off + n;
          if (cut) {
            dyF = OwnDy(dyF, n);
            AscendC::Duplicate(dyF[overlapStart_ - off], 0.0f, static_cast<int32_t>(overlapCount_));
          }
          AscendC::Mul(prod, dyF, xF, static_cast<int32_t>(n));
          if (cut) AscendC::Duplicate(prod[overlapStart_ - off], 0.0f, static_cast<int32_t>(overlapCount_));
          AccumulateLanes(accDy, dyF, n);
          AccumulateLanes(accDyX, prod, n);
        }
        AscendC::WholeReduceSum<float>(db[s], accDy, static_cast<int32_t>(kRowSumsLanes), 1, 1, 1, 8);
        AscendC::WholeReduceSum<float>(ds[s], accDyX, static_cast<int32_t>(kRowSumsLanes), 1, 1, 1, 8);
      }
    }
    sumsValid_ = true;
    if (toWorkspace && t_->blockCopyOnly) {
      AddPlanesAtomic();
    } else if (toWorkspace) {
      PipeFence<AscendC::HardEvent::V_MTE3>();
      StorePlane(gm_.wsDb, db);
      StorePlane(gm_.wsDs, ds);
      PipeFence<AscendC::HardEvent::MTE3_V>();
    }
  }

  // Channel slabs: the sums of the groups this tile shares with other cores, gathered by the
  // caller after SyncAll: sums[(r * 2 + side) * 2 + {0: db, 1: ds}] for run r, side 0 for group
  // headGroup (of each run's G groups), side 1 for the other one (the tail group). Dx reads them
  // instead of the workspace planes; a new Hold forgets them.
  __aicore__ inline void UseGatheredSums(const AscendC::LocalTensor<float>& sums, uint64_t headGroup) {
    gatheredSums_ = sums;
    headGroup_ = headGroup;
    gathered_ = true;
  }

  // Reads gamma, mean and rstd through `scalars` (UB copies the caller loaded) from now on.
  __aicore__ inline void UseScalars(const GngScalars<T>& scalars) { scalars_ = scalars; }

  // db, ds of slot s (valid after Sums and a V_S fence).
  __aicore__ inline AscendC::LocalTensor<float> SlotDb() { return db_.template Get<float>()[lead_]; }
  __aicore__ inline AscendC::LocalTensor<float> SlotDs() { return ds_.template Get<float>()[lead_]; }

  // dx of every held piece. Groups not wholly inside the tile read their sums from the
  // workspace, which every core has finished writing (the caller synchronised), or from the
  // gathered sums.
  __aicore__ inline void Dx() {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    const uint32_t chunk = static_cast<uint32_t>(t_->chunkElems);
    curGroup_ = ~0ull;
    if (t_->hwParts == 1 && rs <= chunk) {
      const uint32_t rowsPerChunk = chunk / rs;
      for (uint32_t s = 0; s < slots_; s += rowsPerChunk) {
        uint32_t rows = slots_ - s < rowsPerChunk ? slots_ - s : rowsPerChunk;
        DxRows(s, rows);
      }
    } else {
      for (uint32_t s = 0; s < slots_; ++s) {
        const uint32_t len = PaddedLen(PieceOf(s));
        for (uint32_t off = 0; off < len; off += chunk) DxSegment(s, off, len - off < chunk ? len - off : chunk);
      }
    }
  }

  // Block-copy mode, rows shorter than a block: the last partial block of the packed dx. Called
  // once after the last Dx of the launch (one core owns all of dx then).
  __aicore__ inline void FinishDx() {
    if (dense_ && t_->needDx) denseOut_.Finish(gm_.dx);
  }

 private:
  __aicore__ inline AscendC::LocalTensor<float> Fold() { return fold_.template Get<float>(); }

  // The piece held in slot s (runs of runSlots_ consecutive pieces, runStride_ apart).
  __aicore__ inline uint64_t PieceOf(uint32_t s) const {
    return piece0_ + s / runSlots_ * runStride_ + s % runSlots_;
  }

  // Elements of a slot that hold data or DataCopyPad's zero padding (never the poisoned rest).
  __aicore__ inline uint32_t PaddedLen(uint64_t piece) const {
    const uint32_t perBlock = 32 / sizeof(T);
    uint64_t len = (piece % t_->hwParts == t_->hwParts - 1) ? t_->lastSegLen : t_->segLen;
    return static_cast<uint32_t>((len + perBlock - 1) / perBlock * perBlock);
  }
  __aicore__ inline bool IsLastPiece(uint64_t piece) const { return piece % t_->hwParts == t_->hwParts - 1; }
  __aicore__ inline uint64_t PieceLen(uint64_t piece) const {
    return (piece % t_->hwParts == t_->hwParts - 1) ? t_->lastSegLen : t_->segLen;
  }
  __aicore__ inline uint64_t PieceGmOffset(uint64_t piece) const {
    return piece / t_->hwParts * t_->hw + piece % t_->hwParts * t_->segLen;
  }

  // One DataCopyPad for a run of whole rows (uniform GM stride hw), else one per piece; each
  // slot's tail up to 32 bytes is zero-filled so sums may run over it.
  __aicore__ inline void LoadPieces(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                    uint64_t piece0, uint32_t slots) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    if (t_->blockCopyOnly) {
      LoadPiecesBlocks(dst, src, piece0, slots);
      return;
    }
    if (t_->hwParts == 1) {
      AscendC::DataCopyExtParams p(static_cast<uint16_t>(slots), static_cast<uint32_t>(t_->hw * sizeof(T)), 0, 0, 0);
      AscendC::DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(rs - t_->hw), static_cast<T>(0.0f));
      PadCopy(dst, src[piece0 * t_->hw], p, pad);
      return;
    }
    for (uint32_t s = 0; s < slots; ++s) {
      uint64_t len = PieceLen(piece0 + s);
      AscendC::DataCopyExtParams p(1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0);
      AscendC::DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(PaddedLen(piece0 + s) - len),
                                           static_cast<T>(0.0f));
      PadCopy(dst[s * rs], src[PieceGmOffset(piece0 + s)], p, pad);
    }
  }

  // Block-copy mode: whole rows of hw % 32 bytes == 0 in one copy, else per piece (block_io.h).
  __aicore__ inline void LoadPiecesBlocks(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                          uint64_t piece0, uint32_t slots) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    if (t_->hwParts == 1 && t_->hw % (32 / sizeof(T)) == 0) {
      AscendC::DataCopy(dst, src[piece0 * t_->hw], static_cast<uint32_t>(slots * t_->hw));
      return;
    }
    const uint64_t total = t_->n * t_->c * t_->hw;
    bool scalar = false;
    for (uint32_t s = 0; s < slots; ++s) {
      scalar = GngLoadPieceBlocks(dst[s * rs], src, PieceGmOffset(piece0 + s), PieceLen(piece0 + s), total) || scalar;
    }
    if (scalar) PipeFence<AscendC::HardEvent::S_V>();
  }

  // A copy of the fp32 dy view that the sums may modify (fp16/bf16 views already are copies).
  __aicore__ inline AscendC::LocalTensor<float> OwnDy(const AscendC::LocalTensor<float>& dyF, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      AscendC::LocalTensor<float> f = dyF_.template Get<float>();
      AscendC::DataCopy(f, dyF, n);
      return f;
    } else {
      return dyF;
    }
  }

  // Block-copy mode: the held pieces' sums sit at lanes [lead_, lead_ + slots_) of whole blocks
  // that start at piece0_ - lead_ in the planes. The other lanes, which belong to pieces of
  // neighbouring tiles (maybe other cores), are set to 0.0 and the blocks are added with DMA
  // atomic add into the zeroed planes: a neighbour's sum gets + 0.0 (exact, in any order).
  __aicore__ inline void AddPlanesAtomic() {
    AscendC::LocalTensor<float> db = db_.template Get<float>();
    AscendC::LocalTensor<float> ds = ds_.template Get<float>();
    const uint32_t end = (lead_ + slots_ + 7) / 8 * 8;
    PipeFence<AscendC::HardEvent::V_S>();
    for (uint32_t i = 0; i < lead_; ++i) {
      db.SetValue(i, 0.0f);
      ds.SetValue(i, 0.0f);
    }
    for (uint32_t i = lead_ + slots_; i < end; ++i) {
      db.SetValue(i, 0.0f);
      ds.SetValue(i, 0.0f);
    }
    PipeFence<AscendC::HardEvent::S_MTE3>();
    AscendC::SetAtomicAdd<float>();
    AscendC::DataCopy(gm_.wsDb[piece0_ - lead_], db, end);
    AscendC::DataCopy(gm_.wsDs[piece0_ - lead_], ds, end);
    AscendC::SetAtomicNone();
    PipeFence<AscendC::HardEvent::MTE3_V>();
  }

  __aicore__ inline AscendC::LocalTensor<float> DyFloat(uint32_t offset, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return dy_[offset];
    } else {
      AscendC::LocalTensor<float> f = dyF_.template Get<float>();
      AscendC::Cast(f, dy_[offset], AscendC::RoundMode::CAST_NONE, n);
      return f;
    }
  }
  __aicore__ inline AscendC::LocalTensor<float> XFloat(uint32_t offset, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return x_[offset];
    } else {
      AscendC::LocalTensor<float> f = xF_.template Get<float>();
      AscendC::Cast(f, x_[offset], AscendC::RoundMode::CAST_NONE, n);
      return f;
    }
  }

  __aicore__ inline void StorePlane(const AscendC::GlobalTensor<float>& plane, const AscendC::LocalTensor<float>& v) {
    AscendC::DataCopyExtParams p(1, slots_ * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    PadCopy(plane[piece0_], v, p);
  }

  __aicore__ inline float Gamma(uint64_t piece) const { return scalars_.Gamma(gm_, piece / t_->hwParts % t_->c); }

  // Loads c2, c3, rstd of group q (cached across consecutive chunks of the same group).
  __aicore__ inline void Coefficients(uint64_t q) {
    if (q == curGroup_) return;
    curGroup_ = q;
    float sumDb = 0.0f;
    float sumDs = 0.0f;
    GroupSums(q, sumDb, sumDs);
    const float mean = scalars_.Mean(gm_, q);
    rstd_ = scalars_.Rstd(gm_, q);
    const float invM = 1.0f / static_cast<float>(t_->channelsPerGroup * t_->hw);
    c2_ = (sumDb * mean - sumDs) * rstd_ * rstd_ * rstd_ * invM;
    c3_ = -c2_ * mean - sumDb * rstd_ * invM;
  }

  // Sums over the group's pieces in piece order, from the tile when it holds them all.
  __aicore__ inline void GroupSums(uint64_t q, float& sumDb, float& sumDs) {
    const uint64_t first = q * t_->groupSlots;
    const uint64_t off = first - piece0_;  // meaningful only when first >= piece0_
    const uint64_t run = first >= piece0_ ? off / runStride_ : runs_;
    const uint64_t inRun = first >= piece0_ ? off % runStride_ : 0;
    if (sumsValid_ && run < runs_ && inRun + t_->groupSlots <= runSlots_) {
      PipeFence<AscendC::HardEvent::V_S>();  // the sums were written by WholeReduceSum
      AscendC::LocalTensor<float> db = db_.template Get<float>();
      AscendC::LocalTensor<float> ds = ds_.template Get<float>();
      const uint32_t slot0 = lead_ + static_cast<uint32_t>(run * runSlots_ + inRun);
      for (uint32_t i = 0; i < static_cast<uint32_t>(t_->groupSlots); ++i) {
        float gamma = Gamma(first + i);
        sumDb += gamma * db.GetValue(slot0 + i);
        sumDs += gamma * ds.GetValue(slot0 + i);
      }
      return;
    }
    if (gathered_) {
      // Channel slabs: run r is sample n = q / g (every sample, the same channels in each).
      const uint64_t side = q % t_->g == headGroup_ ? 0 : 1;
      const uint32_t at = static_cast<uint32_t>((q / t_->g * 2 + side) * 2);
      sumDb = gatheredSums_.GetValue(at);
      sumDs = gatheredSums_.GetValue(at + 1);
      return;
    }
    AscendC::LocalTensor<float> db = wsDb_.template Get<float>();
    AscendC::LocalTensor<float> ds = wsDs_.template Get<float>();
    const uint64_t waveEnd = WaveEndSlot(q);
    for (uint64_t b = 0; b < t_->groupSlots; b += wsBatch_) {
      uint32_t n = static_cast<uint32_t>(t_->groupSlots - b < wsBatch_ ? t_->groupSlots - b : wsBatch_);
      uint32_t lane0 = 0;  // UB lane of piece first + b
      if (t_->blockCopyOnly) {
        // Whole blocks, as a window of n rounded up to 8 lanes that ends by this wave's last piece:
        // the extra lanes are then sums of this or earlier waves, all complete after the wave's
        // SyncAll, never lanes the next wave's cores are adding to meanwhile.
        const uint64_t len = (n + 7) / 8 * 8;
        uint64_t start = first + b;
        if (start + len > waveEnd) start = waveEnd >= len ? waveEnd - len : 0;
        lane0 = static_cast<uint32_t>(first + b - start);
        AscendC::DataCopy(db, gm_.wsDb[start], static_cast<uint32_t>(len));
        AscendC::DataCopy(ds, gm_.wsDs[start], static_cast<uint32_t>(len));
      } else {
        AscendC::DataCopyExtParams p(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
        AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
        PadCopy(db, gm_.wsDb[first + b], p, pad);
        PadCopy(ds, gm_.wsDs[first + b], p, pad);
      }
      PipeFence<AscendC::HardEvent::MTE2_S>();
      for (uint32_t i = 0; i < n; ++i) {
        float gamma = Gamma(first + b + i);
        sumDb += gamma * db.GetValue(lane0 + i);
        sumDs += gamma * ds.GetValue(lane0 + i);
      }
      PipeFence<AscendC::HardEvent::S_MTE2>();
    }
  }

  // One past the last workspace slot of the wave that holds group q (of the whole-group phase,
  // the group itself): every slot below it is final once the wave's SyncAll has passed.
  __aicore__ inline uint64_t WaveEndSlot(uint64_t q) const {
    const uint64_t groups = t_->n * t_->g;
    const uint64_t wholeEnd = t_->wholeGroupsPerCore * t_->blockDim;
    if (q < wholeEnd || t_->waveGroups == 0) return (q + 1) * t_->groupSlots;
    const uint64_t waveLast = wholeEnd + ((q - wholeEnd) / t_->waveGroups + 1) * t_->waveGroups;
    return (waveLast < groups ? waveLast : groups) * t_->groupSlots;
  }

  // Rows from slot s to the end of its run, at most `rows` (a run is consecutive pieces in GM).
  __aicore__ inline uint32_t RowsInRun(uint32_t s, uint32_t rows) const {
    const uint32_t left = runSlots_ - s % runSlots_;
    return left < rows ? left : rows;
  }

  // dx for whole rows [s, s + rows) of the tile (hwParts == 1), one output copy per run.
  __aicore__ inline void DxRows(uint32_t s, uint32_t rows) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    AscendC::LocalTensor<float> dyF = DyFloat(s * rs, rows * rs);
    AscendC::LocalTensor<float> xF = XFloat(s * rs, rows * rs);
    AscendC::LocalTensor<T> out = outDx_.template AllocTensor<T>();
    AscendC::LocalTensor<float> outF = OutFloat(out);
    for (uint32_t r = 0; r < rows;) {  // per group inside the chunk (a group never spans two runs)
      const uint64_t piece = PieceOf(s + r);
      const uint64_t q = piece / t_->groupSlots;
      const uint64_t groupLeft = (q + 1) * t_->groupSlots - piece;
      const uint32_t inRun = RowsInRun(s + r, rows - r);
      const uint32_t end = r + (groupLeft < inRun ? static_cast<uint32_t>(groupLeft) : inRun);
      Coefficients(q);
      uint32_t n = (end - r) * rs;
      AscendC::Muls(outF[r * rs], xF[r * rs], c2_, static_cast<int32_t>(n));
      AscendC::Adds(outF[r * rs], outF[r * rs], c3_, static_cast<int32_t>(n));
      for (uint32_t i = r; i < end; ++i) {
        AscendC::Axpy(outF[i * rs], dyF[i * rs], Gamma(piece + (i - r)) * rstd_, static_cast<int32_t>(rs));
      }
      r = end;
    }
    CastOut(out, outF, rows * rs);
    outDx_.EnQue(out);
    out = outDx_.template DeQue<T>();
    if (t_->blockCopyOnly) {
      StoreRowsBlocks(out, s, rows);
    } else {
      for (uint32_t r = 0; r < rows;) {
        const uint32_t n = RowsInRun(s + r, rows - r);
        AscendC::DataCopyExtParams p(static_cast<uint16_t>(n), static_cast<uint32_t>(t_->hw * sizeof(T)), 0, 0, 0);
        PadCopy(gm_.dx[PieceOf(s + r) * t_->hw], out[r * rs], p);
        r += n;
      }
    }
    outDx_.FreeTensor(out);
  }

  // dx for elements [off, off + n) of slot s (long rows and row pieces).
  __aicore__ inline void DxSegment(uint32_t s, uint32_t off, uint32_t n) {
    const uint64_t piece = PieceOf(s);
    const uint32_t base = s * static_cast<uint32_t>(t_->rowStride) + off;
    Coefficients(piece / t_->groupSlots);
    AscendC::LocalTensor<float> dyF = DyFloat(base, n);
    AscendC::LocalTensor<float> xF = XFloat(base, n);
    AscendC::LocalTensor<T> out = outDx_.template AllocTensor<T>();
    AscendC::LocalTensor<float> outF = OutFloat(out);
    AscendC::Muls(outF, xF, c2_, static_cast<int32_t>(n));
    AscendC::Adds(outF, outF, c3_, static_cast<int32_t>(n));
    AscendC::Axpy(outF, dyF, Gamma(piece) * rstd_, static_cast<int32_t>(n));
    CastOut(out, outF, n);
    outDx_.EnQue(out);
    out = outDx_.template DeQue<T>();
    uint64_t real = PieceLen(piece) - off < n ? PieceLen(piece) - off : n;
    if (t_->blockCopyOnly) {
      // n = real rounded up to whole blocks; only the piece's last segment holds the tail block.
      if (real == n) {
        AscendC::DataCopy(gm_.dx[PieceGmOffset(piece) + off], out, n);
      } else {
        GngStorePieceBlocks(gm_.dx, out, PieceGmOffset(piece) + off, real);
      }
    } else {
      AscendC::DataCopyExtParams p(1, static_cast<uint32_t>(real * sizeof(T)), 0, 0, 0);
      PadCopy(gm_.dx[PieceGmOffset(piece) + off], out, p);
    }
    outDx_.FreeTensor(out);
  }

  // Block-copy mode: dx of whole rows [s, s + rows) of the tile.
  __aicore__ inline void StoreRowsBlocks(const AscendC::LocalTensor<T>& out, uint32_t s, uint32_t rows) {
    const uint32_t rs = static_cast<uint32_t>(t_->rowStride);
    const uint64_t hw = t_->hw;
    if (dense_) {
      denseOut_.Append(gm_.dx, out, rows, rs, static_cast<uint32_t>(hw));
    } else if (hw == rs) {
      AscendC::DataCopy(gm_.dx[PieceOf(s) * hw], out, static_cast<uint32_t>(rows * hw));
    } else {
      for (uint32_t i = 0; i < rows; ++i) GngStorePieceBlocks(gm_.dx, out[i * rs], (PieceOf(s) + i) * hw, hw);
    }
  }

  __aicore__ inline AscendC::LocalTensor<float> OutFloat(const AscendC::LocalTensor<T>& out) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return out;
    } else {
      return work_.template Get<float>();
    }
  }
  __aicore__ inline void CastOut(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<float>& outF,
                                 uint32_t n) {
    if constexpr (!AscendC::IsSameType<T, float>::value) {
      // Both round to nearest even; Atlas training has no CAST_RINT from float to half.
      AscendC::Cast(out, outF, t_->blockCopyOnly ? AscendC::RoundMode::CAST_NONE : AscendC::RoundMode::CAST_RINT, n);
    }
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inDy_, inX_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> outDx_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> dyF_, xF_, work_, fold_, db_, ds_, wsDb_, wsDs_, scratch_;
  GngDenseWriter<T> denseOut_;
  GngScalars<T> scalars_;  // GM reads unless UseScalars
  uint32_t overlapStart_ = 0;  // block-copy mode: lanes of a row's last piece the sums must skip
  uint32_t overlapCount_ = 0;
  bool dense_ = false;
  AscendC::LocalTensor<T> dy_, x_;
  uint64_t piece0_ = 0;
  uint32_t slots_ = 0;     // runs_ * runSlots_
  uint32_t runSlots_ = 1;  // consecutive pieces per run
  uint32_t runs_ = 1;
  uint64_t runStride_ = 1;  // pieces from one run's start to the next
  AscendC::LocalTensor<float> gatheredSums_;  // channel slabs (UseGatheredSums)
  uint64_t headGroup_ = 0;
  bool gathered_ = false;
  uint32_t lead_ = 0;  // block-copy mode: lane of piece0_'s sums (piece0_ % 8)
  uint32_t wsBatch_ = 0;
  bool sumsValid_ = false;
  uint64_t curGroup_ = ~0ull;
  float c2_ = 0.0f, c3_ = 0.0f, rstd_ = 0.0f;
};

}  // namespace normgrad
