// Allocates one member of a UB layout (op_host/ub_layout.h): a kernel's Init walks its layout
// member by member through these, so what it allocates is what the tiling summed. A member with
// num 0 is not allocated.
#pragma once
#include "kernel_operator.h"
#include "ub_layout.h"

namespace normgrad {

// A TBuf.
template <typename Buf>
__aicore__ inline void UbAllocBuf(AscendC::TPipe* pipe, Buf& buf, const UbBuffer& b) {
  if (b.num > 0) pipe->InitBuffer(buf, static_cast<uint32_t>(b.bytes));
}

// A TQue, b.num buffers deep.
template <typename Que>
__aicore__ inline void UbAllocQue(AscendC::TPipe* pipe, Que& que, const UbBuffer& b) {
  if (b.num > 0) pipe->InitBuffer(que, b.num, static_cast<uint32_t>(b.bytes));
}

}  // namespace normgrad
