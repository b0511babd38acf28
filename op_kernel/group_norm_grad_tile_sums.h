// GroupNormGrad's Unified Buffer tile, its loads and its sums: a run of consecutive pieces (row
// segments) of dy and x held in their native dtype, one 32-byte-aligned slot per piece, plus the
// fp32 working chunks; CopyIn, Hold, Release and Sums (db, ds per piece, optionally published to
// the workspace), and the piece geometry the copy paths read. GroupNormGradTile
// (group_norm_grad_tile.h) adds dx on top. Channel slabs hold several equal runs, one per sample
// n, runStride pieces apart in GM.
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "common/row_sums.h"
#include "group_norm_grad_copy_path.h"
#include "group_norm_grad_scalars.h"
#include "group_norm_grad_segment_sums.h"
#include "group_norm_grad_ub_alloc.h"

namespace normgrad {

// Copy: GngPadCopy<T> or GngBlockCopy<T> (group_norm_grad_copy_path.h).
template <typename T, typename Copy>
class GroupNormGradTileSums {
 public:
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe,
                              uint32_t tileSlots, uint32_t bufferNum, uint32_t wsBatch, uint32_t dxBuffers = 2) {
    t_ = &t;
    gm_ = gm;
    wsBatch_ = wsBatch;
    const bool dense = Copy::kBlockCopy && t.hw < 32 / sizeof(T);
    // The layout the tiling summed (group_norm_grad_ub_layout.h), allocated member by member.
    const GngTileUbLayout l = GngTileUb({sizeof(T), t.chunkElems, t.rowStride, tileSlots, bufferNum, wsBatch,
                                         Copy::kBlockCopy, dense, 0, dxBuffers});
    GngAllocQue(pipe, inDy_, l.dy);
    GngAllocQue(pipe, inX_, l.x);
    GngAllocQue(pipe, outDx_, l.dx);
    // fp32 data: dyF only on the block-copy path, a dy copy whose overlap lanes are zeroed.
    GngAllocBuf(pipe, dyF_, l.dyF);
    GngAllocBuf(pipe, xF_, l.xF);
    copy_.Init(t, pipe);  // block copies: l.dense, the packed-dx writer
    GngAllocBuf(pipe, work_, l.work);
    GngAllocBuf(pipe, fold_, l.fold);
    // Block copies keep the sums at lane piece0 % 8 of whole blocks (one block more).
    GngAllocBuf(pipe, db_, l.db);
    GngAllocBuf(pipe, ds_, l.ds);
    GngAllocBuf(pipe, wsDb_, l.wsDb);
    GngAllocBuf(pipe, wsDs_, l.wsDs);
    GngAllocBuf(pipe, scratch_, l.scratch);  // two 64-lane accumulators
  }

  // Piece sums read back per workspace copy for groups of t.groupSlots pieces (the host's
  // GngWorkspaceBatch): the tiles of split waves and re-read groups hold that many.
  __aicore__ static inline uint32_t WorkspaceBatch(const GroupNormGradTiling& t) {
    const uint64_t batch = (t.groupSlots + 7) / 8 * 8;
    return static_cast<uint32_t>(batch < kGngWorkspaceBatchFloats ? batch : kGngWorkspaceBatchFloats);
  }

