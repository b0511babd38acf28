// Level-0 vector instructions over a batch of short rows: one instruction per 64-lane column
// piece covers up to 255 rows (the repeats step over rows), instead of one count-form instruction
// per row. Rows of fp32 work tiles sit at a stride of `rep` 32-byte blocks (rep <= 255); per-row
// scalars come Brcb'd, one 32-byte block per row (block stride 0, repeat stride 1).
#pragma once
#include "kernel_operator.h"

namespace normgrad {

constexpr uint32_t kRowRepeatLanes = 64;   // fp32 lanes per repeat
constexpr uint32_t kRowRepeatMaxRows = 255;

// kMulAddDst: dst = src0 * src1 + dst; kFusedMulAdd: dst = src0 * dst + src1 (A2/A3 only).
enum class RowOp : uint32_t { kAdd, kSub, kMul, kMulAddDst, kFusedMulAdd };

// Operand of RowsBinary: a tensor and its repeat stride in blocks; blk = 0 broadcasts the first
// block of each repeat (a Brcb'd per-row scalar); rep = 0 reuses one row for every repeat (gamma,
// or the accumulator of a column sum when it is also dst).
struct RowOperand {
  AscendC::LocalTensor<float> t;
  uint8_t blk;
  uint8_t rep;
};

__aicore__ inline AscendC::LocalTensor<float> RowsAt(const RowOperand& o, uint32_t r0, uint32_t c) {
  return o.t[r0 * o.rep * 8 + (o.blk != 0 ? c : 0)];
}

// dst = src0 op src1 (or the multiply-adds above) on columns [0, cols) of n rows.
__aicore__ inline void RowsBinary(RowOp op, const RowOperand& dst, const RowOperand& src0, const RowOperand& src1,
                                  uint32_t n, uint32_t cols) {
  for (uint32_t r0 = 0; r0 < n; r0 += kRowRepeatMaxRows) {
    const uint8_t reps = static_cast<uint8_t>(n - r0 < kRowRepeatMaxRows ? n - r0 : kRowRepeatMaxRows);
    const AscendC::BinaryRepeatParams p(1, src0.blk, src1.blk, dst.rep, src0.rep, src1.rep);
    for (uint32_t c = 0; c < cols; c += kRowRepeatLanes) {
      const uint64_t lanes = cols - c < kRowRepeatLanes ? cols - c : kRowRepeatLanes;
      const AscendC::LocalTensor<float> d = RowsAt(dst, r0, c), a = RowsAt(src0, r0, c), b = RowsAt(src1, r0, c);
      if (op == RowOp::kAdd) {
        AscendC::Add<float>(d, a, b, lanes, reps, p);
      } else if (op == RowOp::kSub) {
        AscendC::Sub<float>(d, a, b, lanes, reps, p);
      } else if (op == RowOp::kMulAddDst) {
        AscendC::MulAddDst<float, float>(d, a, b, lanes, reps, p);
      } else if (op == RowOp::kFusedMulAdd) {
        AscendC::FusedMulAdd<float>(d, a, b, lanes, reps, p);
      } else {
        AscendC::Mul<float>(d, a, b, lanes, reps, p);
      }
    }
  }
}

// dst[r] = sum of columns [0, cols) of row r (stride `rep` blocks), for r < n: the 64-lane pieces
// of each row are added left to right into fold (n x 64 floats), then one WholeReduceSum per 255
// rows sums each fold row as a pairwise tree.
__aicore__ inline void RowsSum(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                               uint8_t rep, const AscendC::LocalTensor<float>& fold, uint32_t n, uint32_t cols) {
  for (uint32_t r0 = 0; r0 < n; r0 += kRowRepeatMaxRows) {
    const uint8_t reps = static_cast<uint8_t>(n - r0 < kRowRepeatMaxRows ? n - r0 : kRowRepeatMaxRows);
    const AscendC::LocalTensor<float> in = src[r0 * rep * 8];
    if (cols <= kRowRepeatLanes) {
      AscendC::WholeReduceSum<float>(dst[r0], in, static_cast<int32_t>(cols), reps, 1, 1, rep);
      continue;
    }
    const AscendC::LocalTensor<float> acc = fold[r0 * kRowRepeatLanes];
    AscendC::Adds<float>(acc, in, 0.0f, kRowRepeatLanes, reps, AscendC::UnaryRepeatParams(1, 1, 8, rep));
    for (uint32_t c = kRowRepeatLanes; c < cols; c += kRowRepeatLanes) {
      const uint64_t lanes = cols - c < kRowRepeatLanes ? cols - c : kRowRepeatLanes;
      AscendC::Add<float>(acc, acc, in[c], lanes, reps, AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, rep));
    }
    AscendC::WholeReduceSum<float>(dst[r0], acc, static_cast<int32_t>(kRowRepeatLanes), reps, 1, 1, 8);
  }
}

