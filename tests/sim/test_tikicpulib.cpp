// The CANN CPU-debug harness: a kernel and its unit test written as for CANN's CPU mode run
// unchanged, and a faulting kernel fails the gtest.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "tikicpulib.h"

#include <cstdlib>
#include <memory>

namespace {

// ICPU_RUN_KF ends the process on a fault unless NORMGRAD_SIM_CONTINUE_ON_ERROR=1; the tests that
// check how a fault is reported to the caller set it for their scope.
class ContinueOnError {
 public:
  ContinueOnError() { setenv("NORMGRAD_SIM_CONTINUE_ON_ERROR", "1", 1); }
  ~ContinueOnError() { unsetenv("NORMGRAD_SIM_CONTINUE_ON_ERROR"); }
};

// ---- a CANN-style kernel: z = x + y (scalar add until the vector ops exist), double-buffered

struct AddTiling {
  uint32_t totalLength;
  uint32_t tileLength;
};

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddTiling& tiling, AscendC::TPipe* pipe) {
    blockLength_ = tiling.totalLength / AscendC::GetBlockNum();
    tileLength_ = tiling.tileLength;
    uint64_t offset = blockLength_ * AscendC::GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ float*)x + offset, blockLength_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockLength_);
    zGm_.SetGlobalBuffer((__gm__ float*)z + offset, blockLength_);
    pipe->InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(float));
    pipe->InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(float));
    pipe->InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < blockLength_ / tileLength_; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    AscendC::LocalTensor<float> x = inQueueX_.AllocTensor<float>();
    AscendC::LocalTensor<float> y = inQueueY_.AllocTensor<float>();
    AscendC::DataCopy(x, xGm_[i * tileLength_], tileLength_);
    AscendC::DataCopy(y, yGm_[i * tileLength_], tileLength_);
    inQueueX_.EnQue(x);
    inQueueY_.EnQue(y);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> x = inQueueX_.DeQue<float>();
    AscendC::LocalTensor<float> y = inQueueY_.DeQue<float>();
    AscendC::LocalTensor<float> z = outQueueZ_.AllocTensor<float>();
    for (uint32_t k = 0; k < tileLength_; ++k) z.SetValue(k, x.GetValue(k) + y.GetValue(k));
    outQueueZ_.EnQue(z);
    inQueueX_.FreeTensor(x);
    inQueueY_.FreeTensor(y);
  }
  __aicore__ inline void CopyOut(uint32_t i) {
    AscendC::LocalTensor<float> z = outQueueZ_.DeQue<float>();
    AscendC::DataCopy(zGm_[i * tileLength_], z, tileLength_);
    outQueueZ_.FreeTensor(z);
  }

  AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ_;
  AscendC::GlobalTensor<float> xGm_, yGm_, zGm_;
  uint32_t blockLength_ = 0, tileLength_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  GET_TILING_DATA_WITH_STRUCT(AddTiling, tilingData, tiling);
  AscendC::TPipe pipe;
  if (TILING_KEY_IS(1)) {
    KernelAdd op;
    op.Init(x, y, z, tilingData, &pipe);
    op.Process();
  }
}

// Writes one element past z on the last core: a GM range fault.
extern "C" __global__ __aicore__ void overrun_custom(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
  AscendC::GlobalTensor<float> zGm;
  zGm.SetGlobalBuffer((__gm__ float*)z);
  if (AscendC::GetBlockIdx() == AscendC::GetBlockNum() - 1) zGm.SetValue(1024, 1.0f);
}

