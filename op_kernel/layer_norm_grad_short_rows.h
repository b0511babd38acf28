// LayerNorm backward mode ShortRows: short whole rows (one chunk, at most 2040
// elements), every step a level-0 instruction that repeats over the rows of the batch, one per
// 64-column piece (common/row_repeat.h); per-row scalars are Brcb'd. Same math and sum
// orders as layer_norm_grad_batch.h, for batches with more rows than 64-column pieces.
// 16-bit inputs (vector-bound: their stream is half as long) take fewer instructions: the casts
// run once over the batch's rows (pad columns between rows compute garbage nothing reads), and
// the multiply-adds of A2/A3 fuse x-hat (rstd * x - mean * rstd, while |mean| * rstd <= 64),
// dgamma (+= dy * x-hat), s2 (no product tile) and dx (rstd * g + p, then + x-hat * q).
#pragma once
#include "common/pad_copy.h"
#include "layer_norm_grad_batch.h"
#include "common/row_repeat.h"

namespace normgrad {

// DataCopyPad only: the mode needs Brcb, which the training series (block copies) lacks.
template <typename T>
class LayerNormGradShortRows : public LayerNormGradBatch<T, LnPadCopy<T>> {
  using LayerNormGradBatch<T, LnPadCopy<T>>::kFloatIn;

 public:
  __aicore__ inline void Process() {
    for (uint32_t batch = 0;; ++batch) {
      const uint32_t n = this->BatchRows(batch);
      if (n == 0) break;
      const uint64_t r0 = this->rowStart_ + static_cast<uint64_t>(batch) * this->t_.rowsPerBatch;
      this->CopyIn(r0, n);
      AccumulateRows(n);
      if (this->PublishEarly(this->BatchRows(batch + 1) == 0)) this->PublishParams();
      if (this->t_.needDx) DxRows(r0, n);
      this->FreeInputs();
    }
    this->PublishParams();
  }

 private:
  // Pass 1 of a batch: leaves g in dyF_ (or the fp32 input), x-hat in xhatF_ and the row sums
  // in sum1_/sum2_.
  __aicore__ inline void AccumulateRows(uint32_t n) {
    const uint32_t cw = this->sliceCols_;
    const uint8_t rep = static_cast<uint8_t>(this->t_.sliceStride / 8);
    if (!this->t_.accResident) this->ZeroSums(cw);
    const RowOperand dy = this->DyRows(n);
    RowOperand xh{this->xhatF_, 1, rep};
    const RowOperand tmp{this->tmpF_, 1, rep};
    if (this->needX_) {
      RowScalars(this->rstdB_, this->rstdF_, n);
      if constexpr (AscendC::IsSameType<T, float>::value) {
        RowScalars(this->meanB_, this->meanF_, n);
        RowsBinary(RowOp::kSub, xh, RowOperand{this->xIn_, 1, rep}, RowOperand{this->meanB_, 0, 1}, n, cw);
        RowsBinary(RowOp::kMul, xh, xh, RowOperand{this->rstdB_, 0, 1}, n, cw);
      } else {
        AscendC::Cast(this->xhatF_, this->xIn_, AscendC::RoundMode::CAST_NONE, n * this->t_.sliceStride);
        XhatFromRawX(xh, n, cw);
      }
    }
    // Column sums over rows: dst = src1 with repeat stride 0, the documented accumulation pattern.
    if (this->t_.needDbeta) {
      const RowOperand acc{this->dbetaF_, 1, 0};
      RowsBinary(RowOp::kAdd, acc, dy, acc, n, cw);
    }
    if (this->t_.needDgamma) {
      const RowOperand acc{this->dgammaF_, 1, 0};
      if constexpr (AscendC::IsSameType<T, float>::value) {
        RowsBinary(RowOp::kMul, tmp, dy, xh, n, cw);
        RowsBinary(RowOp::kAdd, acc, tmp, acc, n, cw);
      } else {
        RowsBinary(RowOp::kMulAddDst, acc, dy, xh, n, cw);  // the same roundings as Mul, then Add
      }
    }
    if (this->t_.needDx) {
      RowOperand g = dy;
      if (this->t_.hasWeight) {
        g = RowOperand{this->dyF_, 1, rep};
        RowsBinary(RowOp::kMul, g, dy, RowOperand{this->gammaF_, 1, 0}, n, cw);
      }
      RowsSum(this->sum1_, g.t, rep, this->acc1_, n, cw);
      if (!kFloatIn && cw > kRowRepeatLanes) {  // rows of one piece have no fold tile (acc1_)
        RowsDotSum(this->sum2_, g.t, xh.t, rep, this->acc1_, n, cw);
      } else {
        RowsBinary(RowOp::kMul, tmp, g, xh, n, cw);
        RowsSum(this->sum2_, this->tmpF_, rep, this->acc1_, n, cw);
      }
    }
    if (!this->t_.accResident) this->FlushSums(0, cw, 0);
  }

