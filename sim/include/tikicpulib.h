// CANN's CPU-debug harness (tikicpulib), on the simulator: GmAlloc/GmFree, ICPU_SET_TILING_KEY,
// SetKernelMode and ICPU_RUN_KF, so kernel unit tests written for CANN's CPU mode build unchanged.
//
// A fault inside ICPU_RUN_KF (a hardware-rule violation, a race, a deadlock, an argument that is
// not a GmAlloc pointer) prints `error: ICPU_RUN_KF(<kernel>) failed: core <i>: <API>: <rule>` to
// stderr and ends the process with EXIT_FAILURE: on hardware the kernel would hang, trap or corrupt
// memory, so the caller must not go on. With NORMGRAD_SIM_CONTINUE_ON_ERROR=1 in the environment
// (read at each run) ICPU_RUN_KF returns instead and the fault is observable:
//  - in a GoogleTest file that includes <gtest/gtest.h> before this header, ICPU_RUN_KF adds a
//    non-fatal test failure (ADD_FAILURE) carrying the error text;
//  - anywhere, sim::cpu::LastReport() holds the report of the latest ICPU_RUN_KF on this thread
//    and sim::cpu::FailureCount() counts faulted runs in the process.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ascendc/launch.h"
#include "kernel_operator.h"

// Global, as in CANN's harness, so that tests can write AscendC::SetKernelMode(KernelMode::AIV_MODE).
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace AscendC {

using ::KernelMode;

// Zero-filled, 512-byte aligned, registered as a GM allocation (CANN maps a shared-memory file).
void* GmAlloc(size_t size);
void GmFree(void* ptr);
void SetKernelMode(KernelMode mode);

}  // namespace AscendC

namespace sim {
namespace cpu {

// Runs `body` as kernel `name` on the current SoC; prints a fault to stderr; returns ok.
bool RunKernel(const char* name, int blockDim, const std::function<void()>& body);
const LaunchReport& LastReport();
int FailureCount();
// Fails the run (returns false from RunKernel) when an argument is not a GmAlloc pointer.
void CheckKernelArg(const char* name, int index, const void* p);

template <typename... Params, typename... Args>
bool RunKf(const char* name, void (*func)(Params...), int blockDim, Args... args) {
  static_assert(sizeof...(Args) <= 32, "ICPU_RUN_KF: at most 32 kernel arguments");
  static_assert(sizeof...(Params) == sizeof...(Args), "ICPU_RUN_KF: pass exactly the kernel's arguments");
  int index = 0;
  bool argsOk = true;
  auto check = [&](auto p) {
    static_assert(std::is_pointer<decltype(p)>::value, "ICPU_RUN_KF: every kernel argument is a GmAlloc pointer");
    if (p != nullptr && !gm::IsRegistered(p)) {
      CheckKernelArg(name, index, p);
      argsOk = false;
    }
    ++index;
  };
  (check(args), ...);
  if (!argsOk) return false;
  // GmAlloc returns void*; the kernel takes GM_ADDR, as CANN's harness allows.
  return RunKernel(name, blockDim, [&] { func(((Params)args)...); });
}

}  // namespace cpu
}  // namespace sim

// Sets the tiling key that the next ICPU_RUN_KF on this thread runs with.
#define ICPU_SET_TILING_KEY(key) (g_tilingKey = static_cast<uint64_t>(key))

#if defined(ADD_FAILURE)
#define ICPU_RUN_KF(func, blockDim, ...)                                      \
  do {                                                                        \
    if (!::sim::cpu::RunKf(#func, func, (blockDim), __VA_ARGS__)) {           \
      ADD_FAILURE() << "ICPU_RUN_KF(" #func "): " << ::sim::cpu::LastReport().error; \
    }                                                                         \
  } while (0)
#else
#define ICPU_RUN_KF(func, blockDim, ...) ((void)::sim::cpu::RunKf(#func, func, (blockDim), __VA_ARGS__))
#endif
