// GroupNormGrad block-copy mode (Atlas training, no DataCopyPad): DMA helpers that move whole
// 32-byte blocks only and never touch a GM byte outside the piece they serve.
//
// A piece of len >= one block (pb elements) sits in its slot as [head: len / pb whole blocks]
// [tail: the block ending at the piece's end]. The tail overlaps the head by pb - len % pb lanes;
// the sums zero those lanes in their fp32 copies, and dx writes them twice with the same values
// (both copies come from the same dy, x and coefficients), so the order of the two DMAs does not
// matter and no byte of a neighbouring piece, possibly another core's, is written. Rows shorter
// than a block cannot be written that way: the tiling runs them on one core, which packs dx
// densely (GngDenseWriter) and writes it in order.
#pragma once
#include "kernel_operator.h"
#include "common/dense_block_writer.h"
#include "common/pipe_fence.h"

namespace normgrad {

// Loads a piece of len elements at GM offset off into its slot (see above); rows shorter than a
// block take one block from their start, except at the tensor's end (total elements), where the
// scalar unit copies them and zero-fills the rest of the block. Returns true after scalar writes.
template <typename T>
__aicore__ inline bool GngLoadPieceBlocks(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                          uint64_t off, uint64_t len, uint64_t total) {
  const uint64_t pb = 32 / sizeof(T);
  if (len >= pb) {
    const uint64_t head = len / pb * pb;
    AscendC::DataCopy(dst, src[off], static_cast<uint32_t>(head));
    if (head < len) AscendC::DataCopy(dst[static_cast<uint32_t>(head)], src[off + len - pb], static_cast<uint32_t>(pb));
    return false;
  }
  if (off + pb <= total) {
    AscendC::DataCopy(dst, src[off], static_cast<uint32_t>(pb));
    return false;
  }
  PipeFence<AscendC::HardEvent::V_S>();  // the buffer's previous vector readers are done
  for (uint32_t j = 0; j < pb; ++j) dst.SetValue(j, j < len ? src.GetValue(off + j) : static_cast<T>(0.0f));
  return true;
}

// Writes len elements of dx (slot layout as above) to GM offset off. len may be below one block
// for the last segment of a long piece, whose tail block still ends inside the piece.
template <typename T>
__aicore__ inline void GngStorePieceBlocks(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                           uint64_t off, uint64_t len) {
  const uint64_t pb = 32 / sizeof(T);
  const uint64_t head = len / pb * pb;
  if (head > 0) AscendC::DataCopy(dst[off], src, static_cast<uint32_t>(head));
  if (head < len) AscendC::DataCopy(dst[off + len - pb], src[static_cast<uint32_t>(head)], static_cast<uint32_t>(pb));
}

// Zeroes lanes [start, start + count) of each of rows fp32 rows laid out rowElems apart
// (rowElems a multiple of 8, count < 16): one masked Duplicate per 255 rows.
__aicore__ inline void GngZeroRowLanes(const AscendC::LocalTensor<float>& rowsF, uint32_t rows, uint32_t rowElems,
                                       uint32_t start, uint32_t count) {
  const uint32_t first = start / 8 * 8;
  uint64_t mask[2] = {((1ull << count) - 1) << (start - first), 0};
  const uint32_t strideBlocks = rowElems / 8;
  if (strideBlocks <= 255) {
    for (uint32_t r0 = 0; r0 < rows; r0 += 255) {
      uint8_t rep = static_cast<uint8_t>(rows - r0 < 255 ? rows - r0 : 255);
      AscendC::Duplicate(rowsF[r0 * rowElems + first], 0.0f, mask, rep, 1, static_cast<uint8_t>(strideBlocks));
    }
    return;
  }
  for (uint32_t r = 0; r < rows; ++r) AscendC::Duplicate(rowsF[r * rowElems + first], 0.0f, mask, 1, 1, 8);
}

// dx of rows shorter than a block, packed in GM order by the one core that owns them all.
template <typename T>
using GngDenseWriter = DenseBlockWriter<T>;

}  // namespace normgrad
