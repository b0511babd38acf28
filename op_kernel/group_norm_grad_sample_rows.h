// GroupNormGrad, sample rows (HxW = 1): tiles of whole sample rows, every step a full-width vector
// instruction instead of a few instructions per channel row.
//
// With HxW = 1 sample n is a row of C elements cut into G segments (the groups) of S = C/G. Core
// k = pn * Pg + pg holds, tile by tile, B samples of its sample chunk pn x the G/Pg groups
// (sampleRows.groups) of its group range pg; in UB a tile is B * G/Pg segments, each padded to
// segStride (Sp) elements, 32-byte aligned, so segment i of the tile starts at i * Sp whatever
// the row.
//   - Per-segment scalars (mean, rstd, the dx coefficients) are Brcb'd, one 32-byte block per
//     segment, and applied by level-0 instructions whose broadcast operand has block stride 0,
//     one repeat per segment and 64-lane column (common/row_repeat.h). For S = 1 the
//     scalars are per element: plain count-form instructions on the stats themselves.
//   - Segment sums (sum of g = gamma*dy and of g*x-hat) by RowsSum over the segments, or for
//     contiguous segments of 8/16/32 floats by pairwise block folds and one BlockReduceSum.
//   - Per-channel operands (gamma, the dgamma/dbeta accumulators) are one row of groups * Sp
//     floats, applied to every row of the tile with repeat stride 0.
// dgamma[c] = sum_n dy * x-hat and dbeta[c] = sum_n dy are accumulated in UB per core, rows in
// sample order. With one sample chunk (Pn = 1) each core writes its channels; else each core
// writes its fp32 partial to the workspace, and after one SyncAll core k adds the Pn partials of
// its stage-2 channel range in chunk order 0..Pn-1: bitwise identical run after run.
//
// dx = rstd * (g - sumG / M + x-hat * (-sumGXhat / M)), M = S.
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "group_norm_grad_sample_rows_stage2.h"
#include "group_norm_grad_scalars.h"
#include "group_norm_grad_ub_alloc.h"
#include "common/row_repeat.h"
#include "group_norm_grad_segment_sums.h"

namespace normgrad {

template <typename T>
class GroupNormGradSampleRows {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    gm_ = gm;
    pipe_ = pipe;
    const uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    const uint64_t pn = core / t.sampleRows.groupSplit;
    const uint64_t pg = core % t.sampleRows.groupSplit;
    chunk_ = pn;
    const uint64_t base = t.n / t.sampleRows.sampleSplit;
    const uint64_t rem = t.n % t.sampleRows.sampleSplit;
    n0_ = pn * base + (pn < rem ? pn : rem);
    rows_ = base + (pn < rem ? 1 : 0);
    gl_ = static_cast<uint32_t>(t.sampleRows.groups);
    g0_ = pg * t.sampleRows.groups;
    seg_ = static_cast<uint32_t>(t.channelsPerGroup);
    sp_ = static_cast<uint32_t>(t.sampleRows.segStride);
    rowElems_ = gl_ * sp_;
    // Stats rows of G/Pg elements land 32-byte padded unless they are 32 bytes or the whole G.
    statsStride_ = gl_;
    if (gl_ != t.g && (gl_ * sizeof(T)) % 32 != 0) statsStride_ = (gl_ * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    // The layout the tiling summed (group_norm_grad_ub_layout.h), allocated member by member.
    const GngSampleRowsUbLayout l =
        GngSampleRowsUb({sizeof(T), t.sampleRows.rowsPerTile, gl_, sp_, seg_, statsStride_,
                         static_cast<uint32_t>(t.sampleRows.bufferNum), t.needDx != 0, t.needDgamma != 0,
                         t.needDbeta != 0, gm_.hasGamma});
    GngAllocQue(pipe, inDy_, l.dy);
    GngAllocQue(pipe, inX_, l.x);
    GngAllocQue(pipe, outDx_, l.dx);
    GngAllocBuf(pipe, dyF_, l.dyF);
    GngAllocBuf(pipe, xF_, l.xF);
    GngAllocBuf(pipe, tmp_, l.tmp);
    GngAllocBuf(pipe, mean_, l.mean);
    GngAllocBuf(pipe, rstd_, l.rstd);
    GngAllocBuf(pipe, raw_, l.raw);
    GngAllocBuf(pipe, s1_, l.s1);
    GngAllocBuf(pipe, s2_, l.s2);
    // Per-row Brcb of padded stats writes up to 8 blocks past the last row's segments.
    GngAllocBuf(pipe, bMean_, l.bMean);
    GngAllocBuf(pipe, bRstd_, l.bRstd);
    GngAllocBuf(pipe, bExtra_, l.bExtra);
    GngAllocBuf(pipe, fold_, l.fold);
    GngAllocBuf(pipe, gammaRow_, l.gammaRow);
    GngAllocBuf(pipe, accG_, l.accG);
    GngAllocBuf(pipe, accB_, l.accB);
  }

