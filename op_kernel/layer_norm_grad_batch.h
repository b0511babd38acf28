// LayerNorm backward, what the three batch modes (WholeRows, RowSlices, ShortRows) share: dy and x
// of a batch's rows (this core's column slice) resident in UB, the UB layout of the tiling
// header, the loads, and the dgamma/dbeta sums. The math of WholeRows and RowSlices is in
// layer_norm_grad_tile.h (a slice in one chunk) and layer_norm_grad_chunks.h (per chunk), ShortRows'
// row-repeat math in layer_norm_grad_short_rows.h.
//
// Per row r, in fp32 (D = cols, over the whole row, all slices):
//   xhat = (x - mean_r) * rstd_r,  g = dy * gamma
//   s1_r = sum(g),  s2_r = sum(g * xhat)
//   dx   = rstd_r * (g - s1_r / D - xhat * s2_r / D)
//   dgamma += dy * xhat,  dbeta += dy          (over this core's rows, then over row ranges)
// Row sums accumulate 64 lanes per row with one Add per chunk (common/row_sums.h) and are reduced
// for the whole batch by one WholeReduceSum: a ReduceSum per row costs 3 cycles per repeat plus a
// scalar round trip. fp32 inputs are used in place (no copy into a work buffer). dx is written
// over the resident dy of its batch (no output buffer); that UB goes to wider chunks, i.e. fewer
// vector instructions per row.
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"
#include "layer_norm_grad_args.h"
#include "layer_norm_grad_copy.h"
#include "layer_norm_grad_tiling.h"
#include "common/float_io.h"
#include "common/pipe_fence.h"
#include "common/row_sums.h"

namespace normgrad {

static_assert(kRowSumsLanes == kLnRowSumLanes, "the tiling's UB layout sizes the row-sum partials");

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
    // Chunked slices recompute x-hat and g for dx, so nothing in the fp32 work tiles outlives a
    // row: they hold one row. Decided by the tiling (widest slice), not by this core's slice.
    recompute_ = t.chunkCols < t.sliceCols;
    needX_ = t.needDx || t.needDgamma;
    shortRows_ = t.mode == kLnShortRows;
    fused_ = LnFusedTile(t);
    fusedChunks_ = LnFusedChunks(t);
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
    pipe_->InitBuffer(dyQue_, ub.buf[kLnUbDyQue].count, Bytes(ub, kLnUbDyQue));
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
      // Chunked slices keep no third work row (x - mean becomes dy * (x - mean) in place), nor do
      // fused tiles whose sums stay resident (LnFusedTileNoTmp).
      tmpF_ = recompute_ || LnFusedTileNoTmp(t_) ? xhatF_ : Ub(kLnUbTmp);
      meanF_ = Ub(kLnUbMean);
      rstdF_ = Ub(kLnUbRstd);
      if (shortRows_ || fused_) {
        meanB_ = Ub(kLnUbMeanB);
        rstdB_ = Ub(kLnUbRstdB);
      }
    }
    if (t_.needDx) {
      sum1_ = Ub(kLnUbSum1);
      sum2_ = Ub(kLnUbSum2);
      if (ub.buf[kLnUbAcc1].count) acc1_ = Ub(kLnUbAcc1);
      if (ub.buf[kLnUbAcc2].count) acc2_ = Ub(kLnUbAcc2);
      if (shortRows_ || fused_) {
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
    LoadBatch(r0, n, meanF_, rstdF_);
    ZeroRowSums(n);
  }

  // Loads the batch's dy and, when x is needed, x and its statistics (into mean and rstd).
  __aicore__ inline void LoadBatch(uint64_t r0, uint32_t n, const AscendC::LocalTensor<float>& mean,
                                   const AscendC::LocalTensor<float>& rstd) {
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
      LoadAsFloat(mean, Ub(kLnUbMeanRaw), a_.mean, r0, n, t_.statsDtype, ioRows_);
      LoadAsFloat(rstd, Ub(kLnUbRstdRaw), a_.rstd, r0, n, t_.statsDtype, ioRows_);
    }
  }

  // The row-sum lane accumulators of the batch's n rows start at zero.
  __aicore__ inline void ZeroRowSums(uint32_t n) {
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

  // The dgamma/dbeta sums are final: store them (once) and, with reduce.splitPhase, raise the
  // stage-2 flag behind those stores (the set rides MTE3), so the barrier's latency runs while
  // this core still writes dx of its last batch; the kernel entry waits on the flag before stage 2.
  __aicore__ inline void PublishParams() {
    if (paramsPublished_) return;
    paramsPublished_ = true;
    FlushResidentSums();
#if !NORMGRAD_BLOCK_COPY_ARCH
    if (t_.reduce.splitPhase) AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(kLnParamsFlagId);
#endif
  }
  // Split phase: the last batch publishes the sums before its dx (see PublishParams).
  __aicore__ inline bool PublishEarly(bool lastBatch) const { return lastBatch && t_.reduce.splitPhase != 0; }

  static constexpr bool kFloatIn = AscendC::IsSameType<T, float>::value;
  AscendC::TPipe* pipe_ = nullptr;
  LayerNormGradArgs a_{};
  LayerNormGradTiling t_{};
  uint32_t core_ = 0, range_ = 0, slice_ = 0, sliceCols_ = 0, bp_ = 0;
  uint32_t loads_ = 0, dySlot_ = 0;                  // dy loads so far; the dy buffer of the batch
  event_t dxOutEvt_[2] = {};               // MTE3_MTE2 per dy buffer: its dx has left
  bool dxOutPending_[2] = {false, false};
  bool recompute_ = false;
  bool paramsPublished_ = false;  // PublishParams ran
  uint64_t rowStart_ = 0, rowCount_ = 0, colStart_ = 0;
  bool needX_ = false, shortRows_ = false;
  bool fused_ = false;        // LnFusedTile: 16-bit single chunk on A2/A3 (layer_norm_grad_tile.h)
  bool fusedChunks_ = false;  // LnFusedChunks: 16-bit, several chunks, A2/A3
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