  // Starts loading pieces [piece0, piece0 + slots) into a free buffer pair (MTE2); with runs > 1,
  // runs of `slots` pieces starting runStride pieces apart, one after another in the slots.
  __aicore__ inline void CopyIn(uint64_t piece0, uint32_t slots, uint32_t runs = 1, uint64_t runStride = 0) {
    AscendC::LocalTensor<T> dy = inDy_.template AllocTensor<T>();
    AscendC::LocalTensor<T> x = inX_.template AllocTensor<T>();
    const uint32_t runElems = slots * static_cast<uint32_t>(t_->rowStride);
    for (uint32_t r = 0; r < runs; ++r) {
      copy_.Load(*this, dy[r * runElems], gm_.dy, piece0 + r * runStride, slots);
      copy_.Load(*this, x[r * runElems], gm_.x, piece0 + r * runStride, slots);
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
    lead_ = copy_.Lead(piece0);
    sumsValid_ = false;
    gathered_ = false;
    dyCast_.valid = false;
    xCast_.valid = false;
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
    // Rows folded a chunk at a time (RowSums: one Add per 64 lanes of a row, each repeated over
    // the chunk's rows) pay off when a chunk holds many rows; with few long rows (SD-UNet 32x32:
    // one or two rows of 1024 a chunk, 15 one-repeat Adds each) the per-row accumulators below
    // issue a fraction of the instructions for the same repeats and the same order of sums.
    const uint32_t rowsPerChunk = rs <= chunk ? chunk / rs : 0;
    if (t_->hwParts == 1 && rs <= chunk && RowSumsFits(rs) && 2 * rowsPerChunk >= rs / kRowSumsLanes) {
      for (uint32_t s = 0; s < slots_; s += rowsPerChunk) {
        uint32_t rows = slots_ - s < rowsPerChunk ? slots_ - s : rowsPerChunk;
        AscendC::LocalTensor<float> dyF = DyFloat(s * rs, rows * rs);
        AscendC::LocalTensor<float> xF = XFloat(s * rs, rows * rs);
        if (copy_.OverlapCount() > 0) {
          dyF = OwnDy(dyF, rows * rs);
          GngZeroRowLanes(dyF, rows, rs, copy_.OverlapStart(), copy_.OverlapCount());
        }
        AscendC::Mul(prod, dyF, xF, static_cast<int32_t>(rows * rs));
        if (copy_.OverlapCount() > 0) GngZeroRowLanes(prod, rows, rs, copy_.OverlapStart(), copy_.OverlapCount());
        // Block folds issue about four instructions a plane for any number of rows: they pay from
        // 24 rows (whole repeats when a multiple of 8) against one reduce repeat (3 cycles) a row.
        if (blockSums_ && GngRowBlockSumsFit(rs) && (lead_ + s) % 8 == 0 && rows % 8 == 0 && rows >= 24) {
          GngRowBlockSums(db[s], dyF, Fold(), rows, rs);
          GngRowBlockSums(ds[s], prod, Fold(), rows, rs);
        } else {
          RowSums(db[s], dyF, Fold(), rows, rs);
          RowSums(ds[s], prod, Fold(), rows, rs);
        }
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
          const bool cut = copy_.OverlapCount() > 0 && IsLastPiece(PieceOf(s)) && copy_.OverlapStart() >= off &&
                           copy_.OverlapStart() < off + n;
          if (cut) {
            dyF = OwnDy(dyF, n);
            AscendC::Duplicate(dyF[copy_.OverlapStart() - off], 0.0f, static_cast<int32_t>(copy_.OverlapCount()));
          }
          AscendC::Mul(prod, dyF, xF, static_cast<int32_t>(n));
          if (cut) AscendC::Duplicate(prod[copy_.OverlapStart() - off], 0.0f, static_cast<int32_t>(copy_.OverlapCount()));
          AccumulateLanes(accDy, dyF, n);
          AccumulateLanes(accDyX, prod, n);
        }
        AscendC::WholeReduceSum<float>(db[s], accDy, static_cast<int32_t>(kRowSumsLanes), 1, 1, 1, 8);
        AscendC::WholeReduceSum<float>(ds[s], accDyX, static_cast<int32_t>(kRowSumsLanes), 1, 1, 1, 8);
      }
    }
    sumsValid_ = true;
    // Run by run (re-read groups hold runs of one group each, runSlots_ a multiple of 8 so each
    // run's sums start on a 32-byte block); block copies only ever publish one run.
    for (uint32_t r = 0; toWorkspace && r < runs_; ++r) {
      copy_.PublishSums(gm_, db_.template Get<float>()[r * runSlots_], ds_.template Get<float>()[r * runSlots_],
                        piece0_ + r * runStride_, lead_, runSlots_);
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

  // Channel slabs: blocks holds gamma of slot s's channel in its 32-byte block s (Brcb'd, for
  // every slot of the held tile). Dx scales them by rstd in place (so once per tile) and computes
  // dy * gamma * rstd for a chunk's rows with one level-0 Mul per 64 lanes of a row, instead of
  // one Axpy per row (7x7 and 8x8 rows: one repeat each, so the row's instruction issue was 10
  // of its 11 cycles); dx = that + c2 * x + c3 (DxRowsScaled).
  __aicore__ inline void UseGammaBlocks(const AscendC::LocalTensor<float>& blocks) {
    gammaBlocks_ = blocks;
    hasGammaBlocks_ = true;
  }

  // Channel slabs, 16-bit data: rows of at most 64 floats are summed by block folds
  // (GngRowBlockSums, a fixed order of their own) instead of one WholeReduceSum repeat per row.
  __aicore__ inline void UseBlockSums() { blockSums_ = true; }

  // Reads gamma, mean and rstd through `scalars` (UB copies the caller loaded) from now on.
  __aicore__ inline void UseScalars(const GngScalars<T>& scalars) { scalars_ = scalars; }

  // db, ds of slot s (valid after Sums and a V_S fence).
  __aicore__ inline AscendC::LocalTensor<float> SlotDb() { return db_.template Get<float>()[lead_]; }
  __aicore__ inline AscendC::LocalTensor<float> SlotDs() { return ds_.template Get<float>()[lead_]; }

  // Piece geometry of the held tile (the copy path reads it too).
  __aicore__ inline const GroupNormGradTiling& Tiling() const { return *t_; }

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
  // Rows from slot s to the end of its run, at most `rows` (a run is consecutive pieces in GM).
  __aicore__ inline uint32_t RowsInRun(uint32_t s, uint32_t rows) const {
    const uint32_t left = runSlots_ - s % runSlots_;
    return left < rows ? left : rows;
  }

 protected:
  __aicore__ inline AscendC::LocalTensor<float> Fold() { return fold_.template Get<float>(); }

  // A copy of the fp32 dy view that the sums may modify (fp16/bf16 views already are copies, so
  // the cast they hold is no longer dy's).
  __aicore__ inline AscendC::LocalTensor<float> OwnDy(const AscendC::LocalTensor<float>& dyF, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      AscendC::LocalTensor<float> f = dyF_.template Get<float>();
      AscendC::DataCopy(f, dyF, n);
      return f;
    } else {
      dyCast_.valid = false;
      return dyF;
    }
  }

  // The elements [offset, offset + n) of the held tile cast to fp32 in `buf` (16-bit data). A
  // tile that is one chunk (channel slabs, small whole groups) is cast once for the sums and the
  // same view serves dx: two of the five casts per element saved. A new Hold forgets it.
  struct GngCastView {
    uint32_t offset = 0;
    uint32_t n = 0;
    bool valid = false;
  };
  __aicore__ inline AscendC::LocalTensor<float> CastOnce(AscendC::TBuf<AscendC::TPosition::VECCALC>& buf,
                                                         const AscendC::LocalTensor<T>& src, GngCastView& view,
                                                         uint32_t offset, uint32_t n) {
    AscendC::LocalTensor<float> f = buf.template Get<float>();
    if (view.valid && view.offset == offset && view.n == n) return f;
    AscendC::Cast(f, src[offset], AscendC::RoundMode::CAST_NONE, n);
    view.offset = offset;
    view.n = n;
    view.valid = true;
    return f;
  }

  __aicore__ inline AscendC::LocalTensor<float> DyFloat(uint32_t offset, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return dy_[offset];
    } else {
      return CastOnce(dyF_, dy_, dyCast_, offset, n);
    }
  }
  __aicore__ inline AscendC::LocalTensor<float> XFloat(uint32_t offset, uint32_t n) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return x_[offset];
    } else {
      return CastOnce(xF_, x_, xCast_, offset, n);
    }
  }

  __aicore__ inline float Gamma(uint64_t piece) const { return scalars_.Gamma(gm_, piece / t_->hwParts % t_->c); }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inDy_, inX_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> outDx_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> dyF_, xF_, work_, fold_, db_, ds_, wsDb_, wsDs_, scratch_;
  Copy copy_;
  GngScalars<T> scalars_;  // GM reads unless UseScalars
  AscendC::LocalTensor<T> dy_, x_;
  uint64_t piece0_ = 0;
  uint32_t slots_ = 0;     // runs_ * runSlots_
  uint32_t runSlots_ = 1;  // consecutive pieces per run
  uint32_t runs_ = 1;
  uint64_t runStride_ = 1;  // pieces from one run's start to the next
  AscendC::LocalTensor<float> gatheredSums_;  // channel slabs (UseGatheredSums)
  AscendC::LocalTensor<float> gammaBlocks_;   // channel slabs (UseGammaBlocks)
  bool hasGammaBlocks_ = false;
  bool blockSums_ = false;  // UseBlockSums
  uint64_t headGroup_ = 0;
  bool gathered_ = false;
  uint32_t lead_ = 0;  // block-copy mode: lane of piece0_'s sums (piece0_ % 8)
  uint32_t wsBatch_ = 0;
  bool sumsValid_ = false;
  GngCastView dyCast_;  // what dyF_ / xF_ hold (16-bit data)
  GngCastView xCast_;
};

}  // namespace normgrad
