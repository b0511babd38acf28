// normgrad_cann_run_<soc> DIR: runs the one kernel launch that DIR/launch.txt describes (launch_file.h) on
// front end B: the kernel compiled against CANN's Ascend C implementation, launched by CANN's own ICPU_RUN_KF
// (one process per core), the intrinsics executed by the instruction-level model. The GM regions are
// allocated with CANN's GmAlloc, filled from DIR/region<i>.bin and written back there after the launch;
// DIR/result.txt says "ok" or "error <why>". Exit status 0 iff ok.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "kern_fwk.h"
#include "kernel_operator.h"
#include "launch_file.h"
#include "launch_state.h"

// The kernel entries (op_kernel/*.cpp). Weak: a kernel that skips this SoC (its cann-check skip-arch
// marker) is not linked, and the runner says so instead of failing to link.
extern "C" {
__attribute__((weak)) void batch_norm_elemt_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                                 GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
__attribute__((weak)) void group_norm_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                           GM_ADDR, GM_ADDR);
__attribute__((weak)) void layer_norm_grad_v3(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                              GM_ADDR, GM_ADDR);
}

namespace {

using normgrad::cann::LaunchFile;

// Calls ICPU_RUN_KF with the N argument pointers of ptrs (a kernel of N GM_ADDR parameters).
template <typename Fn, size_t... I>
void RunKernel(Fn fn, uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::index_sequence<I...>) {
  ICPU_RUN_KF(fn, blockDim, ptrs[I]...);
}

template <typename... P>
bool Dispatch(void (*fn)(P...), uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::string* error) {
  if (fn == nullptr) {
    *error = "this kernel is not built for " NORMGRAD_CANN_SOC " (its cann-check skip-arch marker)";
    return false;
  }
  if (ptrs.size() != sizeof...(P)) {
    *error = "the kernel takes " + std::to_string(sizeof...(P)) + " arguments, launch.txt gives " +
             std::to_string(ptrs.size());
    return false;
  }
  RunKernel(fn, blockDim, ptrs, std::index_sequence_for<P...>{});
  return true;
}

bool Launch(const LaunchFile& f, const std::vector<uint8_t*>& ptrs, std::string* error) {
  if (f.kernel == "batch_norm_elemt_grad") return Dispatch(batch_norm_elemt_grad, f.blockDim, ptrs, error);
  if (f.kernel == "group_norm_grad") return Dispatch(group_norm_grad, f.blockDim, ptrs, error);
  if (f.kernel == "layer_norm_grad_v3") return Dispatch(layer_norm_grad_v3, f.blockDim, ptrs, error);
  *error = "unknown kernel '" + f.kernel + "'";
  return false;
}

int Finish(const std::string& dir, const std::string& error) {
  std::FILE* fp = std::fopen((dir + "/result.txt").c_str(), "w");
  if (fp != nullptr) {
    std::fprintf(fp, "%s\n", error.empty() ? "ok" : ("error " + error).c_str());
    std::fclose(fp);
  }
  if (!error.empty()) std::fprintf(stderr, "normgrad_cann_run: %s\n", error.c_str());
  return error.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (a launch directory, sim/cann_cpu/runner/launch_file.h)\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  // CANN's framework writes its files (stub_reg.log) into the working directory: keep them in DIR.
  if (chdir(dir.c_str()) != 0) return Finish(dir, "cannot enter " + dir);
  LaunchFile f;
  std::string error;
  if (!normgrad::cann::ReadLaunchFile(dir, &f, &error)) return Finish(dir, error);

  std::vector<uint8_t*> regions;
  for (size_t i = 0; i < f.regionBytes.size() && error.empty(); ++i) {
    // GmAlloc(0) is legal but maps nothing to read into.
    auto* p = static_cast<uint8_t*>(AscendC::GmAlloc(f.regionBytes[i] > 0 ? f.regionBytes[i] : 1));
    regions.push_back(p);
    if (!normgrad::cann::ReadFileBytes(normgrad::cann::RegionPath(dir, i), p, f.regionBytes[i])) {
      error = "cannot read " + normgrad::cann::RegionPath(dir, i);
    }
  }
  std::vector<uint8_t*> ptrs;
  for (const normgrad::cann::LaunchArg& a : f.args) ptrs.push_back(a.region < 0 ? nullptr : regions[a.region] + a.offset);

  if (error.empty()) {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
    // Vector kernels on A2 run as CANN's CPU-debug mode runs them when told so (its documented
    // SetKernelMode(KernelMode::AIV_MODE)): blockDim vector cores, up to 2 per AI core (the launcher's
    // limit is 50 instead of the 25 AI cores of MIX mode).
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
#endif
    normgrad::cann::BeginLaunch(f.blockDim);
    if (Launch(f, ptrs, &error)) error = normgrad::cann::EndLaunch();
  }
  for (size_t i = 0; i < regions.size(); ++i) {
    if (error.empty() && !normgrad::cann::WriteFileBytes(normgrad::cann::RegionPath(dir, i), regions[i], f.regionBytes[i])) {
      error = "cannot write " + normgrad::cann::RegionPath(dir, i);
    }
    AscendC::GmFree(regions[i]);
  }
  return Finish(dir, error);
}
