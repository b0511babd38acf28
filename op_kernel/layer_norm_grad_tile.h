// LayerNorm backward, the single-chunk tile of WholeRows and RowSlices (one chunk per slice,
// !recompute_): the work tiles hold all n rows of the batch at the stride of the resident inputs,
// so the steps without per-row scalars run once over the tile. Pass 1 (dgamma/dbeta sums, row
// sums; in two calls where the partials are published in between) and, for 16-bit data on A2/A3
// (fused_), x-hat and dx by multiply-adds with Brcb'd row scalars. The chunked path and the dx of
// plain tiles are in layer_norm_grad_chunks.h, which derives from this class.
#pragma once
#include "layer_norm_grad_batch.h"
#include "common/row_repeat.h"

namespace normgrad {

template <typename T, typename Copy>
class LayerNormGradTile : public LayerNormGradBatch<T, Copy> {
 protected:
  using Base = LayerNormGradBatch<T, Copy>;
  using Base::a_, Base::t_, Base::ioCols_, Base::sliceCols_, Base::colStart_, Base::needX_, Base::dyIn_, Base::xIn_;
  using Base::dyF_, Base::xhatF_, Base::tmpF_, Base::meanF_, Base::rstdF_, Base::sum1_, Base::sum2_, Base::acc1_;
  using Base::acc2_, Base::gammaRaw_, Base::gammaF_, Base::dgammaF_, Base::dbetaF_, Base::kFloatIn;
  using Base::fused_, Base::meanB_, Base::rstdB_, Base::s1B_, Base::s2B_, Base::ZeroSums, Base::FlushSums;

  __aicore__ inline AscendC::LocalTensor<float> GammaChunk(uint32_t c0, uint32_t cw) {
    if (t_.gammaResident) return gammaF_[c0];
    LoadAsFloat(gammaF_, gammaRaw_, a_.gamma, colStart_ + c0, cw, t_.weightDtype, ioCols_);
    return gammaF_;
  }

  // Single chunk (!recompute_): the work tiles hold all n rows at the stride of the resident
  // inputs, so the steps without per-row scalars (casts, products) run once over the whole tile;
  // pad columns between rows compute garbage that nothing reads. `parts` may run the dgamma/dbeta
  // sums (kTileParams, with the centring) and the row sums (kTileRowSums, from the work tiles the
  // first call left) as two calls, so the partials can be published in between.
  static constexpr uint32_t kTileParams = 1, kTileRowSums = 2, kTileAll = 3;
  __aicore__ inline void AccumulateTile(uint32_t n, uint32_t parts = kTileAll) {
    const uint32_t cw = sliceCols_, w = t_.chunkCols;
    const int32_t cnt = static_cast<int32_t>(cw), all = static_cast<int32_t>(n * w);
    AscendC::LocalTensor<float> dy;
    if constexpr (AscendC::IsSameType<T, float>::value) {
      dy = dyIn_;
    } else {
      dy = dyF_;
    }
    if ((parts & kTileParams) == 0) return TileRowSums(n, dy);
    if (!t_.accResident) ZeroSums(cw);
    if constexpr (!AscendC::IsSameType<T, float>::value) {
      AscendC::Cast(dyF_, dyIn_, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(all));
    }
    if (needX_) {
      if constexpr (!AscendC::IsSameType<T, float>::value) {
        AscendC::Cast(xhatF_, xIn_, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(all));
      }
    }
    if (fused_) {
      if (needX_) FusedXhatTile(n, cw);
      if (t_.needDbeta) {
        for (uint32_t r = 0; r < n; ++r) AscendC::Add(dbetaF_, dbetaF_, dy[r * w], cnt);
      }
      if (t_.needDgamma) {  // the work rows hold x-hat: dgamma += dy * x-hat, no product tile
        for (uint32_t r = 0; r < n; ++r) AscendC::MulAddDst(dgammaF_, dy[r * w], xhatF_[r * w], cnt);
      }
    } else {
      CentredTileParams(n, dy, xhatF_, tmpF_, meanF_, rstdF_);
    }
    if (parts & kTileRowSums) TileRowSums(n, dy);
    if (!t_.accResident) FlushSums(0, cw, 0);
  }

  // AccumulateTile's dgamma/dbeta half without the multiply-adds: xc = x - mean per row (from the
  // resident fp32 x, or in place over 16-bit x's cast), left for the row sums; dbeta += dy;
  // dgamma += rstd * (dy * xc), the products in prod (which may be xc itself).
  __aicore__ inline void CentredTileParams(uint32_t n, const AscendC::LocalTensor<float>& dy,
                                           const AscendC::LocalTensor<float>& xc,
                                           const AscendC::LocalTensor<float>& prod,
                                           const AscendC::LocalTensor<float>& mean,
                                           const AscendC::LocalTensor<float>& rstd) {
    const uint32_t w = t_.chunkCols;
    const int32_t cnt = static_cast<int32_t>(sliceCols_), all = static_cast<int32_t>(n * w);
    if (needX_) {
      for (uint32_t r = 0; r < n; ++r) {
        if constexpr (AscendC::IsSameType<T, float>::value) {
          AscendC::Adds(xc[r * w], xIn_[r * w], -mean.GetValue(r), cnt);
        } else {
          AscendC::Adds(xc[r * w], xc[r * w], -mean.GetValue(r), cnt);
        }
      }
    }
    if (t_.needDbeta) {
      for (uint32_t r = 0; r < n; ++r) AscendC::Add(dbetaF_, dbetaF_, dy[r * w], cnt);
    }
    if (t_.needDgamma) {
      AscendC::Mul(prod, dy, xc, all);
      for (uint32_t r = 0; r < n; ++r) AscendC::Axpy(dgammaF_, prod[r * w], rstd.GetValue(r), cnt);
    }
  }

