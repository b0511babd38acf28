// Sums of many short fp32 rows laid out at a fixed 32-byte-aligned stride, in a few instructions:
// per-row ReduceSum calls would cost one instruction (and a scalar write-back) per row.
#pragma once
#include "kernel_operator.h"

namespace normgrad {

constexpr uint32_t kRowSumsLanes = 64;       // fp32 lanes per repeat
constexpr uint32_t kRowSumsMaxRepeat = 255;  // repeatTime limit
constexpr uint32_t kRowSumsMaxStride = 255;  // uint8_t repeat stride, in 32-byte blocks

// True when RowSums handles rows of rowElems floats (else reduce each row with ReduceSum).
__aicore__ inline bool RowSumsFits(uint32_t rowElems) {
  return rowElems % 8 == 0 && rowElems / 8 <= kRowSumsMaxStride;
}

// dst[r] = sum(src[r*rowElems, (r+1)*rowElems)) for r < rows; src is not modified.
// fold holds rows * 64 floats: rows longer than one repeat are first folded into it, 64 lanes
// per row, in a fixed order (lanes k, k+64, k+128, ... added left to right), then one
// WholeReduceSum per 255 rows sums each 64-lane row as a pairwise tree. dst needs only
// element alignment. Requires RowSumsFits(rowElems).
__aicore__ inline void RowSums(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                               const AscendC::LocalTensor<float>& fold, uint32_t rows, uint32_t rowElems) {
  const uint8_t rowBlocks = static_cast<uint8_t>(rowElems / 8);
  for (uint32_t r0 = 0; r0 < rows; r0 += kRowSumsMaxRepeat) {
    uint8_t rep = static_cast<uint8_t>(rows - r0 < kRowSumsMaxRepeat ? rows - r0 : kRowSumsMaxRepeat);
    const AscendC::LocalTensor<float> in = src[r0 * rowElems];
    if (rowElems <= kRowSumsLanes) {
      AscendC::WholeReduceSum<float>(dst[r0], in, static_cast<int32_t>(rowElems), rep, 1, 1, rowBlocks);
      continue;
    }
    // fold[r] = in[r][0:64] + in[r][64:128], then fold[r] += in[r][64k : 64k + 64] for k >= 2.
    const AscendC::LocalTensor<float> acc = fold[r0 * kRowSumsLanes];
    uint32_t second = rowElems - kRowSumsLanes < kRowSumsLanes ? rowElems - kRowSumsLanes : kRowSumsLanes;
    // Lanes beyond a short second part keep the first part's value: copy it first.
    if (second < kRowSumsLanes) {
      AscendC::Adds<float>(acc, in, 0.0f, kRowSumsLanes, rep, AscendC::UnaryRepeatParams(1, 1, 8, rowBlocks));
    }
    AscendC::Add<float>(acc, in, in[kRowSumsLanes], second, rep,
                        AscendC::BinaryRepeatParams(1, 1, 1, 8, rowBlocks, rowBlocks));
    for (uint32_t off = 2 * kRowSumsLanes; off < rowElems; off += kRowSumsLanes) {
      uint32_t lanes = rowElems - off < kRowSumsLanes ? rowElems - off : kRowSumsLanes;
      AscendC::Add<float>(acc, acc, in[off], lanes, rep, AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, rowBlocks));
    }
    AscendC::WholeReduceSum<float>(dst[r0], acc, static_cast<int32_t>(kRowSumsLanes), rep, 1, 1, 8);
  }
}

// acc[0, 64) += the 64-lane blocks of src[0, n), n a multiple of 8: one Add whose repeats all
// accumulate into acc (dst = src1 with repeat stride 0, the documented accumulation pattern), so a
// long row costs one elementwise repeat per 64 floats instead of a ReduceSum and a scalar read.
__aicore__ inline void AccumulateLanes(const AscendC::LocalTensor<float>& acc, const AscendC::LocalTensor<float>& src,
                                       uint32_t n) {
  const uint32_t full = n / kRowSumsLanes;
  for (uint32_t r0 = 0; r0 < full; r0 += kRowSumsMaxRepeat) {
    uint8_t rep = static_cast<uint8_t>(full - r0 < kRowSumsMaxRepeat ? full - r0 : kRowSumsMaxRepeat);
    AscendC::Add<float>(acc, src[r0 * kRowSumsLanes], acc, kRowSumsLanes, rep,
                        AscendC::BinaryRepeatParams(1, 1, 1, 0, 8, 0));
  }
  const uint32_t tail = n % kRowSumsLanes;
  if (tail > 0) {
    AscendC::Add<float>(acc, src[full * kRowSumsLanes], acc, tail, 1, AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, 8));
  }
}

// acc[0, 64) += the 64-lane blocks of a[i] * b[i], i < n (n a multiple of 8), without a product
// tile: MulAddDst rounds each product and then the sum, so acc ends as AccumulateLanes of the
// products would leave it (A2/A3 only).
__aicore__ inline void AccumulateDotLanes(const AscendC::LocalTensor<float>& acc, const AscendC::LocalTensor<float>& a,
                                          const AscendC::LocalTensor<float>& b, uint32_t n) {
  const uint32_t full = n / kRowSumsLanes;
  for (uint32_t r0 = 0; r0 < full; r0 += kRowSumsMaxRepeat) {
    uint8_t rep = static_cast<uint8_t>(full - r0 < kRowSumsMaxRepeat ? full - r0 : kRowSumsMaxRepeat);
    AscendC::MulAddDst<float, float>(acc, a[r0 * kRowSumsLanes], b[r0 * kRowSumsLanes], kRowSumsLanes, rep,
                                     AscendC::BinaryRepeatParams(1, 1, 1, 0, 8, 8));
  }
  const uint32_t tail = n % kRowSumsLanes;
  if (tail > 0) {
    AscendC::MulAddDst<float, float>(acc, a[full * kRowSumsLanes], b[full * kRowSumsLanes], tail, 1,
                                     AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, 8));
  }
}

}  // namespace normgrad
