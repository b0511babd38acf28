// LayerNorm backward, the work on one batch of rows shared by both modes: dy and x of the
// batch's rows (this core's column slice) resident in UB, fp32 math on B x chunkCols blocks.
//
// Per row r, in fp32 (D = cols, over the whole row, all slices):
//   xhat = (x - mean_r) * rstd_r,  g = dy * gamma
//   s1_r = sum(g),  s2_r = sum(g * xhat)
//   dx   = rstd_r * (g - s1_r / D - xhat * s2_r / D)
// Row sums accumulate 64 lanes per row with one Add per chunk (common/row_sums.h) and are reduced
// for the whole batch by one WholeReduceSum: a ReduceSum per row costs 3 cycles per repeat plus a
// scalar round trip. fp32 inputs are used in place (no copy into a work buffer).
//   dgamma += dy * xhat,  dbeta += dy          (over this core's rows, then over row ranges)
// x-hat is never formed: the work rows hold x - mean, dgamma adds dy * (x - mean) by an Axpy with
// rstd, s2 is summed without rstd and scaled once per row, and dx's Axpy takes rstd in its scalar.
// dx is written over the resident dy of its batch (no output buffer) and leaves in one DMA per
// batch; that UB goes to wider chunks, i.e. fewer vector instructions per row. Slices processed
// in several chunks keep two fp32 work rows: x - mean becomes dy * (x - mean) in place.
#pragma once
#include "kernel_operator.h"
#include "layer_norm_grad_copy.h"
#include "layer_norm_grad_tiling.h"
#include "common/float_io.h"
#include "common/pipe_fence.h"
#include "common/row_sums.h"

namespace normgrad {

static_assert(kRowSumsLanes == kLnRowSumLanes, "the tiling's UB layout sizes the row-sum partials");

struct LayerNormGradArgs {
  GM_ADDR dy;
  GM_ADDR x;
  GM_ADDR rstd;
  GM_ADDR mean;
  GM_ADDR gamma;
  GM_ADDR dx;
  GM_ADDR dgamma;
  GM_ADDR dbeta;
  GM_ADDR workspace;
};

// Copy: LnPadCopy<T> or LnBlockCopy<T> (layer_norm_grad_copy.h).
template <typename T, typename Copy>
class LayerNormGradBatch {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
    pipe_ = pipe;
    a_ = args;
    t_ = t;
    core_ = static_cast<uint32_t>(AscendC::GetBlockIdx());
    range_ = core_ / t.colSplit;
    slice_ = core_ % t.colSplit;
    uint64_t base = t.rows / t.rowRanges, rem = t.rows % t.rowRanges;
    rowStart_ = range_ * base + (range_ < rem ? range_ : rem);
    rowCount_ = base + (range_ < rem ? 1 : 0);
    if (t.denseRows) {  // ranges of whole blocks of dx (see the tiling)
      rowStart_ = static_cast<uint64_t>(range_) * t.denseRangeRows;
      rowCount_ = range_ + 1 == t.rowRanges ? t.rows - rowStart_ : t.denseRangeRows;
    }
    colStart_ = static_cast<uint64_t>(slice_) * t.sliceCols;
    sliceCols_ = static_cast<uint32_t>(t.cols - colStart_ < t.sliceCols ? t.cols - colStart_ : t.sliceCols);
    nChunks_ = (sliceCols_ + t.chunkCols - 1) / t.chunkCols;
    // Chunked slices recompute x-hat and g for dx, so nothing in the fp32 work tiles outlives a
    // row: they hold one row. Decided by the tiling (widest slice), not by this core's slice.
    recompute_ = t.chunkCols < t.sliceCols;
    workRows_ = recompute_ ? 1 : t.rowsPerBatch;
    needX_ = t.needDx || t.needDgamma;
    shortRows_ = t.mode == kLnShortRows;
    bp_ = (t.rowsPerBatch + 7) / 8 * 8;
    InitBuffers();
    if (t_.needDx && t_.hasWeight && t_.gammaResident) {
      for (uint32_t c0 = 0; c0 < sliceCols_; c0 += t_.chunkCols) {
        LoadAsFloat(gammaF_[c0], gammaRaw_, a_.gamma, colStart_ + c0, ChunkWidth(c0), t_.weightDtype, ioCols_);
      }
    }
    if (t_.accResident) ZeroSums(t_.sliceStride);
  }