// One row of count floats as repeats of 64 lanes (a masked tail instruction for the rest): the
// operands are contiguous (blk 1, rep 8) or a Brcb'd scalar block (blk 0, rep 0) applied to every
// piece; dst as RowsBinary's.
__aicore__ inline void RowPieces(RowOp op, const RowOperand& dst, const RowOperand& src0, const RowOperand& src1,
                                 uint32_t count) {
  const uint32_t full = count / kRowRepeatLanes, tail = count % kRowRepeatLanes;
  RowsBinary(op, dst, src0, src1, full, kRowRepeatLanes);
  if (tail == 0) return;
  const uint32_t at = full * kRowRepeatLanes;
  const auto past = [at](const RowOperand& o) { return RowOperand{o.blk != 0 ? o.t[at] : o.t, o.blk, o.rep}; };
  RowsBinary(op, past(dst), past(src0), past(src1), 1, tail);
}

// dst[r] = sum over columns [0, cols) of a[r] * b[r] (rows `rep` blocks apart), r < n, without a
// product tile: the first 64-lane piece's products go into fold and MulAddDst adds the later
// pieces' products to it, the same values and order as RowsSum of the products (A2/A3 only).
__aicore__ inline void RowsDotSum(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& a,
                                  const AscendC::LocalTensor<float>& b, uint8_t rep,
                                  const AscendC::LocalTensor<float>& fold, uint32_t n, uint32_t cols) {
  for (uint32_t r0 = 0; r0 < n; r0 += kRowRepeatMaxRows) {
    const uint8_t reps = static_cast<uint8_t>(n - r0 < kRowRepeatMaxRows ? n - r0 : kRowRepeatMaxRows);
    const AscendC::LocalTensor<float> x = a[r0 * rep * 8], y = b[r0 * rep * 8];
    const AscendC::LocalTensor<float> acc = fold[r0 * kRowRepeatLanes];
    const uint64_t first = cols < kRowRepeatLanes ? cols : kRowRepeatLanes;
    AscendC::Mul<float>(acc, x, y, first, reps, AscendC::BinaryRepeatParams(1, 1, 1, 8, rep, rep));
    for (uint32_t c = kRowRepeatLanes; c < cols; c += kRowRepeatLanes) {
      const uint64_t lanes = cols - c < kRowRepeatLanes ? cols - c : kRowRepeatLanes;
      AscendC::MulAddDst<float, float>(acc, x[c], y[c], lanes, reps, AscendC::BinaryRepeatParams(1, 1, 1, 8, rep, rep));
    }
    AscendC::WholeReduceSum<float>(dst[r0], acc, static_cast<int32_t>(first), reps, 1, 1, 8);
  }
}

// Casts columns [0, cols) of n rows between a 16-bit tile and an fp32 tile of the same row length
// (fp32 rows `rep` blocks apart, 16-bit rows rep / 2; rep even).
template <typename D, typename S>
__aicore__ inline void RowsCast(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
                                AscendC::RoundMode mode, uint8_t rep, uint32_t n, uint32_t cols) {
  const uint8_t dRep = sizeof(D) == 4 ? rep : static_cast<uint8_t>(rep / 2);
  const uint8_t sRep = sizeof(S) == 4 ? rep : static_cast<uint8_t>(rep / 2);
  const uint32_t rowElems = rep * 8u;  // fp32 elements per row = 16-bit elements per row
  for (uint32_t r0 = 0; r0 < n; r0 += kRowRepeatMaxRows) {
    const uint8_t reps = static_cast<uint8_t>(n - r0 < kRowRepeatMaxRows ? n - r0 : kRowRepeatMaxRows);
    for (uint32_t c = 0; c < cols; c += kRowRepeatLanes) {
      const uint64_t lanes = cols - c < kRowRepeatLanes ? cols - c : kRowRepeatLanes;
      AscendC::Cast<D, S>(dst[r0 * rowElems + c], src[r0 * rowElems + c], mode, lanes, reps,
                          AscendC::UnaryRepeatParams(1, 1, dRep, sRep));
    }
  }
}

// dst block r = 8 copies of src[r], r < n (src holds at least n rounded up to 8 floats).
__aicore__ inline void RowScalars(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                                  uint32_t n) {
  const uint32_t groups = (n + 7) / 8;
  for (uint32_t g0 = 0; g0 < groups; g0 += kRowRepeatMaxRows) {
    const uint32_t reps = groups - g0 < kRowRepeatMaxRows ? groups - g0 : kRowRepeatMaxRows;
    AscendC::Brcb(dst[g0 * 64], src[g0 * 8], static_cast<uint8_t>(reps), AscendC::BrcbRepeatParams(1, 8));
  }
}

}  // namespace normgrad