  __aicore__ inline void Process() {
    Prologue();
    const uint64_t b = t_->sampleRows.rowsPerTile;
    if (rows_ > 0) {
      const bool prefetch = t_->sampleRows.bufferNum == 2;
      if (prefetch) CopyIn(0, Rows(0));
      for (uint64_t r = 0; r < rows_; r += b) {
        if (!prefetch) CopyIn(r, Rows(r));
        if (prefetch && r + b < rows_) CopyIn(r + b, Rows(r + b));  // loads while this tile computes
        Compute(r, Rows(r));
      }
    }
    StoreParams();
    GroupNormGradSampleRowsStage2<T>().Run(*t_, gm_, pipe_);
  }

 private:
  static constexpr bool IsFloat() { return AscendC::IsSameType<T, float>::value; }


  __aicore__ inline uint32_t Rows(uint64_t r) const {
    const uint64_t left = rows_ - r;
    return static_cast<uint32_t>(left < t_->sampleRows.rowsPerTile ? left : t_->sampleRows.rowsPerTile);
  }

  // Zeroes the accumulators and loads gamma's row (fp32, the tile's segment layout).
  __aicore__ inline void Prologue() {
    if (t_->needDgamma) AscendC::Duplicate(accG_.template Get<float>(), 0.0f, static_cast<int32_t>(rowElems_));
    if (t_->needDbeta) AscendC::Duplicate(accB_.template Get<float>(), 0.0f, static_cast<int32_t>(rowElems_));
    if (!(t_->needDx && gm_.hasGamma)) return;
    AscendC::LocalTensor<float> row = gammaRow_.template Get<float>();
    if constexpr (IsFloat()) {
      LoadRows(row, gm_.gamma, g0_ * seg_, 1);
      PipeFence<AscendC::HardEvent::MTE2_V>();
    } else {
      AscendC::LocalTensor<T> staging = tmp_.template Get<T>();
      LoadRows(staging, gm_.gamma, g0_ * seg_, 1);
      PipeFence<AscendC::HardEvent::MTE2_V>();
      AscendC::Cast(row, staging, AscendC::RoundMode::CAST_NONE, rowElems_);
      AscendC::PipeBarrier<PIPE_V>();
    }
  }

  // DMA params of `rows` rows of the core's groups starting at element `first` of a [*, C] tensor,
  // GM -> UB direction (srcStride: GM bytes, dstStride: UB blocks). Segments padded in UB
  // (segStride > S) go one DataCopyPad block each; otherwise a row is one block, or the whole
  // tile when the core has all G groups. copy(params, gmOffset, ubOffset).
  template <typename F>
  __aicore__ inline void ForRowCopies(uint32_t rows, uint32_t elemBytes, F&& copy) const {
    const uint64_t c = t_->c;
    const uint32_t rowBytes = gl_ * seg_ * elemBytes;
    const bool wholeRows = gl_ == t_->g;  // consecutive rows are contiguous in GM
    if (sp_ == seg_) {
      if (wholeRows) {
        copy(AscendC::DataCopyExtParams(1, rows * rowBytes, 0, 0, 0), 0ull, 0u);
      } else {
        copy(AscendC::DataCopyExtParams(static_cast<uint16_t>(rows), rowBytes,
                                        static_cast<uint32_t>(c * elemBytes - rowBytes), 0, 0),
             0ull, 0u);
      }
      return;
    }
    // UB blocks between padded segments: segStride minus the segment's 32-byte-rounded bytes.
    const uint32_t gap = (sp_ * elemBytes - (seg_ * elemBytes + 31) / 32 * 32) / 32;
    if (wholeRows) {  // rows * G <= 4095 (tiling)
      copy(AscendC::DataCopyExtParams(static_cast<uint16_t>(rows * gl_), seg_ * elemBytes, 0, gap, 0), 0ull, 0u);
      return;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      copy(AscendC::DataCopyExtParams(static_cast<uint16_t>(gl_), seg_ * elemBytes, 0, gap, 0), r * c, r * rowElems_);
    }
  }

