// The host side of scale_add.cpp in CANN's CPU-debug style: GM buffers from AscendC::GmAlloc, the kernel
// launched with ICPU_RUN_KF on 8 cores, the result checked against the same sum on the host, GmFree.
// Exit status 0 when every element matches (and front end B found no rule broken), else non-zero.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tikicpulib.h"

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR params);

int32_t main(int32_t argc, char* argv[]) {
  (void)argc;
  (void)argv;
  constexpr uint32_t kBlocks = 8;
  constexpr uint32_t kTotal = kBlocks * 4 * 256;  // four tiles a core
  constexpr float kAlpha = 0.5f;
  const size_t bytes = kTotal * sizeof(float);

  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* params = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(uint32_t) + sizeof(float)));
  float* xs = reinterpret_cast<float*>(x);
  float* ys = reinterpret_cast<float*>(y);
  for (uint32_t i = 0; i < kTotal; ++i) {
    xs[i] = static_cast<float>(i % 97) * 0.25f;
    ys[i] = static_cast<float>(i % 13) - 6.0f;
  }
  std::memcpy(params, &kTotal, sizeof(uint32_t));
  std::memcpy(params + sizeof(uint32_t), &kAlpha, sizeof(float));

  // A vector kernel: the cores are vector cores (CANN's CPU-debug guide sets this for vector operators).
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(scale_add, kBlocks, x, y, z, params);

  const float* zs = reinterpret_cast<const float*>(z);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < kTotal; ++i) {
    const float want = xs[i] + kAlpha * ys[i];  // both exact in float: no rounding to allow for
    if (zs[i] != want && wrong++ < 5) std::printf("z[%u] = %g, want %g\n", i, zs[i], want);
  }
  std::printf("scale_add: %u of %u elements match\n", kTotal - wrong, kTotal);

  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  AscendC::GmFree(params);
  return wrong == 0 ? 0 : 1;
}
