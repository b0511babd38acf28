// normgrad_opsnn_run_<soc> DIR: runs one launch of an ops-nn kernel (compiled unchanged from an ops-nn source
// tree) on front end B, with ops-nn's own host tiling: DIR/opsnn.txt (launch_spec.h) gives the operator's
// tensors and attributes, the tiling (host_tiling.cpp) gives the tiling key, block dim, workspace and tiling
// bytes, CANN's ICPU_RUN_KF runs the kernel one process per core on the instruction-level model. Inputs are
// read from DIR/region<i>.bin, outputs written back there; DIR/result.txt says "ok" or "error <why>".
#include <unistd.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "kern_fwk.h"
#include "kernel_operator.h"
#include "launch_file.h"
#include "cost_report.h"
#include "launch_spec.h"
#include "launch_state.h"
#include "run_kernel.h"

// The ops-nn kernel entries this runner may hold (weak: only those whose sources were found are linked).
extern "C" {
__attribute__((weak)) void group_norm_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                           GM_ADDR, GM_ADDR);
__attribute__((weak)) void layer_norm_grad_v3(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                              GM_ADDR, GM_ADDR);
}

namespace {

using normgrad::opsnn::LaunchSpec;
using normgrad::opsnn::TilingResult;

uint64_t Bytes(const normgrad::opsnn::TensorSpec& t) {
  const uint64_t item = t.dtype == "float32" ? 4 : 2;
  return std::accumulate(t.shape.begin(), t.shape.end(), item, [](uint64_t a, int64_t d) { return a * d; });
}

template <typename... P>
bool Launch(void (*fn)(P...), uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::string* error) {
  if (fn == nullptr) {
    *error = "this kernel is not built into " NORMGRAD_CANN_SOC "'s ops-nn runner";
    return false;
  }
  if (!normgrad::cann::RunKernel(fn, blockDim, ptrs)) {
    *error = "the kernel takes " + std::to_string(sizeof...(P)) + " arguments, opsnn.txt gives " +
             std::to_string(ptrs.size() - 2) + " tensors";
    return false;
  }
  return true;
}

bool Dispatch(const std::string& kernel, uint32_t blockDim, const std::vector<uint8_t*>& ptrs, std::string* error) {
  if (kernel == "group_norm_grad") return Launch(group_norm_grad, blockDim, ptrs, error);
  if (kernel == "layer_norm_grad_v3") return Launch(layer_norm_grad_v3, blockDim, ptrs, error);
  *error = "unknown ops-nn kernel '" + kernel + "'";
  return false;
}

void WriteTilingReport(const std::string& dir, const TilingResult& t) {
  std::FILE* fp = std::fopen((dir + "/tiling.txt").c_str(), "w");
  if (fp == nullptr) return;
  const uint64_t ws = std::accumulate(t.workspaceBytes.begin(), t.workspaceBytes.end(), uint64_t{0});
  std::fprintf(fp, "tiling_key %llu\nblock_dim %u\nschedule_mode %u\nworkspace %llu\ntiling_bytes %zu\n",
               static_cast<unsigned long long>(t.tilingKey), t.blockDim, t.scheduleMode,
               static_cast<unsigned long long>(ws), t.tilingData.size());
  std::fclose(fp);
}

int Finish(const std::string& dir, const std::string& error) {
  return normgrad::cann::WriteResult(dir, error, "normgrad_opsnn_run");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (a launch directory, sim/cann_cpu/opsnn/launch_spec.h)\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  if (chdir(dir.c_str()) != 0) return Finish(dir, "cannot enter " + dir);
  LaunchSpec spec;
  std::string error;
  if (!normgrad::opsnn::ReadLaunchSpec(dir, &spec, &error)) return Finish(dir, error);
  TilingResult tiling;
  if (!normgrad::opsnn::RunTiling(spec.request, &tiling, &error)) return Finish(dir, error);
  WriteTilingReport(dir, tiling);
  if (tiling.blockDim == 0 || tiling.blockDim > static_cast<uint32_t>(normgrad::cann::kMaxCores)) {
    return Finish(dir, "the tiling asks for " + std::to_string(tiling.blockDim) + " cores");
  }

  // GM: the inputs and outputs (regions in order), the workspace the tiling asked for, the tiling bytes.
  std::vector<normgrad::opsnn::TensorSpec> tensors = spec.request.inputs;
  tensors.insert(tensors.end(), spec.request.outputs.begin(), spec.request.outputs.end());
  std::vector<uint8_t*> ptrs;
  for (size_t i = 0; i < tensors.size() && error.empty(); ++i) {
    const uint64_t bytes = Bytes(tensors[i]);
    ptrs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(bytes > 0 ? bytes : 1)));
    if (i < spec.request.inputs.size() &&
        !normgrad::cann::ReadFileBytes(normgrad::cann::RegionPath(dir, i), ptrs.back(), bytes)) {
      error = "cannot read " + normgrad::cann::RegionPath(dir, i);
    }
  }
  const uint64_t wsBytes = std::accumulate(tiling.workspaceBytes.begin(), tiling.workspaceBytes.end(), uint64_t{0});
  ptrs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(wsBytes > 0 ? wsBytes : 1)));
  ptrs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(tiling.tilingData.size() + 8)));
  std::copy(tiling.tilingData.begin(), tiling.tilingData.end(), ptrs.back());

  if (error.empty()) {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
    AscendC::SetKernelMode(KernelMode::AIV_MODE);  // vector kernels, as runner/main.cpp
#endif
    ICPU_SET_TILING_KEY(tiling.tilingKey);
    normgrad::cann::BeginLaunch(tiling.blockDim);
    normgrad::cann::SetLaunchL2Bytes(spec.l2Bytes);  // each core writes its cost report (core<i>.txt)
    if (Dispatch(spec.kernel, tiling.blockDim, ptrs, &error)) error = normgrad::cann::EndLaunch();
  }
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const size_t out = i - spec.request.inputs.size();
    if (error.empty() && i >= spec.request.inputs.size() && i < tensors.size() &&
        !normgrad::cann::WriteFileBytes(normgrad::cann::RegionPath(dir, i), ptrs[i], Bytes(spec.request.outputs[out]))) {
      error = "cannot write " + normgrad::cann::RegionPath(dir, i);
    }
    AscendC::GmFree(ptrs[i]);
  }
  return Finish(dir, error);
}
