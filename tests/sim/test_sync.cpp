// SetFlag/WaitFlag, PipeBarrier and SyncAll: pairing rules, the real multi-core barriers on 48
// cores, and that faults and early returns never hang a launch.
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

TEST(Flags, PairedSetWaitCountsAndLeavesNothing) {
  auto r = Run1([] {
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID7);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID7);
    PipeBarrier<PIPE_V>();
    PipeBarrier<PIPE_ALL>();
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.cores[0].syncs, 6u);
}

TEST(Flags, DoubleSetFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        SetFlag<HardEvent::V_MTE3>(2);
                        SetFlag<HardEvent::V_MTE3>(2);
                      }),
                      "core 0: SetFlag: HardEvent::V_MTE3 id 2 is already set");
}

TEST(Flags, WaitWithoutSetFails) {
  EXPECT_LAUNCH_ERROR(Run1([] { WaitFlag<HardEvent::S_MTE3>(1); }),
                      "core 0: WaitFlag: HardEvent::S_MTE3 id 1 is not set: WaitFlag without a matching SetFlag");
}

TEST(Flags, IdRangeFollowsTheSoc) {
  EXPECT_LAUNCH_ERROR(Run1([] { SetFlag<HardEvent::MTE2_V>(8); }),
                      "SetFlag: event id 8 of HardEvent::MTE2_V is outside [0, 7] on ascend910b");
  EXPECT_LAUNCH_ERROR(RunOn("ascend910", 1, [] { SetFlag<HardEvent::MTE2_V>(4); }),
                      "event id 4 of HardEvent::MTE2_V is outside [0, 3] on ascend910");
  EXPECT_LAUNCH_ERROR(Run1([] { WaitFlag<HardEvent::MTE2_V>(-1); }), "event id -1");
}

TEST(Flags, CubeEventsAreNotVectorEvents) {
  EXPECT_LAUNCH_ERROR(Run1([] { SetFlag<HardEvent::M_V>(0); }),
                      "SetFlag: HardEvent::M_V is not an event between the vector-core pipes");
}

TEST(Flags, LeftSetWarnsAtKernelEnd) {
  auto r = Run1([] { SetFlag<HardEvent::V_S>(3); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "core 0: SetFlag: HardEvent::V_S id 3 is still set at kernel end"));
}

TEST(Barrier, PipeSAndCubePipesAreRejected) {
  EXPECT_LAUNCH_ERROR(Run1([] { PipeBarrier<PIPE_S>(); }), "PipeBarrier: PipeBarrier<PIPE_S> is not allowed");
  EXPECT_LAUNCH_ERROR(Run1([] { PipeBarrier<PIPE_M>(); }), "PipeBarrier: PIPE_M is not a vector-core pipe");
}

// ---- SyncAll

namespace {

// Every core publishes (round + 1) * (idx + 1) in its slot, waits, then sums all slots. Without a
// working barrier some core would read a slot of the previous round.
void ExchangeRounds(int rounds, GmBuf<int32_t>& slots, GmBuf<int32_t>& sums, const std::function<void()>& barrier) {
  int idx = static_cast<int>(GetBlockIdx());
  int n = static_cast<int>(GetBlockNum());
  for (int round = 0; round < rounds; ++round) {
    slots[static_cast<size_t>(round * n + idx)] = (round + 1) * (idx + 1);
    barrier();
    int32_t sum = 0;
    for (int c = 0; c < n; ++c) sum += slots[static_cast<size_t>(round * n + c)];
    sums[static_cast<size_t>(round * n + idx)] = sum;
  }
}

void ExpectSums(int rounds, int n, GmBuf<int32_t>& sums) {
  for (int round = 0; round < rounds; ++round) {
    for (int c = 0; c < n; ++c) EXPECT_EQ(sums[static_cast<size_t>(round * n + c)], (round + 1) * n * (n + 1) / 2);
  }
}

}  // namespace

TEST(SyncAll, HardBarrierOn48Cores) {
  const int n = 48, rounds = 3;
  GmBuf<int32_t> slots(n * rounds), sums(n * rounds);
  auto r = RunOn("ascend910b", n, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    ExchangeRounds(rounds, slots, sums, [] { SyncAll(); });
  });
  EXPECT_LAUNCH_OK(r);
  ExpectSums(rounds, n, sums);
  for (const auto& c : r.cores) EXPECT_EQ(c.syncAll, 3u);
}

TEST(SyncAll, SoftBarrierOn48Cores) {
  const int n = 48, rounds = 3;
  GmBuf<int32_t> slots(n * rounds), sums(n * rounds), ws(n * 8, 0);
  auto r = RunOn("ascend910b", n, [&] {
    TPipe pipe;
    TBuf<> ubWs;
    pipe.InitBuffer(ubWs, n * 32);
    LocalTensor<int32_t> ub = ubWs.Get<int32_t>();
    GlobalTensor<int32_t> gws = ws.Tensor();
    ExchangeRounds(rounds, slots, sums, [&] { SyncAll(gws, ub); });
  });
  EXPECT_LAUNCH_OK(r);
  ExpectSums(rounds, n, sums);
  for (int c = 0; c < n; ++c) EXPECT_EQ(ws[static_cast<size_t>(c * 8)], rounds);  // each slot counted its uses
}