 protected:
  __aicore__ inline uint32_t ChunkWidth(uint32_t c0) const {
    return sliceCols_ - c0 < t_.chunkCols ? sliceCols_ - c0 : t_.chunkCols;
  }
  // Offset of row r in the fp32 work tiles (one row when chunks recompute).
  __aicore__ inline uint32_t Work(uint32_t r) const { return (recompute_ ? 0 : r) * t_.chunkCols; }
  __aicore__ inline uint32_t BatchRows(uint32_t batch) const {
    uint64_t first = static_cast<uint64_t>(batch) * t_.rowsPerBatch;
    if (first >= rowCount_) return 0;
    return static_cast<uint32_t>(rowCount_ - first < t_.rowsPerBatch ? rowCount_ - first : t_.rowsPerBatch);
  }

  // Allocates the mode's UB layout (LayerNormGradBatchUb in the tiling header, the same list the
  // host's UB figure sums), in its order, then names the pieces.
  __aicore__ inline void InitBuffers() {
    const LnBatchUbLayout ub = LayerNormGradBatchUb(t_);
    pipe_->InitBuffer(dyQue_, ub.buf[kLnUbDyQue].count, static_cast<uint32_t>(ub.buf[kLnUbDyQue].bytes));
    if (ub.buf[kLnUbXQue].count) pipe_->InitBuffer(xQue_, ub.buf[kLnUbXQue].count, Bytes(ub, kLnUbXQue));
    if (ub.buf[kLnUbDxQue].count) pipe_->InitBuffer(dxQue_, ub.buf[kLnUbDxQue].count, Bytes(ub, kLnUbDxQue));
    for (uint32_t i = kLnUbDyF; i < kLnUbDense; ++i) {
      if (ub.buf[i].count) pipe_->InitBuffer(buf_[i], Bytes(ub, i));
    }
    GM_ADDR rangeDx = t_.needDx ? a_.dx + rowStart_ * t_.cols * sizeof(T) : nullptr;
    AscendC::LocalTensor<T> scratch;
    if constexpr (Copy::kBlocks) scratch = buf_[kLnUbScratch].template Get<T>();
    copy_.Init(pipe_, t_, ub, scratch, rangeDx);  // in the place of kLnUbDense
    if (ub.buf[kLnUbSync].count) pipe_->InitBuffer(buf_[kLnUbSync], Bytes(ub, kLnUbSync));
    if (!kFloatIn || shortRows_) dyF_ = Ub(kLnUbDyF);
    if (needX_) {
      xhatF_ = Ub(kLnUbXhat);
      // Chunked slices keep no third work row: x - mean becomes dy * (x - mean) in place.
      tmpF_ = recompute_ ? xhatF_ : Ub(kLnUbTmp);
      meanF_ = Ub(kLnUbMean);
      rstdF_ = Ub(kLnUbRstd);
      if (shortRows_) {
        meanB_ = Ub(kLnUbMeanB);
        rstdB_ = Ub(kLnUbRstdB);
      }
    }
    if (t_.needDx) {
      sum1_ = Ub(kLnUbSum1);
      sum2_ = Ub(kLnUbSum2);
      if (ub.buf[kLnUbAcc1].count) acc1_ = Ub(kLnUbAcc1);
      if (ub.buf[kLnUbAcc2].count) acc2_ = Ub(kLnUbAcc2);
      if (shortRows_) {
        s1B_ = Ub(kLnUbS1B);
        s2B_ = Ub(kLnUbS2B);
      }
      if (t_.hasWeight) {
        gammaRaw_ = tmpF_;
        gammaF_ = Ub(kLnUbGamma);
      }
    }
    if (t_.needDgamma) dgammaF_ = Ub(kLnUbDgamma);
    if (t_.needDbeta) dbetaF_ = Ub(kLnUbDbeta);
    // The gamma load staging and the dgamma/dbeta store staging reuse tmpF_ (xhatF_ when chunks
    // recompute), which holds nothing live at those points (each staging use is fenced against the
    // pipe that used it before).
    if (t_.needDgamma || t_.needDbeta) stage_ = needX_ ? tmpF_ : Ub(kLnUbStage);
    if constexpr (Copy::kBlocks) {
      // Whole-block copies (Atlas training): one scratch block; stores below one block only into
      // workspace rows padded to 16 floats or outputs the aclnn layer stages through workspace.
      ioRows_.on = ioCols_.on = ioWs_.on = true;
      ioRows_.scratch = ioCols_.scratch = ioWs_.scratch = Ub(kLnUbScratch);
      ioRows_.total = t_.rows;
      ioCols_.total = t_.cols;
      ioWs_.total = ~0ull;
    }
    if (t_.needDx && !shortRows_) {
      for (uint32_t i = 0; i < t_.bufferNum; ++i) {
        dxOutEvt_[i] = static_cast<event_t>(pipe_->AllocEventID<AscendC::HardEvent::MTE3_MTE2>());
      }
    }
  }
  __aicore__ static inline uint32_t Bytes(const LnBatchUbLayout& ub, uint32_t i) {
    return static_cast<uint32_t>(ub.buf[i].bytes);
  }
  __aicore__ inline AscendC::LocalTensor<float> Ub(uint32_t i) { return buf_[i].template Get<float>(); }