  template <typename S>
  __aicore__ inline void LoadRows(const AscendC::LocalTensor<S>& dst, const AscendC::GlobalTensor<S>& src,
                                  uint64_t first, uint32_t rows) const {
    ForRowCopies(rows, sizeof(S), [&](const AscendC::DataCopyExtParams& p, uint64_t gmOff, uint32_t ubOff) {
      AscendC::DataCopyPadExtParams<S> pad(false, 0, 0, static_cast<S>(0));
      PadCopy(dst[ubOff], src[first + gmOff], p, pad);
    });
  }

  // The same copies UB -> GM (the strides swap sides).
  template <typename S>
  __aicore__ inline void StoreRows(const AscendC::GlobalTensor<S>& dst, const AscendC::LocalTensor<S>& src,
                                   uint64_t first, uint32_t rows) const {
    ForRowCopies(rows, sizeof(S), [&](AscendC::DataCopyExtParams p, uint64_t gmOff, uint32_t ubOff) {
      const uint32_t gmGap = p.srcStride;
      p.srcStride = p.dstStride;
      p.dstStride = gmGap;
      PadCopy(dst[first + gmOff], src[ubOff], p);
    });
  }

  __aicore__ inline void CopyIn(uint64_t r, uint32_t rows) {
    const uint64_t first = (n0_ + r) * t_->c + g0_ * seg_;
    AscendC::LocalTensor<T> dy = inDy_.template AllocTensor<T>();
    AscendC::LocalTensor<T> x = inX_.template AllocTensor<T>();
    LoadRows(dy, gm_.dy, first, rows);
    LoadRows(x, gm_.x, first, rows);
    inDy_.EnQue(dy);
    inX_.EnQue(x);
  }

