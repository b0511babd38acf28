// LayerNorm backward mode TwoPass (A2/A3): rows too long for any core group to keep resident with
// their gamma and dgamma/dbeta (for M >= 2 beyond about 433 K fp32 columns). Core j owns column
// slice j of every row and streams it twice:
//   pass 1: per column chunk, every row: dbeta += dy, dgamma += rstd * dy * (x - mean) (both in UB
//           for the chunk, written straight to the outputs: no other core has these columns), and
//           this slice's row sums s1 = sum(g), s2 = sum(g * (x - mean)) of every row accumulate in
//           UB across chunks; s2 *= rstd; the M partials go to the workspace.
//   SyncAll, then pass 2 (dx only): the whole-row sums of every row are the slice partials added
//           in slice order (the same bits on every core), gathered once; then per chunk and batch
//           of rows dx is written.
// dy and x are read twice (traffic 5/3 of the minimum), every other byte once; no atomics.
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "layer_norm_grad_args.h"
#include "layer_norm_grad_tiling.h"
#include "common/float_io.h"
#include "common/pipe_fence.h"
#include "common/row_sums.h"

namespace normgrad {

template <typename T>
class LayerNormGradTwoPass {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
    a_ = args;
    t_ = t;
    core_ = static_cast<uint32_t>(AscendC::GetBlockIdx());
    colStart_ = static_cast<uint64_t>(core_) * t.sliceCols;
    sliceCols_ = static_cast<uint32_t>(t.cols - colStart_ < t.sliceCols ? t.cols - colStart_ : t.sliceCols);
    needX_ = t.needDx || t.needDgamma;
    bp_ = (t.rowsPerBatch + 7) / 8 * 8;
    mp_ = static_cast<uint32_t>((t.rows + 7) / 8 * 8);
    // The layout LayerNormGradTwoPassUb (tiling header) describes, in its order; the x - mean row
    // doubles as the staging of gamma loads and dgamma/dbeta stores (nothing live then).
    const LnTwoPassUbLayout ub = LayerNormGradTwoPassUb(t);
    pipe->InitBuffer(dyQue_, ub.buf[kLnTpDyQue].count, static_cast<uint32_t>(ub.buf[kLnTpDyQue].bytes));
    if (ub.buf[kLnTpXQue].count) pipe->InitBuffer(xQue_, ub.buf[kLnTpXQue].count, static_cast<uint32_t>(ub.buf[kLnTpXQue].bytes));
    if (ub.buf[kLnTpDxQue].count) pipe->InitBuffer(dxQue_, ub.buf[kLnTpDxQue].count, static_cast<uint32_t>(ub.buf[kLnTpDxQue].bytes));
    for (uint32_t i = kLnTpDyF; i < kLnTwoPassUbCount; ++i) {
      if (ub.buf[i].count) pipe->InitBuffer(buf_[i], static_cast<uint32_t>(ub.buf[i].bytes));
    }
  }

  __aicore__ inline void Process() {
    PassOne();
    if (!t_.needDx) return;
    PublishRowSums();
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::SyncAll();
    PassTwo();
  }

 private:
  static constexpr bool kFloatIn = AscendC::IsSameType<T, float>::value;

  __aicore__ inline uint32_t Rows(uint64_t r0) const {
    return static_cast<uint32_t>(t_.rows - r0 < t_.rowsPerBatch ? t_.rows - r0 : t_.rowsPerBatch);
  }

