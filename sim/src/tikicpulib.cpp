// CANN CPU-debug harness on the simulator: GM allocations and ICPU_RUN_KF.
#include "tikicpulib.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace {

std::mutex g_allocMutex;
std::set<void*> g_allocs;  // pointers GmAlloc returned and GmFree has not freed
std::atomic<int> g_failures{0};
std::atomic<AscendC::KernelMode> g_mode{AscendC::KernelMode::MIX_MODE};
thread_local sim::LaunchReport t_last;

// On hardware a rule violation hangs, traps or corrupts memory; a CPU-mode run must not go on
// as if it had worked, so the process ends here unless the caller opted out.
bool ContinueOnError() {
  const char* env = std::getenv("NORMGRAD_SIM_CONTINUE_ON_ERROR");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

void Record(sim::LaunchReport report) {
  if (!report.ok) {
    ++g_failures;
    if (!ContinueOnError()) {
      std::fprintf(stderr, "error: ICPU_RUN_KF(%s) failed: %s\n", report.kernel.c_str(), report.error.c_str());
      std::fflush(stderr);
      std::exit(EXIT_FAILURE);
    }
    std::fprintf(stderr, "ICPU_RUN_KF(%s) failed: %s\n", report.kernel.c_str(), report.error.c_str());
  }
  t_last = std::move(report);
}

}  // namespace

namespace AscendC {

void* GmAlloc(size_t size) {
  size_t bytes = (size + 511) / 512 * 512;
  if (bytes == 0) bytes = 512;
  void* p = std::aligned_alloc(512, bytes);
  if (p == nullptr) {
    std::fprintf(stderr, "GmAlloc: out of host memory for %zu bytes\n", size);
    return nullptr;
  }
  std::memset(p, 0, bytes);
  sim::gm::Register(p, size);
  std::lock_guard<std::mutex> lock(g_allocMutex);
  g_allocs.insert(p);
  return p;
}

void GmFree(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(g_allocMutex);
    if (g_allocs.erase(ptr) == 0) {
      std::fprintf(stderr, "GmFree: %p was not returned by GmAlloc (or was freed already); ignored\n", ptr);
      ++g_failures;
      return;
    }
  }
  sim::gm::Unregister(ptr);
  std::free(ptr);
}

void SetKernelMode(KernelMode mode) { g_mode = mode; }

}  // namespace AscendC

namespace sim {
namespace cpu {

bool RunKernel(const char* name, int blockDim, const std::function<void()>& body) {
  AscendC::KernelMode mode = g_mode.load();
  if (mode == AscendC::KernelMode::AIC_MODE) {
    LaunchReport report;
    report.kernel = name;
    report.blockDim = blockDim;
    report.ok = false;
    report.error = "SetKernelMode: KernelMode::AIC_MODE runs cube cores, which the simulator does not model";
    Record(std::move(report));
    return false;
  }
  if (mode == AscendC::KernelMode::MIX_MODE) {
    // CANN would start 1 cube + 2 vector cores per block; the simulator runs the vector kernel once per block.
    Warn("SetKernelMode", "KernelMode::MIX_MODE is the default; vector kernels call "
         "SetKernelMode(KernelMode::AIV_MODE) (ran as AIV_MODE)");
  }
  LaunchReport report = Launch(name, blockDim, body);
  bool ok = report.ok;
  Record(std::move(report));
  return ok;
}

const LaunchReport& LastReport() { return t_last; }

int FailureCount() { return g_failures.load(); }

void CheckKernelArg(const char* name, int index, const void* p) {
  LaunchReport report;
  report.kernel = name;
  report.ok = false;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "argument %d (%p) is not a GmAlloc pointer", index, p);
  report.error = buf;
  Record(std::move(report));
}

}  // namespace cpu
}  // namespace sim