  // AccumulateTile's row sums: g over dy, x-hat (fused_) or x - mean in xhatF_.
  __aicore__ inline void TileRowSums(uint32_t n, const AscendC::LocalTensor<float>& dy) {
    if (!t_.needDx) return;
    const uint32_t cw = sliceCols_, w = t_.chunkCols;
    const int32_t cnt = static_cast<int32_t>(cw), all = static_cast<int32_t>(n * w);
    AscendC::LocalTensor<float> gamma;
    if (t_.hasWeight) gamma = GammaChunk(0, cw);
    for (uint32_t r = 0; r < n; ++r) {
      if (t_.hasWeight) AscendC::Mul(dy[r * w], dy[r * w], gamma, cnt);  // g over dy
      AccumulateLanes(acc1_[r * kRowSumsLanes], dy[r * w], cw);
    }
    if (fused_) {
      for (uint32_t r = 0; r < n; ++r) AccumulateDotLanes(acc2_[r * kRowSumsLanes], dy[r * w], xhatF_[r * w], cw);
    } else {
      AscendC::Mul(tmpF_, dy, xhatF_, all);
      for (uint32_t r = 0; r < n; ++r) AccumulateLanes(acc2_[r * kRowSumsLanes], tmpF_[r * w], cw);
    }
  }

  // fused_: the work rows (x cast to fp32) become x-hat = rstd * x + (-mean * rstd), one
  // FusedMulAdd per row with Brcb'd row scalars; x * rstd cancels against mean * rstd, which costs
  // at most |mean| * rstd fp32 ulps of x-hat, so past 64 (4e-6, far below the 16-bit rounding of
  // dx) the batch centres x first (Adds, Muls). rstdB_ holds rstd per row for dx either way.
  __aicore__ inline void FusedXhatTile(uint32_t n, uint32_t cw) {
    const uint32_t w = t_.chunkCols;
    const int32_t rows = static_cast<int32_t>(n), cnt = static_cast<int32_t>(cw);
    bool raw = true;
    for (uint32_t r = 0; r < n && raw; ++r) {
      const float m = meanF_.GetValue(r), s = rstdF_.GetValue(r);
      raw = (m < 0 ? -m : m) * s <= 64.0f;
    }
    if (!raw) {
      for (uint32_t r = 0; r < n; ++r) {
        AscendC::Adds(xhatF_[r * w], xhatF_[r * w], -meanF_.GetValue(r), cnt);
        AscendC::Muls(xhatF_[r * w], xhatF_[r * w], rstdF_.GetValue(r), cnt);
      }
    }
    RowScalars(rstdB_, rstdF_, n);
    if (!raw) return;
    AscendC::Mul(meanF_, meanF_, rstdF_, rows);  // -mean * rstd over the mean (not read again)
    AscendC::Muls(meanF_, meanF_, -1.0f, rows);
    RowScalars(meanB_, meanF_, n);
    for (uint32_t r = 0; r < n; ++r) {
      RowPieces(RowOp::kFusedMulAdd, RowOperand{xhatF_[r * w], 1, 8}, RowOperand{rstdB_[r * 8], 0, 0},
                RowOperand{meanB_[r * 8], 0, 0}, cw);
    }
  }

  // fused_ (one chunk): dx = rstd * g + p + x-hat * q with p = -rstd * s1 / D and q = -rstd * s2 / D
  // per row, Brcb'd: a FusedMulAdd and a MulAddDst per row, then one down-cast over the batch.
  __aicore__ inline void FusedDxTile(uint32_t n, uint32_t cw) {
    const uint32_t w = t_.chunkCols;
    const int32_t rows = static_cast<int32_t>(n);
    const float negInvD = -1.0f / static_cast<float>(t_.cols);
    if (t_.reduce.splitPhase) {
      // This work may follow the stage-2 flag's set, where it covers the wait: as it was.
      AscendC::Muls(sum1_, sum1_, negInvD, rows);
      AscendC::Mul(sum1_, sum1_, rstdF_, rows);
      AscendC::Muls(sum2_, sum2_, negInvD, rows);
      AscendC::Mul(sum2_, sum2_, rstdF_, rows);
    } else {
      // No stage-2 wait to cover (one row range): -rstd / D once per row (in meanB_, dead once
      // x-hat is formed), then one Mul per sum; one instruction per batch fewer.
      AscendC::Muls(meanB_, rstdF_, negInvD, rows);
      AscendC::Mul(sum1_, sum1_, meanB_, rows);
      AscendC::Mul(sum2_, sum2_, meanB_, rows);
    }
    RowScalars(s1B_, sum1_, n);
    RowScalars(s2B_, sum2_, n);
    for (uint32_t r = 0; r < n; ++r) {
      const RowOperand g{dyF_[r * w], 1, 8};
      RowPieces(RowOp::kFusedMulAdd, g, RowOperand{rstdB_[r * 8], 0, 0}, RowOperand{s1B_[r * 8], 0, 0}, cw);
      RowPieces(RowOp::kMulAddDst, g, RowOperand{xhatF_[r * w], 1, 8}, RowOperand{s2B_[r * 8], 0, 0}, cw);
    }
    if constexpr (!kFloatIn) AscendC::Cast(dyIn_, dyF_, Copy::kDownCast, n * t_.sliceStride);
  }
};

}  // namespace normgrad
