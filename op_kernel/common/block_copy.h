// GM <-> UB copies of whole 32-byte blocks for chips without DataCopyPad (Atlas training series).
// They never read outside [0, total) of the GM tensor and never write a GM byte outside the
// elements they serve, except that a write of count >= one block ends in the block that ends at
// the last element: it overlaps the head by a few elements, which it writes again with the same
// values (both copies come from the same UB data), so the order of the two DMAs does not matter.
#pragma once
#include "kernel_operator.h"
#include "common/pipe_fence.h"

namespace normgrad {

// dst[0, count) = gm[off, off + count) of a GM tensor of total elements; dst beyond count is
// garbage up to the next block. scratch holds one block. Elements that do not start a whole block
// in place arrive through scratch and the scalar unit. Leaves dst ready for Vector and scalar reads.
template <typename S>
__aicore__ inline void LoadBlocks(const AscendC::LocalTensor<S>& dst, const AscendC::LocalTensor<S>& scratch,
                                  const AscendC::GlobalTensor<S>& gm, uint64_t off, uint32_t count, uint64_t total) {
  const uint32_t pb = 32 / sizeof(S);
  const uint32_t head = count / pb * pb;
  const uint32_t rem = count - head;
  if (rem > 0 && off + head + pb <= total) {
    AscendC::DataCopy(dst, gm[off], head + pb);  // the block past the end is still inside the tensor
  } else {
    if (head > 0) AscendC::DataCopy(dst, gm[off], head);
    if (rem > 0) {
      PipeFence<AscendC::HardEvent::S_MTE2>();  // scratch's previous scalar readers are done
      PipeFence<AscendC::HardEvent::V_S>();     // dst's previous vector readers are done
      if (total >= pb) {
        AscendC::DataCopy(scratch, gm[total - pb], pb);  // the last block of the tensor
        PipeFence<AscendC::HardEvent::MTE2_S>();
        const uint64_t from = off + head - (total - pb);
        for (uint32_t j = 0; j < rem; ++j) dst.SetValue(head + j, scratch.GetValue(from + j));
      } else {
        for (uint32_t j = 0; j < rem; ++j) dst.SetValue(head + j, gm.GetValue(off + head + j));
      }
      PipeFence<AscendC::HardEvent::S_V>();
      PipeFence<AscendC::HardEvent::S_MTE3>();
    }
  }
  PipeFence<AscendC::HardEvent::MTE2_V>();
  PipeFence<AscendC::HardEvent::MTE2_S>();
}

// gm[off, off + count) = src[0, count), count >= one block: the whole blocks from src, then the
// block ending at off + count through scratch (one block). src was written by Vector.
template <typename S>
__aicore__ inline void StoreBlocks(const AscendC::GlobalTensor<S>& gm, const AscendC::LocalTensor<S>& src,
                                   const AscendC::LocalTensor<S>& scratch, uint64_t off, uint32_t count) {
  const uint32_t pb = 32 / sizeof(S);
  const uint32_t head = count / pb * pb;
  PipeFence<AscendC::HardEvent::V_MTE3>();
  if (head > 0) AscendC::DataCopy(gm[off], src, head);
  if (head == count) return;
  PipeFence<AscendC::HardEvent::MTE3_S>();  // scratch's previous store has left
  PipeFence<AscendC::HardEvent::V_S>();
  for (uint32_t j = 0; j < pb; ++j) scratch.SetValue(j, src.GetValue(count - pb + j));
  PipeFence<AscendC::HardEvent::S_MTE3>();
  AscendC::DataCopy(gm[off + count - pb], scratch, pb);
}

}  // namespace normgrad