TEST(SyncAll, SoftBarrierWorksOnAtlasTraining) {
  const int n = 32;
  GmBuf<int32_t> slots(n), sums(n), ws(n * 8, 0);
  auto r = RunOn("ascend910", n, [&] {
    TPipe pipe;
    TBuf<> ubWs;
    pipe.InitBuffer(ubWs, n * 32);
    LocalTensor<int32_t> ub = ubWs.Get<int32_t>();
    GlobalTensor<int32_t> gws = ws.Tensor();
    ExchangeRounds(1, slots, sums, [&] { SyncAll(gws, ub); });
  });
  EXPECT_LAUNCH_OK(r);
  ExpectSums(1, n, sums);
}

TEST(SyncAll, SoftBarrierOverUsedCoresOnly) {
  GmBuf<int32_t> ws(8 * 8, 0), seen(8, -1), flag(1, 0);
  auto r = RunOn("ascend910b", 8, [&] {
    TPipe pipe;
    TBuf<> ubWs;
    pipe.InitBuffer(ubWs, 8 * 32);
    int idx = static_cast<int>(GetBlockIdx());
    if (idx >= 4) return;  // cores 4..7 take no part
    if (idx == 0) flag[0] = 1;
    SyncAll(ws.Tensor(), ubWs.Get<int32_t>(), 4);
    seen[static_cast<size_t>(idx)] = flag[0];
  });
  EXPECT_LAUNCH_OK(r);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(seen[static_cast<size_t>(c)], 1);
}

TEST(SyncAll, HardNeedsMixKernelType) {
  EXPECT_LAUNCH_ERROR(RunOn("ascend910b", 2, [] { SyncAll(); }),
                      "SyncAll: hard SyncAll() needs KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0); this kernel is "
                      "undeclared");
  EXPECT_LAUNCH_ERROR(RunOn("ascend910b", 2,
                            [] {
                              KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
                              SyncAll();
                            }),
                      "this kernel is KERNEL_TYPE_AIV_ONLY");
}

TEST(SyncAll, HardDoesNotExistOnAtlasTrainingOrInference) {
  for (const std::string soc : {"ascend910", "ascend310p"}) {
    EXPECT_LAUNCH_ERROR(RunOn(soc.c_str(), 2,
                              [] {
                                KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
                                SyncAll();
                              }),
                        "SyncAll: hard SyncAll() does not exist on " + soc);
  }
}

TEST(SyncAll, HardWithCubeCoresHangs) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
                        SyncAll<false>();
                      }),
                      "SyncAll<false> also waits for cube cores");
}

TEST(SyncAll, SoftWorkspaceRules) {
  GmBuf<int32_t> dirty(4 * 8, 0), small(4 * 8 - 1, 0);
  dirty[16] = 5;  // core 2's slot
  auto soft = [](GmBuf<int32_t>& ws, uint32_t ubBytes, int32_t used) {
    return RunOn("ascend910b", 4, [&ws, ubBytes, used] {
      TPipe pipe;
      TBuf<> ubWs;
      pipe.InitBuffer(ubWs, ubBytes);
      SyncAll(ws.Tensor(), ubWs.Get<int32_t>(), used);
    });
  };
  EXPECT_LAUNCH_ERROR(soft(dirty, 128, 0),
                      "core 2: SyncAll: gmWorkspace slot of core 2 holds 5 before SyncAll use 1, expected 0");
  EXPECT_LAUNCH_ERROR(soft(small, 128, 0), "SyncAll: gmWorkspace has 124 bytes, needs GetBlockNum() * 32 = 128");
  GmBuf<int32_t> ok(4 * 8, 0);
  EXPECT_LAUNCH_ERROR(soft(ok, 96, 0), "SyncAll: ubWorkspace has 96 bytes, needs GetBlockNum() * 32 = 128");
  GmBuf<int32_t> ok2(4 * 8, 0);
  EXPECT_LAUNCH_ERROR(soft(ok2, 128, 5), "SyncAll: usedCores 5 is outside [0, GetBlockNum() = 4]");
}

TEST(SyncAll, FaultWhileOthersWaitDoesNotHang) {
  GmBuf<float> g(8);
  auto r = RunOn("ascend910b", 48, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    if (GetBlockIdx() == 17) {
      GlobalTensor<float> t = g.Tensor();
      t.GetValue(100);  // outside the allocation
    }
    SyncAll();
    SyncAll();
  });
  EXPECT_LAUNCH_ERROR(r, "core 17: GlobalTensor::GetValue: global-memory read of 4 bytes");
}

TEST(SyncAll, CoreReturningEarlyIsReported) {
  auto r = RunOn("ascend910b", 8, [] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    SyncAll();
    if (GetBlockIdx() == 5) return;
    SyncAll();
  });
  EXPECT_LAUNCH_ERROR(r, "core 5: SyncAll: core 5 finished without reaching SyncAll #2");
}

TEST(SyncAll, HardAndSoftMixedUpIsReported) {
  GmBuf<int32_t> ws(2 * 8, 0);
  auto r = RunOn("ascend910b", 2, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    TPipe pipe;
    TBuf<> ubWs;
    pipe.InitBuffer(ubWs, 64);
    if (GetBlockIdx() == 0) {
      SyncAll();
    } else {
      SyncAll(ws.Tensor(), ubWs.Get<int32_t>());
    }
  });
  EXPECT_LAUNCH_ERROR(r, "SyncAll: reached ");
  EXPECT_NE(r.error.find("while core"), std::string::npos) << r.error;
}
