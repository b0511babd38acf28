// DataCopyPad behind one name, so the kernels build for every architecture they serve.
//
// DataCopyPad (byte-exact GM <-> UB copies with padding) exists on Atlas A2/A3 only. The Atlas
// training series (arch 1001) has whole-block DataCopy alone, and its tiling always selects the
// block-copy paths (blockCopyOnly), so no DataCopyPad call is reached there. The kernels still
// contain those paths, and CANN's dav-c100 headers reject a DataCopyPad from GM at compile time:
// on that architecture PadCopy compiles to a trap instead. The simulator builds without
// __NPU_ARCH__ and runs the real call; its training-series profile fails any DataCopyPad, so a
// tiling that reached one there is caught by the tests, not on the device.
#pragma once
#include "kernel_operator.h"

namespace normgrad {

// AscendC::DataCopyPad(args...) where the architecture has it; unreachable elsewhere.
template <typename... Args>
__aicore__ inline void PadCopy(const Args&... args) {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 1001
  AscendC::Trap();
#else
  AscendC::DataCopyPad(args...);
#endif
}

}  // namespace normgrad
