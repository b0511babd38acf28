// Test runner kernels (normgrad_cann_run_apicheck_<soc>, built with NORMGRAD_ISA_TESTS): each makes one call
// that CANN's api_check rejects but that stays inside the Unified Buffer, so only CANN's own check can stop it.
// tests/cann_cpu/test_api_check.py launches them through the runner's launch directory.
#include "kernel_operator.h"
#include "kernel_table.h"

namespace {
constexpr int32_t kElems = 256;  // floats in each buffer: 1 KiB
}  // namespace

// Add over twice a LocalTensor's elements: api_check's tensor-size check of Add (calcount form).
extern "C" __global__ __aicore__ void add_past_the_tensor(GM_ADDR x) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4 * kElems * sizeof(float));
  AscendC::LocalTensor<float> a = buf.Get<float>(kElems);
  AscendC::GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kElems);
  AscendC::DataCopy(a, xGm, kElems);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::Add(a, a, a, 2 * kElems);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(xGm, a, kElems);
}

// The same kernel with a correct count: the runner's success path for the same table.
extern "C" __global__ __aicore__ void add_within_the_tensor(GM_ADDR x) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kElems * sizeof(float));
  AscendC::LocalTensor<float> a = buf.Get<float>(kElems);
  AscendC::GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + AscendC::GetBlockIdx() * kElems, kElems);
  AscendC::DataCopy(a, xGm, kElems);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::Add(a, a, a, kElems);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(xGm, a, kElems);
}

// A level-0 Adds whose continuous mask selects no lane: api_check rejects it on the training series (dav-c100:
// "mask value 0 is invalid"), Atlas A2 runs it as a no-op; front end A enforces the same (sim/src/mask.cpp).
extern "C" __global__ __aicore__ void adds_with_zero_mask(GM_ADDR x) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kElems * sizeof(float));
  AscendC::LocalTensor<float> a = buf.Get<float>(kElems);
  AscendC::GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kElems);
  AscendC::DataCopy(a, xGm, kElems);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::Adds(a, a, 1.0f, static_cast<uint64_t>(0), 1, AscendC::UnaryRepeatParams());
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(xGm, a, kElems);
}

namespace normgrad::cann {

const std::vector<RunnerKernel>& RunnerKernels() {
  static const std::vector<RunnerKernel> table = {
      {"add_past_the_tensor",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(add_past_the_tensor, n, p, e);
       }},
      {"adds_with_zero_mask",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(adds_with_zero_mask, n, p, e);
       }},
      {"add_within_the_tensor",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(add_within_the_tensor, n, p, e);
       }},
  };
  return table;
}

}  // namespace normgrad::cann