  // fp32 dy rows of the batch: the resident input for fp32, else cast into dyF_.
  __aicore__ inline RowOperand DyRows(uint32_t n) {
    const uint8_t rep = static_cast<uint8_t>(this->t_.sliceStride / 8);
    if constexpr (AscendC::IsSameType<T, float>::value) {
      return RowOperand{this->dyIn_, 1, rep};
    } else {
      AscendC::Cast(this->dyF_, this->dyIn_, AscendC::RoundMode::CAST_NONE, n * this->t_.sliceStride);
      return RowOperand{this->dyF_, 1, rep};
    }
  }

  // 16-bit: xh (x cast to fp32) becomes x-hat. rstd * x + (-mean * rstd) is one FusedMulAdd per
  // piece instead of a subtraction and a product; the product x * rstd then cancels against
  // mean * rstd, which costs at most |mean| * rstd fp32 ulps of x-hat, so past 64 (4e-6, far below
  // the 16-bit rounding of dx) a batch centres x first.
  __aicore__ inline void XhatFromRawX(const RowOperand& xh, uint32_t n, uint32_t cw) {
    bool raw = true;
    for (uint32_t r = 0; r < n && raw; ++r) {
      const float m = this->meanF_.GetValue(r), s = this->rstdF_.GetValue(r);
      raw = (m < 0 ? -m : m) * s <= 64.0f;
    }
    const RowOperand rstd{this->rstdB_, 0, 1}, shift{this->meanB_, 0, 1};
    if (raw) {
      // -mean * rstd per row (over the mean, which nothing reads later), Brcb'd.
      AscendC::Mul(this->meanF_, this->meanF_, this->rstdF_, static_cast<int32_t>(n));
      AscendC::Muls(this->meanF_, this->meanF_, -1.0f, static_cast<int32_t>(n));
      RowScalars(this->meanB_, this->meanF_, n);
      RowsBinary(RowOp::kFusedMulAdd, xh, rstd, shift, n, cw);
    } else {
      RowScalars(this->meanB_, this->meanF_, n);
      RowsBinary(RowOp::kSub, xh, xh, shift, n, cw);
      RowsBinary(RowOp::kMul, xh, xh, rstd, n, cw);
    }
  }

  // dx = ((g - s1/D) + xhat * (-s2/D)) * rstd for the batch, then one DMA.
  __aicore__ inline void DxRows(uint64_t r0, uint32_t n) {
    const uint32_t cw = this->sliceCols_;
    const uint8_t rep = static_cast<uint8_t>(this->t_.sliceStride / 8);
    const float negInvD = -1.0f / static_cast<float>(this->t_.cols);
    const int32_t rows = static_cast<int32_t>(n);
    AscendC::Muls(this->sum1_, this->sum1_, negInvD, rows);
    AscendC::Muls(this->sum2_, this->sum2_, negInvD, rows);
    if constexpr (!AscendC::IsSameType<T, float>::value) {
      // 16-bit: dx = rstd * g + p + x-hat * q with p = -rstd * s1 / D, q = -rstd * s2 / D, in g.
      AscendC::Mul(this->sum1_, this->sum1_, this->rstdF_, rows);
      AscendC::Mul(this->sum2_, this->sum2_, this->rstdF_, rows);
    }
    RowScalars(this->s1B_, this->sum1_, n);
    RowScalars(this->s2B_, this->sum2_, n);
    RowOperand g{this->dyF_, 1, rep};
    if constexpr (AscendC::IsSameType<T, float>::value) {
      if (!this->t_.hasWeight) g = RowOperand{this->dyIn_, 1, rep};
    }
    const RowOperand xh{this->xhatF_, 1, rep};
    AscendC::LocalTensor<T> out = this->dxQue_.template AllocTensor<T>();
    if constexpr (AscendC::IsSameType<T, float>::value) {
      const RowOperand acc{this->tmpF_, 1, rep};
      RowsBinary(RowOp::kAdd, acc, g, RowOperand{this->s1B_, 0, 1}, n, cw);
      RowsBinary(RowOp::kMul, xh, xh, RowOperand{this->s2B_, 0, 1}, n, cw);
      RowsBinary(RowOp::kAdd, acc, acc, xh, n, cw);
      RowsBinary(RowOp::kMul, RowOperand{out, 1, rep}, acc, RowOperand{this->rstdB_, 0, 1}, n, cw);
    } else {
      RowsBinary(RowOp::kFusedMulAdd, g, RowOperand{this->rstdB_, 0, 1}, RowOperand{this->s1B_, 0, 1}, n, cw);
      RowsBinary(RowOp::kMulAddDst, g, xh, RowOperand{this->s2B_, 0, 1}, n, cw);
      AscendC::Cast(out, this->dyF_, AscendC::RoundMode::CAST_RINT, n * this->t_.sliceStride);
    }
    this->dxQue_.EnQue(out);
    out = this->dxQue_.template DeQue<T>();
    const uint32_t s = sizeof(T);
    AscendC::GlobalTensor<T> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(this->a_.dx) + r0 * this->t_.cols + this->colStart_);
    const uint32_t srcGap = this->t_.sliceStride * s / 32 - (cw * s + 31) / 32;  // 32-byte blocks
    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), cw * s, srcGap,
                                      static_cast<uint32_t>((this->t_.cols - cw) * s), 0);
    PadCopy(gm, out, params);
    this->dxQue_.FreeTensor(out);
  }

};

}  // namespace normgrad