  // Per-segment stats of rows [r, r + rows) as fp32 rows of groups, statsStride_ apart (padded
  // to 32 bytes unless the rows are the whole G; for S = 1 the tiling keeps them 32-byte rows).
  __aicore__ inline void LoadStats(const AscendC::LocalTensor<float>& dst, const AscendC::GlobalTensor<T>& src,
                                   uint64_t r, uint32_t rows) {
    const uint64_t first = (n0_ + r) * t_->g + g0_;
    const uint32_t rowBytes = gl_ * static_cast<uint32_t>(sizeof(T));
    AscendC::DataCopyExtParams p(static_cast<uint16_t>(rows), rowBytes,
                                 static_cast<uint32_t>((t_->g - gl_) * sizeof(T)), 0, 0);
    if (gl_ == t_->g) p = AscendC::DataCopyExtParams(1, rows * rowBytes, 0, 0, 0);
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0));
    PipeFence<AscendC::HardEvent::V_MTE2>();  // the previous tile's vector reads of dst are done
    if constexpr (IsFloat()) {
      PadCopy(dst, src[first], p, pad);
      PipeFence<AscendC::HardEvent::MTE2_V>();
    } else {
      AscendC::LocalTensor<T> raw = raw_.template Get<T>();
      PadCopy(raw, src[first], p, pad);
      PipeFence<AscendC::HardEvent::MTE2_V>();
      AscendC::Cast(dst, raw, AscendC::RoundMode::CAST_NONE, rows * statsStride_);
    }
  }

  // brcb block i = 8 copies of stats segment i of the tile; stats rows sit statsStride_ apart
  // (padded rows: one Brcb per row, in row order so each row overwrites the previous one's spill).
  __aicore__ inline void BroadcastStats(const AscendC::LocalTensor<float>& brcb, const AscendC::LocalTensor<float>& stats,
                                        uint32_t rows) {
    if (statsStride_ == gl_) {
      RowScalars(brcb, stats, rows * gl_);
    } else {
      for (uint32_t r = 0; r < rows; ++r) {
        RowScalars(brcb[r * gl_ * 8], stats[r * statsStride_], gl_);
        AscendC::PipeBarrier<PIPE_V>();
      }
    }
    AscendC::PipeBarrier<PIPE_V>();
  }

  // dst = src op (per-segment scalar vec), over `segs` segments of the tile; `brcb` receives the
  // broadcast blocks (S > 1) when fill, else holds them already.
  __aicore__ inline void SegOp(RowOp op, const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                               const AscendC::LocalTensor<float>& vec, const AscendC::LocalTensor<float>& brcb,
                               uint32_t segs, bool fill) {
    if (seg_ == 1) {
      const int32_t n = static_cast<int32_t>(segs);
      if (op == RowOp::kAdd) AscendC::Add(dst, src, vec, n);
      else if (op == RowOp::kSub) AscendC::Sub(dst, src, vec, n);
      else AscendC::Mul(dst, src, vec, n);
      AscendC::PipeBarrier<PIPE_V>();
      return;
    }
    if (fill) {
      RowScalars(brcb, vec, segs);
      AscendC::PipeBarrier<PIPE_V>();
    }
    if (sp_ == 8) {  // one block a segment: the Brcb'd scalars are the per-element operand
      const int32_t n = static_cast<int32_t>(segs * 8);
      if (op == RowOp::kAdd) AscendC::Add(dst, src, brcb, n);
      else if (op == RowOp::kSub) AscendC::Sub(dst, src, brcb, n);
      else AscendC::Mul(dst, src, brcb, n);
      AscendC::PipeBarrier<PIPE_V>();
      return;
    }
    const uint8_t rep = static_cast<uint8_t>(sp_ / 8);
    RowsBinary(op, RowOperand{dst, 1, rep}, RowOperand{src, 1, rep}, RowOperand{brcb, 0, 1}, segs, seg_);
    AscendC::PipeBarrier<PIPE_V>();
  }

  // dst row r = src row r op row (one row of rowElems_ floats reused for every row); dst may be
  // the row itself (column sums: acc = src + acc, rows in order).
  __aicore__ inline void RowwiseOp(RowOp op, const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                                   const AscendC::LocalTensor<float>& row, uint32_t rows, bool accumulate) {
    if (rowElems_ / 8 <= 255) {
      const uint8_t rep = static_cast<uint8_t>(rowElems_ / 8);
      const RowOperand d = accumulate ? RowOperand{dst, 1, 0} : RowOperand{dst, 1, rep};
      RowsBinary(op, d, RowOperand{src, 1, rep}, RowOperand{row, 1, 0}, rows, rowElems_);
    } else {
      for (uint32_t r = 0; r < rows; ++r) {
        const AscendC::LocalTensor<float> d = accumulate ? dst : dst[r * rowElems_];
        if (op == RowOp::kAdd) AscendC::Add(d, src[r * rowElems_], row, static_cast<int32_t>(rowElems_));
        else AscendC::Mul(d, src[r * rowElems_], row, static_cast<int32_t>(rowElems_));
        if (accumulate) AscendC::PipeBarrier<PIPE_V>();
      }
    }
    AscendC::PipeBarrier<PIPE_V>();
  }

  __aicore__ inline void Compute(uint64_t r, uint32_t rows) {
    const uint32_t segs = rows * gl_;
    const int32_t elems = static_cast<int32_t>(rows * rowElems_);
    AscendC::LocalTensor<T> dyIn = inDy_.template DeQue<T>();
    AscendC::LocalTensor<T> xIn = inX_.template DeQue<T>();
    AscendC::LocalTensor<float> dy;
    AscendC::LocalTensor<float> xh;
    if constexpr (IsFloat()) {
      dy = dyIn;
      xh = xIn;
    } else {
      dy = dyF_.template Get<float>();
      xh = xF_.template Get<float>();
      AscendC::Cast(dy, dyIn, AscendC::RoundMode::CAST_NONE, elems);
      AscendC::Cast(xh, xIn, AscendC::RoundMode::CAST_NONE, elems);
      AscendC::PipeBarrier<PIPE_V>();
    }
    AscendC::LocalTensor<float> tmp = tmp_.template Get<float>();
    AscendC::LocalTensor<float> mean = mean_.template Get<float>();
    AscendC::LocalTensor<float> rstd = rstd_.template Get<float>();
    AscendC::LocalTensor<float> bMean, bRstd, bExtra;
    if (seg_ > 1) {
      bMean = bMean_.template Get<float>();
      bRstd = bRstd_.template Get<float>();
      if (t_->needDx) bExtra = bExtra_.template Get<float>();
    }
    const bool needXhat = t_->needDx || t_->needDgamma;
    if (needXhat) {
      LoadStats(mean, gm_.mean, r, rows);
      LoadStats(rstd, gm_.rstd, r, rows);
      AscendC::PipeBarrier<PIPE_V>();
      if (seg_ > 1) {
        BroadcastStats(bMean, mean, rows);
        BroadcastStats(bRstd, rstd, rows);
      }
      SegOp(RowOp::kSub, xh, xh, mean, bMean, segs, false);  // x-hat in place of x
      SegOp(RowOp::kMul, xh, xh, rstd, bRstd, segs, false);
    }
    if (t_->needDbeta) RowwiseOp(RowOp::kAdd, accB_.template Get<float>(), dy, accB_.template Get<float>(), rows, true);
    if (t_->needDgamma) {
      AscendC::Mul(tmp, dy, xh, elems);
      AscendC::PipeBarrier<PIPE_V>();
      RowwiseOp(RowOp::kAdd, accG_.template Get<float>(), tmp, accG_.template Get<float>(), rows, true);
    }
    if (t_->needDx) Dx(r, rows, dy, xh, tmp, rstd, bMean, bRstd, bExtra);
    inDy_.FreeTensor(dyIn);
    inX_.FreeTensor(xIn);
  }

  __aicore__ inline void Dx(uint64_t r, uint32_t rows, const AscendC::LocalTensor<float>& dy,
                            const AscendC::LocalTensor<float>& xh, const AscendC::LocalTensor<float>& tmp,
                            const AscendC::LocalTensor<float>& rstd, const AscendC::LocalTensor<float>& bCoefA,
                            const AscendC::LocalTensor<float>& bRstd, const AscendC::LocalTensor<float>& bCoefB) {
    const uint32_t segs = rows * gl_;
    const int32_t elems = static_cast<int32_t>(rows * rowElems_);
    const float negInvM = -1.0f / static_cast<float>(seg_);
    if (gm_.hasGamma) RowwiseOp(RowOp::kMul, dy, dy, gammaRow_.template Get<float>(), rows, false);  // g in place of dy
    AscendC::LocalTensor<float> s1 = s1_.template Get<float>();
    AscendC::LocalTensor<float> s2 = s2_.template Get<float>();
    AscendC::Mul(tmp, dy, xh, elems);
    AscendC::PipeBarrier<PIPE_V>();
    if (seg_ == 1) {  // a segment's sums are its element: a = -g * x-hat / M, b = -g / M
      AscendC::Muls(s2, tmp, negInvM, elems);
      AscendC::Muls(s1, dy, negInvM, elems);
    } else {
      SegSums(s1, dy, segs);
      SegSums(s2, tmp, segs);
      AscendC::PipeBarrier<PIPE_V>();
      AscendC::Muls(s1, s1, negInvM, static_cast<int32_t>(segs));
      AscendC::Muls(s2, s2, negInvM, static_cast<int32_t>(segs));
    }
    AscendC::PipeBarrier<PIPE_V>();
    // dx = rstd * (g + x-hat * a + b)
    SegOp(RowOp::kMul, tmp, xh, s2, bCoefA, segs, true);
    SegOp(RowOp::kAdd, tmp, tmp, s1, bCoefB, segs, true);
    AscendC::Add(tmp, tmp, dy, elems);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::LocalTensor<T> out = outDx_.template AllocTensor<T>();
    if constexpr (IsFloat()) {
      SegOp(RowOp::kMul, out, tmp, rstd, bRstd, segs, false);
    } else {
      SegOp(RowOp::kMul, tmp, tmp, rstd, bRstd, segs, false);
      AscendC::Cast(out, tmp, AscendC::RoundMode::CAST_RINT, elems);
    }
    outDx_.EnQue(out);
    out = outDx_.template DeQue<T>();
    StoreRows(gm_.dx, out, (n0_ + r) * t_->c + g0_ * seg_, rows);
    outDx_.FreeTensor(out);
  }

  // Contiguous segments of 8, 16 or 32 floats: block-pair folds (group_norm_grad_segment_sums.h).
  __aicore__ inline bool BlockSums() const { return GngBlockSums(seg_, sp_); }

  // dst[i] = sum of segment i of src, i < segs.
  __aicore__ inline void SegSums(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                                 uint32_t segs) {
    if (!BlockSums()) {
      RowsSum(dst, src, static_cast<uint8_t>(sp_ / 8), Fold(), segs, seg_);
      return;
    }
    AscendC::LocalTensor<float> scratch = fold_.template Get<float>();
    AscendC::LocalTensor<float> in = src;
    uint32_t blocks = segs * seg_ / 8;
    uint32_t at = 0;  // the next fold's output in scratch (each fold writes a new region)
    for (uint32_t width = seg_; width > 8; width /= 2) {
      const AscendC::LocalTensor<float> out = scratch[at];
      GngFoldBlockPairs(out, in, blocks / 2);
      AscendC::PipeBarrier<PIPE_V>();
      at += (blocks / 2 * 8 + 63) / 64 * 64;
      blocks /= 2;
      in = out;
    }
    GngBlockSumsOf(dst, in, blocks);
  }

  __aicore__ inline AscendC::LocalTensor<float> Fold() {
    if (seg_ > kRowRepeatLanes) return fold_.template Get<float>();
    return tmp_.template Get<float>();  // unused by RowsSum for segments of <= 64 lanes
  }

  // This core's dgamma/dbeta channels: to the outputs (one sample chunk) or to the workspace.
  __aicore__ inline void StoreParams() {
    if (!(t_->needDgamma || t_->needDbeta)) return;
    AscendC::PipeBarrier<PIPE_ALL>();
    const uint64_t c0 = g0_ * seg_;
    for (uint32_t which = 0; which < 2; ++which) {
      if (which == 0 ? !t_->needDgamma : !t_->needDbeta) continue;
      AscendC::LocalTensor<float> acc = which == 0 ? accG_.template Get<float>() : accB_.template Get<float>();
      if (t_->sampleRows.sampleSplit > 1) {
        AscendC::GlobalTensor<float> ws = which == 0 ? gm_.wsDb : gm_.wsDs;
        StoreRows(ws, acc, chunk_ * t_->c + c0, 1);
        PipeFence<AscendC::HardEvent::MTE3_V>();
        continue;
      }
      AscendC::GlobalTensor<T> out = which == 0 ? gm_.dgamma : gm_.dbeta;
      if constexpr (IsFloat()) {
        StoreRows(out, acc, c0, 1);
      } else {
        AscendC::LocalTensor<T> staging = tmp_.template Get<T>();
        AscendC::Cast(staging, acc, AscendC::RoundMode::CAST_RINT, rowElems_);
        PipeFence<AscendC::HardEvent::V_MTE3>();
        StoreRows(out, staging, c0, 1);
      }
      PipeFence<AscendC::HardEvent::MTE3_V>();
    }
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradGm<T> gm_;
  AscendC::TPipe* pipe_ = nullptr;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> inDy_, inX_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 2> outDx_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> dyF_, xF_, tmp_, mean_, rstd_, raw_, s1_, s2_, bMean_, bRstd_, bExtra_,
      fold_, gammaRow_, accG_, accB_;
  uint64_t chunk_ = 0;
  uint64_t n0_ = 0;
  uint64_t rows_ = 0;
  uint64_t g0_ = 0;
  uint32_t gl_ = 0;
  uint32_t seg_ = 0;
  uint32_t sp_ = 0;
  uint32_t rowElems_ = 0;
  uint32_t statsStride_ = 0;
};

}  // namespace normgrad