  __aicore__ inline void ZeroSums(uint32_t count) {
    if (t_.needDgamma) AscendC::Duplicate(dgammaF_, 0.0f, static_cast<int32_t>(count));
    if (t_.needDbeta) AscendC::Duplicate(dbetaF_, 0.0f, static_cast<int32_t>(count));
  }

  // Loads rows [r0, r0 + n) of this core's slice: dy and x in their own dtype, one DMA each.
  __aicore__ inline void CopyIn(uint64_t r0, uint32_t n) {
    // The dy buffer this load takes (the queue hands its buffers out in turn) may still be
    // leaving as dx of the batch bufferNum back.
    dySlot_ = loads_++ % t_.bufferNum;
    if (dxOutPending_[dySlot_]) {
      AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(dxOutEvt_[dySlot_]);
      dxOutPending_[dySlot_] = false;
    }
    dyIn_ = LoadRows(dyQue_, a_.dy, r0, n);
    if (needX_) {
      xIn_ = LoadRows(xQue_, a_.x, r0, n);
      LoadAsFloat(meanF_, Ub(kLnUbMeanRaw), a_.mean, r0, n, t_.statsDtype, ioRows_);
      LoadAsFloat(rstdF_, Ub(kLnUbRstdRaw), a_.rstd, r0, n, t_.statsDtype, ioRows_);
    }
    if (t_.needDx && !shortRows_) {
      AscendC::Duplicate(acc1_, 0.0f, static_cast<int32_t>(n * kRowSumsLanes));
      AscendC::Duplicate(acc2_, 0.0f, static_cast<int32_t>(n * kRowSumsLanes));
    }
  }

  __aicore__ inline AscendC::LocalTensor<T> LoadRows(AscendC::TQue<AscendC::TPosition::VECIN, 1>& que, GM_ADDR src,
                                                     uint64_t r0, uint32_t n) {
    AscendC::LocalTensor<T> rows = que.template AllocTensor<T>();
    copy_.LoadRows(rows, src, t_, r0, colStart_, n, sliceCols_);
    que.EnQue(rows);
    return que.template DeQue<T>();
  }

  __aicore__ inline void FreeInputs() {
    dyQue_.FreeTensor(dyIn_);
    if (needX_) xQue_.FreeTensor(xIn_);
  }

  __aicore__ inline void ToFloat(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<T>& src,
                                 uint32_t n) {
    AscendC::Cast(dst, src, AscendC::RoundMode::CAST_NONE, n);
  }