TEST(Tikicpulib, CannStyleKernelTestRunsUnchanged) {
  const uint32_t blockDim = 8, total = 8 * 2048;
  size_t bytes = total * sizeof(float);
  uint8_t* x = (uint8_t*)AscendC::GmAlloc(bytes);
  uint8_t* y = (uint8_t*)AscendC::GmAlloc(bytes);
  uint8_t* z = (uint8_t*)AscendC::GmAlloc(bytes);
  uint8_t* workspace = (uint8_t*)AscendC::GmAlloc(16 * 1024 * 1024);
  uint8_t* tiling = (uint8_t*)AscendC::GmAlloc(sizeof(AddTiling));
  for (uint32_t i = 0; i < total; ++i) {
    reinterpret_cast<float*>(x)[i] = static_cast<float>(i);
    reinterpret_cast<float*>(y)[i] = 0.5f;
  }
  AddTiling t{total, 256};
  std::memcpy(tiling, &t, sizeof(t));

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(1);
  ICPU_RUN_KF(add_custom, blockDim, x, y, z, workspace, tiling);

  EXPECT_TRUE(sim::cpu::LastReport().ok);
  EXPECT_TRUE(sim::cpu::LastReport().warnings.empty());
  EXPECT_EQ(sim::cpu::LastReport().kernelType, KERNEL_TYPE_AIV_ONLY);
  for (uint32_t i = 0; i < total; ++i) ASSERT_EQ(reinterpret_cast<float*>(z)[i], static_cast<float>(i) + 0.5f) << i;
  // 2048 floats per core in, twice, and out once.
  EXPECT_EQ(sim::cpu::LastReport().cores[0].gmToUbBytes, 2u * 2048 * 4);
  EXPECT_EQ(sim::cpu::LastReport().cores[0].ubToGmBytes, 2048u * 4);
  for (uint8_t* p : {x, y, z, workspace, tiling}) AscendC::GmFree(p);
  g_tilingKey = 0;
}

TEST(Tikicpulib, FaultFailsTheTest) {
  ContinueOnError continueOnError;
  uint8_t* z = (uint8_t*)AscendC::GmAlloc(1024 * sizeof(float));
  uint8_t* ws = (uint8_t*)AscendC::GmAlloc(32);
  uint8_t* tiling = (uint8_t*)AscendC::GmAlloc(32);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  int before = sim::cpu::FailureCount();
  EXPECT_NONFATAL_FAILURE(ICPU_RUN_KF(overrun_custom, 4, z, ws, tiling),
                          "ICPU_RUN_KF(overrun_custom): core 3: GlobalTensor::SetValue: global-memory write of 4 bytes");
  EXPECT_EQ(sim::cpu::FailureCount(), before + 1);
  EXPECT_FALSE(sim::cpu::LastReport().ok);
  for (uint8_t* p : {z, ws, tiling}) AscendC::GmFree(p);
}

TEST(Tikicpulib, ArgumentsMustComeFromGmAlloc) {
  ContinueOnError continueOnError;
  float host[8] = {};
  uint8_t* ws = (uint8_t*)AscendC::GmAlloc(32);
  uint8_t* tiling = (uint8_t*)AscendC::GmAlloc(32);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  EXPECT_NONFATAL_FAILURE(ICPU_RUN_KF(overrun_custom, 1, (uint8_t*)host, ws, tiling),
                          "argument 0 (");
  EXPECT_NE(sim::cpu::LastReport().error.find("is not a GmAlloc pointer"), std::string::npos);
  for (uint8_t* p : {ws, tiling}) AscendC::GmFree(p);
}

TEST(Tikicpulib, GmAllocIsZeroedAndRegistered) {
  uint8_t* p = (uint8_t*)AscendC::GmAlloc(100);
  EXPECT_TRUE(sim::gm::IsRegistered(p));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(p[i], 0);
  AscendC::GmFree(p);
  EXPECT_FALSE(sim::gm::IsRegistered(p));
  int before = sim::cpu::FailureCount();
  int local = 0;
  AscendC::GmFree(&local);  // not from GmAlloc: reported, ignored
  EXPECT_EQ(sim::cpu::FailureCount(), before + 1);
}

TEST(Tikicpulib, MixModeRunsAsVectorWithAWarning) {
  ContinueOnError continueOnError;
  uint8_t* z = (uint8_t*)AscendC::GmAlloc(4096);
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  EXPECT_NONFATAL_FAILURE(ICPU_RUN_KF(overrun_custom, 1, z, z, z), "global-memory write");
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  EXPECT_NONFATAL_FAILURE(ICPU_RUN_KF(overrun_custom, 1, z, z, z), "KernelMode::AIC_MODE runs cube cores");
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  AscendC::GmFree(z);
}
