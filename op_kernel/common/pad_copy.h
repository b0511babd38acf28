// DataCopyPad behind one name, so the kernels build for every architecture they serve.
//
// DataCopyPad (byte-exact GM <-> UB copies with padding) exists on Atlas A2/A3 only. The Atlas
// training series (arch 1001) and inference series (2002) have whole-block DataCopy alone, and
// their tilings always select the block-copy paths (blockCopyOnly), so no DataCopyPad call is
// reached there. The kernels still contain those paths; CANN's dav-c100 headers reject a
// DataCopyPad from GM at compile time and dav-m200's mark every DataCopyPad unsupported: on those
// architectures (common/arch.h) PadCopy compiles to a trap instead. The simulator builds without
// __NPU_ARCH__ and runs the real call; its profiles of both series fail any DataCopyPad, so a
// tiling that reached one there is caught by the tests, not on the device.
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"

namespace normgrad {

// AscendC::DataCopyPad(args...) where the architecture has it; unreachable elsewhere.
template <typename... Args>
__aicore__ inline void PadCopy(const Args&... args) {
#if NORMGRAD_BLOCK_COPY_ARCH
  AscendC::Trap();
#else
  AscendC::DataCopyPad(args...);
#endif
}

}  // namespace normgrad
