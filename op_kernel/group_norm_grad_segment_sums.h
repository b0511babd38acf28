// Sums of contiguous 32-byte blocks for GroupNormGrad's sample rows (segments of 8, 16 or 32
// floats) and the channel slabs' short rows (GngRowBlockSums): adjacent blocks added pairwise
// (one Add with block stride 2, 64 output lanes a repeat) until a segment is one block, then one
// BlockReduceSum per 8 blocks: full-width repeats instead of one WholeReduceSum repeat per segment.
#pragma once
#include "kernel_operator.h"
#include "common/row_repeat.h"

namespace normgrad {

// out block i = in block 2i + in block 2i + 1, for i < pairs.
__aicore__ inline void GngFoldBlockPairs(const AscendC::LocalTensor<float>& out, const AscendC::LocalTensor<float>& in,
                                         uint32_t pairs) {
  const AscendC::BinaryRepeatParams p(1, 2, 2, 8, 16, 16);
  const uint32_t full = pairs / 8;
  for (uint32_t r0 = 0; r0 < full; r0 += kRowRepeatMaxRows) {
    const uint8_t reps = static_cast<uint8_t>(full - r0 < kRowRepeatMaxRows ? full - r0 : kRowRepeatMaxRows);
    AscendC::Add<float>(out[r0 * 64], in[r0 * 128], in[r0 * 128 + 8], 64, reps, p);
  }
  if (pairs % 8 != 0) AscendC::Add<float>(out[full * 64], in[full * 128], in[full * 128 + 8], (pairs % 8) * 8, 1, p);
}

// dst[i] = sum of block i of in, i < blocks.
__aicore__ inline void GngBlockSumsOf(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& in,
                                      uint32_t blocks) {
  const uint32_t full = blocks / 8;
  for (uint32_t r0 = 0; r0 < full; r0 += kRowRepeatMaxRows) {
    const int32_t reps = static_cast<int32_t>(full - r0 < kRowRepeatMaxRows ? full - r0 : kRowRepeatMaxRows);
    AscendC::BlockReduceSum<float>(dst[r0 * 8], in[r0 * 64], reps, 64, 1, 1, 8);
  }
  if (blocks % 8 != 0) {
    AscendC::BlockReduceSum<float>(dst[full * 8], in[full * 64], 1, static_cast<int32_t>((blocks % 8) * 8), 1, 1, 8);
  }
}

// Rows of 1, 2, 4 or 8 blocks (8 to 64 floats, contiguous) for which GngRowBlockSums works.
__aicore__ inline bool GngRowBlockSumsFit(uint32_t rowElems) {
  return rowElems == 8 || rowElems == 16 || rowElems == 32 || rowElems == 64;
}

// dst[r] = sum of row r of in (rows of rowElems floats, GngRowBlockSumsFit), r < rows: the row's
// blocks folded pairwise into fold (rows * rowElems floats; halves alternate between its first
// and second half), then one BlockReduceSum per 8 rows. dst is 32-byte aligned.
__aicore__ inline void GngRowBlockSums(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& in,
                                       const AscendC::LocalTensor<float>& fold, uint32_t rows, uint32_t rowElems) {
  AscendC::LocalTensor<float> from = in;
  uint32_t blocks = rows * rowElems / 8;
  for (uint32_t k = 0; blocks > rows; ++k) {
    const AscendC::LocalTensor<float> to = fold[k % 2 == 0 ? 0 : rows * rowElems / 2];
    GngFoldBlockPairs(to, from, blocks / 2);
    from = to;
    blocks /= 2;
  }
  GngBlockSumsOf(dst, from, rows);
}

}  // namespace normgrad
