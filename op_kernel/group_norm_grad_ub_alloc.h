// GroupNorm's names for the shared UB allocation helpers (op_kernel/common/ub_alloc.h): its
// phases' Init functions walk their layout (op_host/group_norm_grad_ub_layout.h) member by member
// through these, so what they allocate is what the tiling summed.
#pragma once
#include "common/ub_alloc.h"
#include "group_norm_grad_tiling.h"

namespace normgrad {

template <typename Buf>
__aicore__ inline void GngAllocBuf(AscendC::TPipe* pipe, Buf& buf, const GngUbBuffer& b) {
  UbAllocBuf(pipe, buf, b);
}

template <typename Que>
__aicore__ inline void GngAllocQue(AscendC::TPipe* pipe, Que& que, const GngUbBuffer& b) {
  UbAllocQue(pipe, que, b);
}

}  // namespace normgrad