  // fp32 dy of chunk [c0, c0 + cw) of row r: the resident input itself for fp32, else cast into dyF_.
  __aicore__ inline AscendC::LocalTensor<float> DyRow(uint32_t r, uint32_t c0, uint32_t cw) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return dyIn_[r * t_.sliceStride + c0];
    } else {
      AscendC::LocalTensor<float> dst = dyF_[Work(r)];
      ToFloat(dst, dyIn_[r * t_.sliceStride + c0], cw);
      return dst;
    }
  }

  // xhatF_ row r = x - mean_r of chunk [c0, c0 + cw).
  __aicore__ inline AscendC::LocalTensor<float> CenteredX(uint32_t r, uint32_t c0, uint32_t cw) {
    const int32_t n = static_cast<int32_t>(cw);
    AscendC::LocalTensor<float> xh = xhatF_[Work(r)];
    if constexpr (AscendC::IsSameType<T, float>::value) {
      AscendC::Adds(xh, xIn_[r * t_.sliceStride + c0], -meanF_.GetValue(r), n);
    } else {
      ToFloat(xh, xIn_[r * t_.sliceStride + c0], cw);
      AscendC::Adds(xh, xh, -meanF_.GetValue(r), n);
    }
    return xh;
  }

  // g = dy * gamma of row r, in place over dyRow (for fp32 that is the resident input, so the dx
  // pass finds g there and never reloads gamma), or dy itself without weight.
  __aicore__ inline AscendC::LocalTensor<float> GRow(const AscendC::LocalTensor<float>& dyRow,
                                                     const AscendC::LocalTensor<float>& gamma, uint32_t cw) {
    if (!t_.hasWeight) return dyRow;
    AscendC::LocalTensor<float> g = dyRow;
    AscendC::Mul(g, dyRow, gamma, static_cast<int32_t>(cw));
    return g;
  }

  __aicore__ inline AscendC::LocalTensor<float> GammaChunk(uint32_t c0, uint32_t cw) {
    if (t_.gammaResident) return gammaF_[c0];
    LoadAsFloat(gammaF_, gammaRaw_, a_.gamma, colStart_ + c0, cw, t_.weightDtype, ioCols_);
    return gammaF_;
  }

  // Row sums of the batch (64-lane partials in acc1_/acc2_) and dgamma/dbeta sums for chunk [c0, c0 + cw).
  __aicore__ inline void AccumulateChunk(uint32_t n, uint32_t c0) {
    if (!recompute_) {
      AccumulateTile(n);
      return;
    }
    const uint32_t cw = ChunkWidth(c0);
    const int32_t cnt = static_cast<int32_t>(cw);
    const uint32_t accOff = t_.accResident ? c0 : 0;
    if (!t_.accResident) ZeroSums(cw);
    AscendC::LocalTensor<float> gamma;
    if (t_.needDx && t_.hasWeight) gamma = GammaChunk(c0, cw);
    for (uint32_t r = 0; r < n; ++r) {
      AscendC::LocalTensor<float> dyRow = DyRow(r, c0, cw);
      if (t_.needDbeta) AscendC::Add(dbetaF_[accOff], dbetaF_[accOff], dyRow, cnt);
      if (needX_) {
        // p = dy * (x - mean): dgamma += rstd * p; s2 (before its rstd) += sum(gamma * p).
        AscendC::LocalTensor<float> p = CenteredX(r, c0, cw);
        AscendC::Mul(p, dyRow, p, cnt);
        if (t_.needDgamma) AscendC::Axpy(dgammaF_[accOff], p, rstdF_.GetValue(r), cnt);
        if (t_.needDx) {
          if (t_.hasWeight) AscendC::Mul(p, p, gamma, cnt);
          AccumulateLanes(acc2_[r * kRowSumsLanes], p, cw);
        }
      }
      if (t_.needDx) AccumulateLanes(acc1_[r * kRowSumsLanes], GRow(dyRow, gamma, cw), cw);
    }
    if (!t_.accResident) FlushSums(c0, cw, 0);
  }

  // Single chunk (!recompute_): the work tiles hold all n rows at the stride of the resident
  // inputs, so the steps without per-row scalars (casts, products) run once over the whole tile;
  // pad columns between rows compute garbage that nothing reads.
  __aicore__ inline void AccumulateTile(uint32_t n) {
    const uint32_t cw = sliceCols_, w = t_.chunkCols;
    const int32_t cnt = static_cast<int32_t>(cw), all = static_cast<int32_t>(n * w);
    if (!t_.accResident) ZeroSums(cw);
    AscendC::LocalTensor<float> gamma;
    if (t_.needDx && t_.hasWeight) gamma = GammaChunk(0, cw);
    AscendC::LocalTensor<float> dy;
    if constexpr (AscendC::IsSameType<T, float>::value) {
      dy = dyIn_;
    } else {
      dy = dyF_;
      AscendC::Cast(dyF_, dyIn_, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(all));
    }
    if (needX_) {
      if constexpr (!AscendC::IsSameType<T, float>::value) {
        AscendC::Cast(xhatF_, xIn_, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(all));
      }
      for (uint32_t r = 0; r < n; ++r) {
        AscendC::LocalTensor<float> xh = xhatF_[r * w];
        if constexpr (AscendC::IsSameType<T, float>::value) {
          AscendC::Adds(xh, xIn_[r * w], -meanF_.GetValue(r), cnt);
        } else {
          AscendC::Adds(xh, xh, -meanF_.GetValue(r), cnt);
        }
      }
    }
    if (t_.needDbeta) {
      for (uint32_t r = 0; r < n; ++r) AscendC::Add(dbetaF_, dbetaF_, dy[r * w], cnt);
    }
    if (t_.needDgamma) {
      AscendC::Mul(tmpF_, dy, xhatF_, all);
      for (uint32_t r = 0; r < n; ++r) AscendC::Axpy(dgammaF_, tmpF_[r * w], rstdF_.GetValue(r), cnt);
    }
    if (t_.needDx) {
      for (uint32_t r = 0; r < n; ++r) {
        if (t_.hasWeight) AscendC::Mul(dy[r * w], dy[r * w], gamma, cnt);  // g over dy
        AccumulateLanes(acc1_[r * kRowSumsLanes], dy[r * w], cw);
      }
      AscendC::Mul(tmpF_, dy, xhatF_, all);
      for (uint32_t r = 0; r < n; ++r) AccumulateLanes(acc2_[r * kRowSumsLanes], tmpF_[r * w], cw);
    }
    if (!t_.accResident) FlushSums(0, cw, 0);
  }

  // sum1_/sum2_[r] = this slice's row sums of the batch, ready for scalar reads and MTE3.
  __aicore__ inline void FinishRowSums(uint32_t n) {
    for (uint32_t r0 = 0; r0 < n; r0 += kRowSumsMaxRepeat) {
      const int32_t rep = static_cast<int32_t>(n - r0 < kRowSumsMaxRepeat ? n - r0 : kRowSumsMaxRepeat);
      AscendC::WholeReduceSum<float>(sum1_[r0], acc1_[r0 * kRowSumsLanes], static_cast<int32_t>(kRowSumsLanes),
                                     rep, 1, 1, 8);
      AscendC::WholeReduceSum<float>(sum2_[r0], acc2_[r0 * kRowSumsLanes], static_cast<int32_t>(kRowSumsLanes),
                                     rep, 1, 1, 8);
    }
    // Pass 1 summed gamma * dy * (x - mean): one rstd per row makes it s2.
    AscendC::Mul(sum2_, sum2_, rstdF_, static_cast<int32_t>(n));
    PipeFence<AscendC::HardEvent::V_S>();
  }

  // dx of the batch's n rows for chunk [c0, c0 + cw), over dy in place; sum1_/sum2_ hold the
  // whole-row sums. dx = rstd * ((g - s1/D) - xhat * s2/D), accumulated in g (dead afterwards);
  // with several chunks g and x - mean are recomputed from the resident dy and x, and rstd is
  // folded into the Axpy scalar instead of into x-hat. StoreDx writes the batch.
  __aicore__ inline void DxChunk(uint32_t n, uint32_t c0) {
    const uint32_t cw = ChunkWidth(c0);
    const int32_t cnt = static_cast<int32_t>(cw);
    const bool recompute = recompute_;
    AscendC::LocalTensor<float> gamma;
    if (recompute && t_.hasWeight && !kFloatIn) gamma = GammaChunk(c0, cw);
    const float invD = 1.0f / static_cast<float>(t_.cols);
    for (uint32_t r = 0; r < n; ++r) {
      const float rstd = rstdF_.GetValue(r);
      const float meanG = sum1_.GetValue(r) * invD;
      const float meanGx = sum2_.GetValue(r) * invD;
      AscendC::LocalTensor<float> g, xs;
      const float xCoef = -meanGx * rstd;  // the work rows hold x - mean, not x-hat
      if (recompute) {
        g = kFloatIn ? GResident(r, c0) : GRow(DyRow(r, c0, cw), gamma, cw);
        if constexpr (!kFloatIn) {
          const float mean = meanF_.GetValue(r);
          if (RawXIsExactEnough(mean, rstd)) {
            DxFromRawX(g, r, c0, cw, rstd, rstd * xCoef, -rstd * (meanG + xCoef * mean));
            continue;
          }
        }
        xs = CenteredX(r, c0, cw);
      } else {
        g = GResident(r, 0);
        xs = xhatF_[Work(r)];
      }
      AscendC::Adds(g, g, -meanG, cnt);
      AscendC::Axpy(g, xs, xCoef, cnt);
      AscendC::Muls(g, g, rstd, cnt);
      if constexpr (!kFloatIn) {
        if (recompute) AscendC::Cast(dyIn_[r * t_.sliceStride + c0], g, Copy::kDownCast, cw);
      }
    }
    if constexpr (!kFloatIn) {
      // One chunk: the work rows sit at the stride of the resident dy, so one down-cast covers the batch.
      if (!recompute) AscendC::Cast(dyIn_, dyF_, Copy::kDownCast, n * t_.sliceStride);
    }
  }

  // dx = rstd * g + a * x + b of a 16-bit row chunk written over its dy: one vector op fewer
  // than centring x first. a * x and b cancel to the x-term a * (x - mean) - which is why
  // RawXIsExactEnough bounds |mean| * rstd.
  __aicore__ inline void DxFromRawX(const AscendC::LocalTensor<float>& g, uint32_t r, uint32_t c0, uint32_t cw,
                                    float rstd, float a, float b) {
    const int32_t cnt = static_cast<int32_t>(cw);
    AscendC::LocalTensor<float> xs = xhatF_[Work(r)];
    ToFloat(xs, xIn_[r * t_.sliceStride + c0], cw);
    AscendC::Muls(xs, xs, a, cnt);
    AscendC::Adds(xs, xs, b, cnt);
    AscendC::Axpy(xs, g, rstd, cnt);
    AscendC::Cast(dyIn_[r * t_.sliceStride + c0], xs, Copy::kDownCast, cw);
  }

  // |mean| * rstd = |mean| / sigma <= 64: the cancellation in a * x + b costs at most 64 fp32
  // ulps (4e-6) of the x-term, far below the 16-bit rounding of dx (bf16 4e-3, fp16 5e-4).
  __aicore__ static inline bool RawXIsExactEnough(float mean, float rstd) {
    const float m = mean < 0 ? -mean : mean;
    return m * rstd <= 64.0f;
  }

  // Writes dx of the batch's n rows from over dy; the next load into this dy buffer waits for it.
  __aicore__ inline void StoreDx(uint64_t r0, uint32_t n) {
    PipeFence<AscendC::HardEvent::V_MTE3>();
    AscendC::GlobalTensor<T> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(a_.dx) + r0 * t_.cols + colStart_);
    copy_.StoreRows(gm, dyIn_, t_, n, sliceCols_, t_.sliceStride);
    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(dxOutEvt_[dySlot_]);
    dxOutPending_[dySlot_] = true;
  }

  // The last dx stores have left before the kernel moves on (stage 2 or the end).
  __aicore__ inline void DrainDx() {
    for (uint32_t i = 0; i < 2; ++i) {
      if (!dxOutPending_[i]) continue;
      AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(dxOutEvt_[i]);
      dxOutPending_[i] = false;
    }
  }

  // dx of rows under one block (LnBlockCopy's dense writer) once every row is packed.
  __aicore__ inline void FinishDense() { copy_.Finish(t_); }

  // g as pass 1 left it: in the resident fp32 input (any chunk), or in dyF_ (single chunk, 16-bit).
  __aicore__ inline AscendC::LocalTensor<float> GResident(uint32_t r, uint32_t c0) {
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return dyIn_[r * t_.sliceStride + c0];
    } else {
      return dyF_[Work(r)];
    }
  }

  // Writes dgamma/dbeta sums of columns [c0, c0 + cw) of the slice: to the outputs when one
  // group covers all rows, else to this group's partial row in the workspace.
  __aicore__ inline void FlushSums(uint32_t c0, uint32_t cw, uint32_t accOff) {
    const uint64_t col = colStart_ + c0;
    GM_ADDR partials = a_.workspace + t_.partialOffset;
    if (t_.needDgamma) {
      if (t_.rowRanges == 1) {
        StoreFromFloat(a_.dgamma, col, dgammaF_[accOff], stage_, cw, t_.weightDtype, ioCols_);
      } else {
        StoreFromFloat(partials, (range_ * 2ull + 0) * t_.partialStride + col, dgammaF_[accOff], stage_, cw, 0,
                       ioWs_);
      }
    }
    if (t_.needDbeta) {
      if (t_.rowRanges == 1) {
        StoreFromFloat(a_.dbeta, col, dbetaF_[accOff], stage_, cw, t_.weightDtype, ioCols_);
      } else {
        StoreFromFloat(partials, (range_ * 2ull + 1) * t_.partialStride + col, dbetaF_[accOff], stage_, cw, 0,
                       ioWs_);
      }
    }
  }

  __aicore__ inline void FlushResidentSums() {
    if (!t_.accResident) return;
    for (uint32_t c0 = 0; c0 < sliceCols_; c0 += t_.chunkCols) FlushSums(c0, ChunkWidth(c0), c0);
  }

  static constexpr bool kFloatIn = AscendC::IsSameType<T, float>::value;
  AscendC::TPipe* pipe_ = nullptr;
  LayerNormGradArgs a_{};
  LayerNormGradTiling t_{};
  uint32_t core_ = 0, range_ = 0, slice_ = 0, sliceCols_ = 0, nChunks_ = 0, bp_ = 0, workRows_ = 0;
  uint32_t loads_ = 0, dySlot_ = 0;                  // dy loads so far; the dy buffer of the batch
  event_t dxOutEvt_[2] = {};               // MTE3_MTE2 per dy buffer: its dx has left
  bool dxOutPending_[2] = {false, false};
  bool recompute_ = false;
  uint64_t rowStart_ = 0, rowCount_ = 0, colStart_ = 0;
  bool needX_ = false, shortRows_ = false;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> dyQue_, xQue_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> dxQue_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf_[kLnBatchUbCount];  // by LnBatchUb (queues unused)
  BlockIo ioRows_, ioCols_, ioWs_;  // whole-block copies of stats (M), gamma/dgamma/dbeta (D), workspace
  Copy copy_;
  AscendC::LocalTensor<T> dyIn_, xIn_;
  AscendC::LocalTensor<float> dyF_, xhatF_, tmpF_, meanF_, rstdF_, sum1_, sum2_, acc1_, acc2_, gammaRaw_, gammaF_,
      dgammaF_, dbetaF_, stage_, meanB_, rstdB_, s1B_, s2B_;
};

}  // namespace normgrad
