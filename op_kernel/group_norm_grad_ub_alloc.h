// Allocates one member of a GroupNormGrad UB layout (op_host/group_norm_grad_ub_layout.h): the
// kernels' Init functions walk their layout member by member through these, so what they
// allocate is what the tiling summed. A member with num 0 is not allocated.
#pragma once
#include "kernel_operator.h"
#include "group_norm_grad_tiling.h"

namespace normgrad {

// A TBuf.
template <typename Buf>
__aicore__ inline void GngAllocBuf(AscendC::TPipe* pipe, Buf& buf, const GngUbBuffer& b) {
  if (b.num > 0) pipe->InitBuffer(buf, static_cast<uint32_t>(b.bytes));
}

// A TQue, b.num buffers deep.
template <typename Que>
__aicore__ inline void GngAllocQue(AscendC::TPipe* pipe, Que& que, const GngUbBuffer& b) {
  if (b.num > 0) pipe->InitBuffer(que, b.num, static_cast<uint32_t>(b.bytes));
}

}  // namespace normgrad
