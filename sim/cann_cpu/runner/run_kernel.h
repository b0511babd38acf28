// RunKernel: calls CANN's ICPU_RUN_KF (one process per core) with the N argument pointers of ptrs, for a
// kernel entry of N GM_ADDR parameters. Shared by the runners of our kernels (main.cpp) and of ops-nn's
// (opsnn/runner.cpp). Include after kern_fwk.h.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace normgrad::cann {

template <typename Fn, size_t... I>
void RunKernelWith(Fn fn, uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::index_sequence<I...>) {
  ICPU_RUN_KF(fn, blockDim, ptrs[I]...);
}

// False when ptrs does not hold exactly the kernel's argument count.
template <typename... P>
bool RunKernel(void (*fn)(P...), uint32_t blockDim, const std::vector<uint8_t*>& ptrs) {
  if (ptrs.size() != sizeof...(P)) return false;
  RunKernelWith(fn, blockDim, ptrs, std::index_sequence_for<P...>{});
  return true;
}

}  // namespace normgrad::cann
