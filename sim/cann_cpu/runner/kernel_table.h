// The kernels a runner (main.cpp) can launch by name: each entry calls CANN's ICPU_RUN_KF with the launch's
// GM pointers. The project's runner has the op_kernel entries (op_kernels.cpp); a test runner links a table
// of its own (tests/cann_cpu/api_check/).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kern_fwk.h"

namespace normgrad::cann {

struct RunnerKernel {
  const char* name;
  // Runs the kernel on blockDim cores with ptrs as its arguments; false with *error when it cannot start.
  bool (*launch)(uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::string* error);
};

// The table of this runner (defined once per runner executable).
const std::vector<RunnerKernel>& RunnerKernels();

// ICPU_RUN_KF with the N argument pointers of ptrs (a kernel of N GM_ADDR parameters). A null fn is a kernel
// not built for this SoC (a weak declaration whose definition was left out).
template <typename Fn, size_t... I>
void RunKernelWithArgs(Fn fn, uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::index_sequence<I...>) {
  ICPU_RUN_KF(fn, blockDim, ptrs[I]...);
}

template <typename... P>
bool DispatchKernel(void (*fn)(P...), uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::string* error) {
  if (fn == nullptr) {
    *error = "this kernel is not built for " NORMGRAD_CANN_SOC " (its cann-check skip-arch marker)";
    return false;
  }
  if (ptrs.size() != sizeof...(P)) {
    *error = "the kernel takes " + std::to_string(sizeof...(P)) + " arguments, launch.txt gives " +
             std::to_string(ptrs.size());
    return false;
  }
  RunKernelWithArgs(fn, blockDim, ptrs, std::index_sequence_for<P...>{});
  return true;
}

}  // namespace normgrad::cann
