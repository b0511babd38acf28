// Through ICPU_RUN_KF a hardware-rule violation ends the process: each rule's violation, run in a
// child process (a GoogleTest death test), exits non-zero with an `error` line naming the core,
// the API and the rule; the same kernel without the violation exits 0.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "tikicpulib.h"

namespace {

// Which rule the kernel breaks (0: none). Read from the tiling, as a real kernel reads its tiling.
enum Rule : uint32_t { kNone = 0, kUbOverflow, kUnalignedUb, kRepeatOver255, kGmOutside, kDeQueEmpty, kAllocTooMany };

struct ViolationTiling {
  uint32_t rule;
  uint32_t breakIt;  // 1: break the rule, 0: the legal variant of the same code path
};

}  // namespace

// 1 KiB of float in and out; every variant does legal work plus, when asked, one violation.
extern "C" __global__ __aicore__ void violation_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ViolationTiling, t, tiling);
  const bool bad = t.breakIt != 0;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 256);
  yGm.SetGlobalBuffer((__gm__ float*)y, 256);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inQ;
  AscendC::TBuf<AscendC::TPosition::VECCALC> work;
  // 192 KiB of UB on ascend910b: 64 KiB + 64 KiB fits, 64 KiB + 160 KiB does not.
  pipe.InitBuffer(inQ, 1, 64 * 1024);
  pipe.InitBuffer(work, t.rule == kUbOverflow && bad ? 160 * 1024 : 64 * 1024);
  AscendC::LocalTensor<float> in = inQ.AllocTensor<float>();
  if (t.rule == kAllocTooMany && bad) (void)inQ.AllocTensor<float>();  // the queue's one buffer is taken
  // 8 floats = 32 bytes: offset 8 is aligned, offset 1 is 4 bytes past a 32-byte boundary.
  AscendC::DataCopy(t.rule == kUnalignedUb && bad ? in[1] : in[8], xGm, 64);
  inQ.EnQue(in);
  if (t.rule == kDeQueEmpty && bad) (void)inQ.DeQue<float>();  // dequeues the one tensor ...
  AscendC::LocalTensor<float> v = inQ.DeQue<float>();             // ... so this one finds the queue empty
  AscendC::LocalTensor<float> w = work.Get<float>();
  // 64 float lanes per repeat, one sum per repeat; 255 repeats is the documented maximum.
  AscendC::WholeReduceSum(w, v, 64, t.rule == kRepeatOver255 && bad ? 256 : 2, 1, 1, 8);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::DataCopy(yGm, w, 64);
  if (t.rule == kGmOutside) yGm.SetValue(bad ? 256 + 1024 : 255, 1.0f);  // 1 KiB allocation: index 255 is the last
  inQ.FreeTensor(v);
}

namespace {

// Runs violation_kernel on one core as a CPU-mode unit test would; returns only if it passed.
void RunViolation(Rule rule, bool breakIt) {
  unsetenv("NORMGRAD_SIM_CONTINUE_ON_ERROR");  // the default: a violation ends the process
  uint8_t* x = (uint8_t*)AscendC::GmAlloc(256 * sizeof(float));
  uint8_t* y = (uint8_t*)AscendC::GmAlloc(256 * sizeof(float));
  auto* tiling = (ViolationTiling*)AscendC::GmAlloc(sizeof(ViolationTiling));
  tiling->rule = rule;
  tiling->breakIt = breakIt ? 1 : 0;
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(violation_kernel, 1, x, y, (uint8_t*)tiling);
  for (uint8_t* p : {x, y, (uint8_t*)tiling}) AscendC::GmFree(p);
}

struct Case {
  Rule rule;
  const char* message;  // regex the child's stderr must match
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  static const char* const kNames[] = {"None", "UbOverflow", "UnalignedUb", "RepeatOver255", "GmOutside",
                                       "DeQueEmpty", "AllocTooMany"};
  return kNames[info.param.rule];
}

class ViolationExit : public ::testing::TestWithParam<Case> {};

TEST_P(ViolationExit, ViolationEndsTheProcessWithAnErrorLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // launches run cores on threads
  EXPECT_EXIT(RunViolation(GetParam().rule, true), ::testing::ExitedWithCode(EXIT_FAILURE),
              std::string("error: ICPU_RUN_KF\\(violation_kernel\\) failed: core 0: ") + GetParam().message);
}

TEST_P(ViolationExit, SameKernelWithoutTheViolationExitsZero) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RunViolation(GetParam().rule, false);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

INSTANTIATE_TEST_SUITE_P(
    EveryRule, ViolationExit,
    ::testing::Values(Case{kUbOverflow, "TPipe::InitBuffer: .*exceed the UB of 196608 bytes"},
                      Case{kUnalignedUb, "DataCopy: dst UB address [0-9]+ is not 32-byte aligned"},
                      Case{kRepeatOver255, "WholeReduceSum: repeatTime 256 is outside \\[0, 255\\]"},
                      Case{kGmOutside, "GlobalTensor::SetValue: global-memory write of 4 bytes .* outside every device allocation"},
                      Case{kDeQueEmpty, "TQue::DeQue: the VECIN queue is empty"},
                      Case{kAllocTooMany, "TQue::AllocTensor: exceeds buffer number"}),
    CaseName);

TEST(ViolationExit, OptOutReturnsToTheCaller) {
  setenv("NORMGRAD_SIM_CONTINUE_ON_ERROR", "1", 1);
  uint8_t* x = (uint8_t*)AscendC::GmAlloc(256 * sizeof(float));
  uint8_t* y = (uint8_t*)AscendC::GmAlloc(256 * sizeof(float));
  auto* tiling = (ViolationTiling*)AscendC::GmAlloc(sizeof(ViolationTiling));
  tiling->rule = kRepeatOver255;
  tiling->breakIt = 1;
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  // In a GoogleTest file ICPU_RUN_KF reports the fault as a test failure.
  EXPECT_NONFATAL_FAILURE(ICPU_RUN_KF(violation_kernel, 1, x, y, (uint8_t*)tiling), "repeatTime 256");
  EXPECT_FALSE(sim::cpu::LastReport().ok);
  EXPECT_NE(sim::cpu::LastReport().error.find("repeatTime 256"), std::string::npos) << sim::cpu::LastReport().error;
  for (uint8_t* p : {x, y, (uint8_t*)tiling}) AscendC::GmFree(p);
  unsetenv("NORMGRAD_SIM_CONTINUE_ON_ERROR");
}

}  // namespace
