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

#include "kernel_operator.h"
#include "cost_report.h"
#include "kernel_table.h"
#include "launch_file.h"
#include "launch_state.h"

namespace {

using normgrad::cann::LaunchFile;

bool Launch(const LaunchFile& f, const std::vector<uint8_t*>& ptrs, std::string* error) {
  for (const normgrad::cann::RunnerKernel& k : normgrad::cann::RunnerKernels()) {
    if (f.kernel == k.name) return k.launch(f.blockDim, ptrs, error);
  }
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
    // CANN's GmAlloc puts the bytes right before a guard page, so the start is aligned only as the size is:
    // a size rounded up to 512 bytes starts on a 512-byte boundary, as device allocations (and front end
    // A's) do, so that scalar GM reads touch the same DCache lines on both front ends.
    constexpr uint64_t kDeviceAlign = 512;
    const uint64_t bytes = (f.regionBytes[i] + kDeviceAlign - 1) / kDeviceAlign * kDeviceAlign;
    auto* p = static_cast<uint8_t*>(AscendC::GmAlloc(bytes > 0 ? bytes : kDeviceAlign));
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
    // The launch's shared state is set up and read by the launch hooks (get_process_num, AscendCKernelEnd);
    // the L2 size asks each core for its cost report (core<i>.txt in DIR, cost_report.h).
    normgrad::cann::SetLaunchL2Bytes(f.l2Bytes);
    if (Launch(f, ptrs, &error)) error = normgrad::cann::LastLaunchError();
  }
  for (size_t i = 0; i < regions.size(); ++i) {
    if (error.empty() && !normgrad::cann::WriteFileBytes(normgrad::cann::RegionPath(dir, i), regions[i], f.regionBytes[i])) {
      error = "cannot write " + normgrad::cann::RegionPath(dir, i);
    }
    AscendC::GmFree(regions[i]);
  }
  return Finish(dir, error);
}