  // Rows [r0, r0 + n) x columns [c0, c0 + cw) of this slice, at a row stride of chunkCols.
  __aicore__ inline AscendC::LocalTensor<T> Load(AscendC::TQue<AscendC::TPosition::VECIN, 1>& que, GM_ADDR src,
                                                 uint64_t r0, uint32_t n, uint32_t c0, uint32_t cw) {
    const uint32_t s = sizeof(T);
    AscendC::LocalTensor<T> tile = que.template AllocTensor<T>();
    AscendC::GlobalTensor<T> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(src) + r0 * t_.cols + colStart_ + c0);
    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), cw * s, static_cast<uint32_t>((t_.cols - cw) * s),
                                      t_.chunkCols * s / 32 - (cw * s + 31) / 32, 0);
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0.0f));
    PadCopy(tile, gm, params, pad);
    que.EnQue(tile);
    return que.template DeQue<T>();
  }

  __aicore__ inline void LoadBatch(uint64_t r0, uint32_t n, uint32_t c0, uint32_t cw) {
    dyIn_ = Load(dyQue_, a_.dy, r0, n, c0, cw);
    if (!needX_) return;
    xIn_ = Load(xQue_, a_.x, r0, n, c0, cw);
    LoadAsFloat(Ub(kLnTpMean), Ub(kLnTpMeanRaw), a_.mean, r0, n, t_.statsDtype);
    LoadAsFloat(Ub(kLnTpRstd), Ub(kLnTpRstdRaw), a_.rstd, r0, n, t_.statsDtype);
  }

  __aicore__ inline void FreeBatch() {
    dyQue_.FreeTensor(dyIn_);
    if (needX_) xQue_.FreeTensor(xIn_);
  }

  // fp32 dy of row r of the batch: the tile itself for fp32, else cast into the fp32 dy row.
  __aicore__ inline AscendC::LocalTensor<float> DyRow(uint32_t r, uint32_t cw) {
    if constexpr (kFloatIn) {
      return dyIn_[r * t_.chunkCols];
    } else {
      AscendC::LocalTensor<float> dy = Ub(kLnTpDyF);
      AscendC::Cast(dy, dyIn_[r * t_.chunkCols], AscendC::RoundMode::CAST_NONE, cw);
      return dy;
    }
  }

  // xc_ = x - mean_r of row r of the batch.
  __aicore__ inline AscendC::LocalTensor<float> CenteredX(uint32_t r, uint32_t cw) {
    AscendC::LocalTensor<float> xc = Ub(kLnTpXc);
    const float mean = Ub(kLnTpMean).GetValue(r);
    if constexpr (kFloatIn) {
      AscendC::Adds(xc, xIn_[r * t_.chunkCols], -mean, static_cast<int32_t>(cw));
    } else {
      AscendC::Cast(xc, xIn_[r * t_.chunkCols], AscendC::RoundMode::CAST_NONE, cw);
      AscendC::Adds(xc, xc, -mean, static_cast<int32_t>(cw));
    }
    return xc;
  }

  __aicore__ inline AscendC::LocalTensor<float> LoadGamma(uint32_t c0, uint32_t cw) {
    AscendC::LocalTensor<float> gamma = Ub(kLnTpGamma);
    LoadAsFloat(gamma, Ub(kLnTpXc), a_.gamma, colStart_ + c0, cw, t_.weightDtype);
    return gamma;
  }

  __aicore__ inline void PassOne() {
    if (t_.needDx) {
      AscendC::Duplicate(Ub(kLnTpRowS1), 0.0f, static_cast<int32_t>(mp_));
      AscendC::Duplicate(Ub(kLnTpRowS2), 0.0f, static_cast<int32_t>(mp_));
    }
    for (uint32_t c0 = 0; c0 < sliceCols_; c0 += t_.chunkCols) {
      const uint32_t cw = sliceCols_ - c0 < t_.chunkCols ? sliceCols_ - c0 : t_.chunkCols;
      AscendC::LocalTensor<float> gamma;
      if (t_.needDx && t_.hasWeight) gamma = LoadGamma(c0, cw);
      if (t_.needDgamma) AscendC::Duplicate(Ub(kLnTpDgamma), 0.0f, static_cast<int32_t>(cw));
      if (t_.needDbeta) AscendC::Duplicate(Ub(kLnTpDbeta), 0.0f, static_cast<int32_t>(cw));
      for (uint64_t r0 = 0; r0 < t_.rows; r0 += t_.rowsPerBatch) {
        const uint32_t n = Rows(r0);
        LoadBatch(r0, n, c0, cw);
        AccumulateBatch(r0, n, cw, gamma);
        FreeBatch();
      }
      StoreParams(c0, cw);
    }
  }

  __aicore__ inline void AccumulateBatch(uint64_t r0, uint32_t n, uint32_t cw,
                                         const AscendC::LocalTensor<float>& gamma) {
    const int32_t cnt = static_cast<int32_t>(cw);
    AscendC::LocalTensor<float> acc1, acc2;
    if (t_.needDx) {
      acc1 = Ub(kLnTpAcc1);
      acc2 = Ub(kLnTpAcc2);
      AscendC::Duplicate(acc1, 0.0f, static_cast<int32_t>(n * kRowSumsLanes));
      AscendC::Duplicate(acc2, 0.0f, static_cast<int32_t>(n * kRowSumsLanes));
    }
    for (uint32_t r = 0; r < n; ++r) {
      AscendC::LocalTensor<float> dy = DyRow(r, cw);
      if (t_.needDbeta) AscendC::Add(Ub(kLnTpDbeta), Ub(kLnTpDbeta), dy, cnt);
      if (needX_) {
        // p = dy * (x - mean): dgamma += rstd * p; s2 (before its rstd) += sum(gamma * p).
        AscendC::LocalTensor<float> p = CenteredX(r, cw);
        AscendC::Mul(p, dy, p, cnt);
        if (t_.needDgamma) {
          AscendC::Axpy(Ub(kLnTpDgamma), p, Ub(kLnTpRstd).GetValue(r), cnt);
        }
        if (t_.needDx) {
          if (t_.hasWeight) AscendC::Mul(p, p, gamma, cnt);
          AccumulateLanes(acc2[r * kRowSumsLanes], p, cw);
        }
      }
      if (t_.needDx) {
        if (t_.hasWeight) AscendC::Mul(dy, dy, gamma, cnt);  // g over this row's dy
        AccumulateLanes(acc1[r * kRowSumsLanes], dy, cw);
      }
    }
    if (!t_.needDx) return;
    AscendC::LocalTensor<float> s1 = Ub(kLnTpSum1), s2 = Ub(kLnTpSum2);
    AscendC::WholeReduceSum<float>(s1, acc1, static_cast<int32_t>(kRowSumsLanes), static_cast<int32_t>(n), 1, 1, 8);
    AscendC::WholeReduceSum<float>(s2, acc2, static_cast<int32_t>(kRowSumsLanes), static_cast<int32_t>(n), 1, 1, 8);
    // Chunks in column order: the same order on every run.
    AscendC::Add(Ub(kLnTpRowS1)[r0], Ub(kLnTpRowS1)[r0], s1, static_cast<int32_t>(n));
    AscendC::Add(Ub(kLnTpRowS2)[r0], Ub(kLnTpRowS2)[r0], s2, static_cast<int32_t>(n));
  }

  // dgamma/dbeta of this chunk's columns: no other core has them, so straight to the outputs.
  __aicore__ inline void StoreParams(uint32_t c0, uint32_t cw) {
    const AscendC::LocalTensor<float> stage = Ub(kLnTpXc);
    if (t_.needDgamma) StoreFromFloat(a_.dgamma, colStart_ + c0, Ub(kLnTpDgamma), stage, cw, t_.weightDtype);
    if (t_.needDbeta) StoreFromFloat(a_.dbeta, colStart_ + c0, Ub(kLnTpDbeta), stage, cw, t_.weightDtype);
  }

  // Workspace floats: [slice][s1 | s2][mp_]; s2 gets its rstd here, once per row.
  __aicore__ inline void PublishRowSums() {
    const uint32_t m = static_cast<uint32_t>(t_.rows);
    AscendC::LocalTensor<float> rstd = Ub(kLnTpRstdAll);
    LoadAsFloat(rstd, Ub(kLnTpRstdAllRaw), a_.rstd, 0, m, t_.statsDtype);
    AscendC::Mul(Ub(kLnTpRowS2), Ub(kLnTpRowS2), rstd, static_cast<int32_t>(m));
    PipeFence<AscendC::HardEvent::V_MTE3>();
    GM_ADDR slots = a_.workspace + t_.exchangeOffset;
    CopyUbToGm(slots, static_cast<uint64_t>(core_) * 2 * mp_, Ub(kLnTpRowS1), m);
    CopyUbToGm(slots, (static_cast<uint64_t>(core_) * 2 + 1) * mp_, Ub(kLnTpRowS2), m);
  }

  // rowS1/rowS2[r0 + r] = the whole-row sums of rows [r0, r0 + n): every slice's partial, slice
  // order. Their pass-1 contents have left (PublishRowSums and the barrier before SyncAll).
  __aicore__ inline void GatherRowSums(uint64_t r0, uint32_t n) {
    AscendC::LocalTensor<float> exch = Ub(kLnTpExch);
    const uint32_t np = (n + 7) / 8 * 8;
    PipeFence<AscendC::HardEvent::S_MTE2>();  // the previous batch's scalar reads are done
    AscendC::GlobalTensor<float> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(a_.workspace + t_.exchangeOffset));
    for (uint32_t k = 0; k < 2; ++k) {  // s1 then s2 of every slice, one DMA each
      AscendC::DataCopyExtParams params(static_cast<uint16_t>(t_.colSplit), n * 4,
                                        static_cast<uint32_t>((2 * mp_ - n) * 4), 0, 0);
      AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
      PadCopy(exch[k * t_.colSplit * np], gm[k * mp_ + r0], params, pad);
    }
    PipeFence<AscendC::HardEvent::MTE2_S>();
    for (uint32_t r = 0; r < n; ++r) {
      float s1 = 0.0f, s2 = 0.0f;
      for (uint32_t j = 0; j < t_.colSplit; ++j) {
        s1 += exch.GetValue(j * np + r);
        s2 += exch.GetValue((t_.colSplit + j) * np + r);
      }
      Ub(kLnTpRowS1).SetValue(r0 + r, s1);
      Ub(kLnTpRowS2).SetValue(r0 + r, s2);
    }
  }

  __aicore__ inline void PassTwo() {
    for (uint64_t r0 = 0; r0 < t_.rows; r0 += t_.rowsPerBatch) GatherRowSums(r0, Rows(r0));
    const AscendC::LocalTensor<float> s1 = Ub(kLnTpRowS1), s2 = Ub(kLnTpRowS2);
    const float invD = 1.0f / static_cast<float>(t_.cols);
    for (uint32_t c0 = 0; c0 < sliceCols_; c0 += t_.chunkCols) {
      const uint32_t cw = sliceCols_ - c0 < t_.chunkCols ? sliceCols_ - c0 : t_.chunkCols;
      const int32_t cnt = static_cast<int32_t>(cw);
      AscendC::LocalTensor<float> gamma;
      if (t_.hasWeight) gamma = LoadGamma(c0, cw);
      for (uint64_t r0 = 0; r0 < t_.rows; r0 += t_.rowsPerBatch) {
        const uint32_t n = Rows(r0);
        LoadBatch(r0, n, c0, cw);
        AscendC::LocalTensor<T> out = dxQue_.template AllocTensor<T>();
        for (uint32_t r = 0; r < n; ++r) {
          // dx = rstd * ((g - s1/D) + (x - mean) * (-rstd * s2/D)), accumulated in g.
          const float rstd = Ub(kLnTpRstd).GetValue(r);
          AscendC::LocalTensor<float> g = DyRow(r, cw);
          if (t_.hasWeight) AscendC::Mul(g, g, gamma, cnt);
          AscendC::LocalTensor<float> xc = CenteredX(r, cw);
          AscendC::Adds(g, g, -s1.GetValue(r0 + r) * invD, cnt);
          AscendC::Axpy(g, xc, -s2.GetValue(r0 + r) * invD * rstd, cnt);
          if constexpr (kFloatIn) {
            AscendC::Muls(out[r * t_.chunkCols], g, rstd, cnt);
          } else {
            AscendC::Muls(g, g, rstd, cnt);
            AscendC::Cast(out[r * t_.chunkCols], g, AscendC::RoundMode::CAST_RINT, cw);
          }
        }
        FreeBatch();
        dxQue_.EnQue(out);
        out = dxQue_.template DeQue<T>();
        const uint32_t s = sizeof(T);
        AscendC::GlobalTensor<T> gm;
        gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(a_.dx) + r0 * t_.cols + colStart_ + c0);
        AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), cw * s, t_.chunkCols * s / 32 - (cw * s + 31) / 32,
                                          static_cast<uint32_t>((t_.cols - cw) * s), 0);
        PadCopy(gm, out, params);
        dxQue_.FreeTensor(out);
      }
    }
  }

  LayerNormGradArgs a_{};
  LayerNormGradTiling t_{};
  uint32_t core_ = 0, sliceCols_ = 0, bp_ = 0, mp_ = 0;
  uint64_t colStart_ = 0;
  bool needX_ = false;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> dyQue_, xQue_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> dxQue_;
  __aicore__ inline AscendC::LocalTensor<float> Ub(uint32_t i) { return buf_[i].template Get<float>(); }
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf_[kLnTwoPassUbCount];  // by LnTwoPassUb (queues unused)
  AscendC::LocalTensor<T> dyIn_, xIn_;
};

}  // namespace normgrad
