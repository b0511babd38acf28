// CrossCoreSetFlag/CrossCoreWaitFlag, IBSet/IBWait, NotifyNextBlock/WaitPreBlock and soft
// SyncAll<false>: their ordering on real multi-core launches, their documented limits, deadlock
// errors, the cost model's charge, and the cross-core GM race detector they feed.
#include "ascendc/cost.h"
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::RunOn;

namespace {

int Idx() { return static_cast<int>(GetBlockIdx()); }
int Num() { return static_cast<int>(GetBlockNum()); }

// Every core publishes idx + 1 through GM, passes `barrier`, then sums every core's value.
void PublishAndSum(GlobalTensor<int32_t> slots, GlobalTensor<int32_t> sums, const std::function<void()>& barrier) {
  slots.SetValue(static_cast<uint64_t>(Idx()) * 8, Idx() + 1);  // one 32-byte block per core
  barrier();
  int32_t sum = 0;
  for (int c = 0; c < Num(); ++c) sum += slots.GetValue(static_cast<uint64_t>(c) * 8);
  sums.SetValue(static_cast<uint64_t>(Idx()) * 8, sum);
}

void ExpectSums(GmBuf<int32_t>& sums, int n) {
  for (int c = 0; c < n; ++c) EXPECT_EQ(sums[static_cast<size_t>(c) * 8], n * (n + 1) / 2) << "core " << c;
}

}  // namespace

// ---- CrossCoreSetFlag / CrossCoreWaitFlag

TEST(CrossCoreFlag, SetThenWaitIsABarrierOn48Cores) {
  const int n = 48;
  GmBuf<int32_t> slots(n * 8), sums(n * 8);
  auto r = RunOn("ascend910b", n, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    PublishAndSum(slots.Tensor(), sums.Tensor(), [] {
      CrossCoreSetFlag<0x0, PIPE_MTE3>(3);
      CrossCoreWaitFlag(3);
    });
  });
  EXPECT_LAUNCH_OK(r);
  ExpectSums(sums, n);
  for (const auto& c : r.cores) EXPECT_EQ(c.crossCoreWaits, 1u);
}

TEST(CrossCoreFlag, WorkBetweenSetAndWaitOverlapsTheBarrier) {
  // Split phase: each core sets, does private work, then waits; two flags in flight at once.
  const int n = 8;
  GmBuf<int32_t> slots(n * 8), sums(n * 8), priv(n * 8);
  auto r = RunOn("ascend910b", n, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    GlobalTensor<int32_t> s = slots.Tensor(), p = priv.Tensor();
    s.SetValue(static_cast<uint64_t>(Idx()) * 8, Idx() + 1);
    CrossCoreSetFlag<0x0, PIPE_MTE3>(0);
    CrossCoreSetFlag<0x0, PIPE_MTE3>(1);
    p.SetValue(static_cast<uint64_t>(Idx()) * 8, 7);  // overlaps the barrier: this core's own block
    CrossCoreWaitFlag(1);
    CrossCoreWaitFlag(0);
    int32_t sum = 0;
    for (int c = 0; c < n; ++c) sum += s.GetValue(static_cast<uint64_t>(c) * 8);
    sums.Tensor().SetValue(static_cast<uint64_t>(Idx()) * 8, sum);
  });
  EXPECT_LAUNCH_OK(r);
  ExpectSums(sums, n);
}

TEST(CrossCoreFlag, DocumentedLimits) {
  auto run = [](const char* soc, int type, const std::function<void()>& body) {
    return RunOn(soc, 2, [&] {
      KERNEL_TASK_TYPE_DEFAULT(type);
      body();
    });
  };
  const int mix = KERNEL_TYPE_MIX_AIV_1_0;
  EXPECT_LAUNCH_ERROR(run("ascend910b", mix, [] { CrossCoreSetFlag<0x0, PIPE_MTE3>(11); }),
                      "CrossCoreSetFlag: flag id 11 is used by SyncAll (ids 11-14); kernels use 0-10");
  EXPECT_LAUNCH_ERROR(run("ascend910b", mix, [] { CrossCoreWaitFlag(15); }),
                      "CrossCoreWaitFlag: flag id 15 is outside [0, 10] on ascend910b");
  EXPECT_LAUNCH_ERROR(run("ascend910b", mix, [] { CrossCoreSetFlag<0x1, PIPE_MTE3>(0); }),
                      "CrossCoreSetFlag: mode 1 synchronises the cores inside one AI Core");
  EXPECT_LAUNCH_ERROR(run("ascend910b", mix, [] { CrossCoreSetFlag<0x0, PIPE_S>(0); }),
                      "CrossCoreSetFlag: PIPE_S: the set is issued on PIPE_V, PIPE_MTE2 or PIPE_MTE3");
  EXPECT_LAUNCH_ERROR(run("ascend910b", KERNEL_TYPE_AIV_ONLY, [] { CrossCoreSetFlag<0x0, PIPE_MTE3>(0); }),
                      "needs KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0); this kernel is KERNEL_TYPE_AIV_ONLY");
  EXPECT_LAUNCH_ERROR(run("ascend910", KERNEL_TYPE_AIV_ONLY, [] { CrossCoreWaitFlag(0); }),
                      "CrossCoreWaitFlag: inter-core hardware flags do not exist on ascend910");
  // A counter holds 15 sets: the 16th set before any wait fails.
  EXPECT_LAUNCH_ERROR(run("ascend910b", mix, [] {
                        for (int i = 0; i < 16; ++i) CrossCoreSetFlag<0x0, PIPE_MTE3>(2);
                      }),
                      "CrossCoreSetFlag: flag id 2 already holds 15 sets this core has not waited for");
  EXPECT_LAUNCH_OK(run("ascend910b", mix, [] {
    for (int i = 0; i < 15; ++i) CrossCoreSetFlag<0x0, PIPE_MTE3>(2);
    for (int i = 0; i < 15; ++i) CrossCoreWaitFlag(2);
  }));
}

TEST(CrossCoreFlag, ACoreThatNeverSetsIsADeadlock) {
  auto r = RunOn("ascend910b", 4, [] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    if (Idx() != 2) CrossCoreSetFlag<0x0, PIPE_MTE3>(5);
    if (Idx() != 3) CrossCoreWaitFlag(5);
  });
  EXPECT_LAUNCH_ERROR(r, "core 0: CrossCoreWaitFlag(5) #1: deadlock: no core can end the wait of core 0 "
                         "(CrossCoreWaitFlag(5) #1), core 1 (CrossCoreWaitFlag(5) #1), core 2 (CrossCoreWaitFlag(5) "
                         "#1); finished: core 3 (hangs on hardware)");
}

TEST(CrossCoreFlag, DeadlockAcrossKindsOfWaitIsReported) {
  // Core 0 waits at a hard SyncAll while core 1 waits for a flag core 0 never sets.
  auto r = RunOn("ascend910b", 2, [] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    if (Idx() == 0) {
      SyncAll();
    } else {
      CrossCoreSetFlag<0x0, PIPE_MTE3>(1);
      CrossCoreWaitFlag(1);
    }
  });
  EXPECT_LAUNCH_ERROR(r, "deadlock: no core can end the wait of core 0 (hard SyncAll #1), core 1 (CrossCoreWaitFlag(1) #1)");
}

TEST(CrossCoreFlag, EachWaitCostsOneBarrierInTheModel) {
  auto r = RunOn("ascend910b", 4, [] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    for (int i = 0; i < 3; ++i) {
      CrossCoreSetFlag<0x0, PIPE_MTE3>(0);
      CrossCoreWaitFlag(0);
    }
    SyncAll();
  });
  EXPECT_LAUNCH_OK(r);
  sim::KernelTime k = sim::ModelLaunch(r);
  EXPECT_DOUBLE_EQ(k.syncUs, 4 * r.soc->syncAllUs);
}

// A split-phase barrier: each core sets flag 0, copies `loadBytes` of its own GM block into UB,
// then waits. The copy's modeled time hides that much of the barrier latency.
sim::LaunchReport SplitPhaseWithLoad(GmBuf<float>& src, uint32_t loadBytes) {
  return RunOn("ascend910b", 4, [&src, loadBytes] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, 160 * 1024);
    LocalTensor<float> u = ub.Get<float>();
    CrossCoreSetFlag<0x0, PIPE_MTE3>(0);
    if (loadBytes > 0) {
      DataCopy(u, src.Tensor()[static_cast<uint64_t>(Idx()) * 40960], loadBytes / sizeof(float));
    }
    CrossCoreWaitFlag(0);
  });
}

TEST(CrossCoreFlag, WorkBetweenSetAndWaitHidesThatMuchOfTheLatency) {
  GmBuf<float> src(4 * 40960);
  const sim::LaunchReport idle = SplitPhaseWithLoad(src, 0);
  EXPECT_LAUNCH_OK(idle);
  const double syncUs = idle.soc->syncAllUs;
  EXPECT_DOUBLE_EQ(sim::ModelLaunch(idle).syncUs, syncUs);  // nothing overlaps: a whole barrier

  const sim::LaunchReport some = SplitPhaseWithLoad(src, 16 * 1024);  // 16 KiB: about 0.3 us of MTE2
  EXPECT_LAUNCH_OK(some);
  const double busy = sim::CoreBusyUs(some.cores[0], *some.soc);
  ASSERT_GT(busy, 0.0);
  ASSERT_LT(busy, syncUs);
  EXPECT_NEAR(sim::ModelLaunch(some).syncUs, syncUs - busy, 1e-9);

  const sim::LaunchReport full = SplitPhaseWithLoad(src, 160 * 1024);  // 160 KiB: about 2.8 us, more than the latency
  EXPECT_LAUNCH_OK(full);
  ASSERT_GT(sim::CoreBusyUs(full.cores[0], *full.soc), syncUs);
  EXPECT_DOUBLE_EQ(sim::ModelLaunch(full).syncUs, 0.0);
}

// ---- IBSet / IBWait

namespace {

// Core 0 writes value into data, then IBSet; core 1 IBWaits, then reads it back into out.
sim::LaunchReport ProducerConsumer(GmBuf<int32_t>& data, GmBuf<int32_t>& out, GmBuf<int32_t>& flags, bool sync) {
  return RunOn("ascend910b", 2, [&, sync] {
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, 32);
    LocalTensor<int32_t> u = ub.Get<int32_t>();
    GlobalTensor<int32_t> d = data.Tensor(), f = flags.Tensor();
    if (Idx() == 0) {
      for (int i = 0; i < 16; ++i) d.SetValue(static_cast<uint64_t>(i), 100 + i);
      if (sync) IBSet(f, u, 0, 1);
    } else {
      if (sync) IBWait(f, u, 0, 1);
      for (int i = 0; i < 16; ++i) out.Tensor().SetValue(static_cast<uint64_t>(i), d.GetValue(static_cast<uint64_t>(i)));
    }
  });
}

}  // namespace

TEST(IBSetIBWait, OrdersAProducerBeforeItsConsumer) {
  GmBuf<int32_t> data(16), out(16), flags(2 * 8 * 2, 0);
  auto r = ProducerConsumer(data, out, flags, true);
  EXPECT_LAUNCH_OK(r);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], 100 + i);
  EXPECT_EQ(flags[2 * 8 * 1 + 0], 0);  // IBWait cleared the flag of (blockIdx 0, eventID 1)
  EXPECT_EQ(r.cores[1].crossCoreWaits, 1u);
}

TEST(IBSetIBWait, WithoutThemTheReadIsARace) {
  GmBuf<int32_t> data(16), out(16), flags(2 * 8 * 2, 0);
  auto r = ProducerConsumer(data, out, flags, false);
  EXPECT_LAUNCH_ERROR(r, "core 0: GlobalTensor::SetValue: cross-core GM race: core 0 writes bytes [0, 4) of the "
                         "64-byte GM allocation at ");
  EXPECT_LAUNCH_ERROR(r, "(GlobalTensor::SetValue) and core 1 reads them (GlobalTensor::GetValue) with no "
                         "synchronisation ordering the two");
}

TEST(IBSetIBWait, WorkspaceSizeAndAWaitNobodySatisfies) {
  GmBuf<int32_t> small(8 * 2), flags(8 * 8, 0);
  auto run = [](GmBuf<int32_t>& ws, int event, bool waitOnly) {
    return RunOn("ascend910b", 2, [&ws, event, waitOnly] {
      TPipe pipe;
      TBuf<> ub;
      pipe.InitBuffer(ub, 32);
      if (Idx() == 1) IBWait(ws.Tensor(), ub.Get<int32_t>(), 0, event);
      if (Idx() == 0 && !waitOnly) IBSet(ws.Tensor(), ub.Get<int32_t>(), 0, event);
    });
  };
  // eventID 1 with 2 cores needs 2 * 32 * 1 + 0 * 32 + 32 = 96 bytes.
  EXPECT_LAUNCH_ERROR(run(small, 1, false),
                      "core 0: IBSet: gmWorkspace has 64 bytes, needs cores * 32 * eventID + blockIdx * 32 + 32 = 96");
  EXPECT_LAUNCH_OK(run(small, 0, false));
  EXPECT_LAUNCH_ERROR(run(small, 2, false), "needs cores * 32 * eventID + blockIdx * 32 + 32 = 160");
  EXPECT_LAUNCH_ERROR(run(flags, 0, true), "core 1: IBWait(blockIdx 0, eventID 0): deadlock: no core can end the "
                                           "wait of core 1 (IBWait(blockIdx 0, eventID 0)); finished: core 0");
}

// ---- InitDetermineComputeWorkspace / WaitPreBlock / NotifyNextBlock

namespace {

// Every core adds (idx + 1) * round to one shared accumulator with a plain read-modify-write,
// serialised (or not) by the WaitPreBlock/NotifyNextBlock chain, for `rounds` rounds.
sim::LaunchReport Chain(const char* soc, int n, int rounds, GmBuf<int32_t>& acc, GmBuf<int32_t>& ws, bool sync) {
  return RunOn(soc, n, [&, rounds, sync] {
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, static_cast<uint32_t>(GetBlockNum()) * 32 + 32);
    LocalTensor<int32_t> u = ub.Get<int32_t>();
    GlobalTensor<int32_t> w = ws.Tensor(), a = acc.Tensor();
    if (sync) InitDetermineComputeWorkspace(w, u);
    for (int round = 1; round <= rounds; ++round) {
      if (sync) WaitPreBlock(w, u);
      a.SetValue(0, a.GetValue(0) + (Idx() + 1) * round);
      if (sync) NotifyNextBlock(w, u);
    }
  });
}

}  // namespace

TEST(WaitPreBlock, ChainsTheCoresInOrderRoundAfterRound) {
  const int n = 8, rounds = 3;
  GmBuf<int32_t> acc(8, 0), ws(n * 8, 0);
  auto r = Chain("ascend910b", n, rounds, acc, ws, true);
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(acc[0], n * (n + 1) / 2 * (1 + 2 + 3));
  for (const auto& c : r.cores) EXPECT_EQ(c.crossCoreWaits, static_cast<uint64_t>(rounds));
}

TEST(WaitPreBlock, WithoutTheChainTheSharedSumIsARace) {
  GmBuf<int32_t> acc(8, 0), ws(4 * 8, 0);
  EXPECT_LAUNCH_ERROR(Chain("ascend910b", 4, 1, acc, ws, false), "cross-core GM race: core 0 ");
}

TEST(WaitPreBlock, AtlasA2Only) {
  GmBuf<int32_t> acc(8, 0), ws(4 * 8, 0);
  EXPECT_LAUNCH_ERROR(Chain("ascend910_93", 4, 1, acc, ws, true),
                      "InitDetermineComputeWorkspace: does not exist on ascend910_93 (Atlas A2 only)");
}

// ---- soft SyncAll<false> over the first usedCores cores

TEST(SoftSyncAll, NotAivOnlyOverUsedCores) {
  GmBuf<int32_t> ws(8 * 8, 0), slots(8 * 8), sums(8 * 8);
  auto r = RunOn("ascend910b", 8, [&] {
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, 8 * 32);
    if (Idx() >= 6) return;  // cores 6 and 7 take no part
    GlobalTensor<int32_t> s = slots.Tensor();
    s.SetValue(static_cast<uint64_t>(Idx()) * 8, Idx() + 1);
    SyncAll<false>(ws.Tensor(), ub.Get<int32_t>(), 6);
    int32_t sum = 0;
    for (int c = 0; c < 6; ++c) sum += s.GetValue(static_cast<uint64_t>(c) * 8);
    sums.Tensor().SetValue(static_cast<uint64_t>(Idx()) * 8, sum);
  });
  EXPECT_LAUNCH_OK(r);
  for (int c = 0; c < 6; ++c) EXPECT_EQ(sums[static_cast<size_t>(c) * 8], 21);
}

// ---- the race detector itself

TEST(Races, AtomicAddsDoNotRaceButAPlainReadOfThemDoes) {
  const int n = 4;
  GmBuf<float> acc(8, 0.0f), out(8);
  auto run = [&](bool readBack, bool barrier) {
    return RunOn("ascend910b", n, [&, readBack, barrier] {
      KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
      TPipe pipe;
      TBuf<> ub;
      pipe.InitBuffer(ub, 32);
      LocalTensor<float> u = ub.Get<float>();
      for (int i = 0; i < 8; ++i) u.SetValue(static_cast<uint32_t>(i), 1.0f);
      SetAtomicAdd<float>();
      DataCopy(acc.Tensor(), u, 8);
      SetAtomicNone();
      if (barrier) SyncAll();
      if (readBack && Idx() == 0) {
        PipeBarrier<PIPE_ALL>();
        DataCopy(u, acc.Tensor(), 8);
        PipeBarrier<PIPE_ALL>();
        DataCopy(out.Tensor(), u, 8);
      }
    });
  };
  EXPECT_LAUNCH_OK(run(false, false));
  // Core 1 adds zeros over the block core 0 reads: memory is unchanged whatever the order.
  EXPECT_LAUNCH_OK(RunOn("ascend910b", 2, [&] {
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, 32);
    LocalTensor<float> u = ub.Get<float>();
    for (int i = 0; i < 8; ++i) u.SetValue(static_cast<uint32_t>(i), 0.0f);
    if (Idx() == 1) {
      SetAtomicAdd<float>();
      DataCopy(acc.Tensor(), u, 8);
      SetAtomicNone();
    } else {
      DataCopy(u, acc.Tensor(), 8);
    }
  }));
  EXPECT_LAUNCH_ERROR(run(true, false), "core 0: DataCopy: cross-core GM race: core 0 reads bytes [0, 32) of the "
                                        "32-byte GM allocation at ");
  EXPECT_LAUNCH_ERROR(run(true, false), "and core 1 atomically adds to them (DataCopy)");
  EXPECT_LAUNCH_OK(run(true, true));
}

TEST(Races, TwoCoresWritingTheSameBytes) {
  GmBuf<int32_t> data(64);
  auto run = [&](int overlapElems, bool sameValue = false) {
    return RunOn("ascend910b", 2, [&, overlapElems, sameValue] {
      GlobalTensor<int32_t> d = data.Tensor();
      int first = Idx() * (32 - overlapElems);
      for (int i = 0; i < 32; ++i) d.SetValue(static_cast<uint64_t>(first + i), sameValue ? 5 : Idx());
    });
  };
  EXPECT_LAUNCH_OK(run(0));
  EXPECT_LAUNCH_OK(run(2, true));  // both store the same bytes: either order leaves the same memory
  auto r = run(2);
  EXPECT_LAUNCH_ERROR(r, "core 0: GlobalTensor::SetValue: cross-core GM race: core 0 writes bytes [120, 128) of the "
                         "256-byte GM allocation");
  EXPECT_LAUNCH_ERROR(r, "core 1 writes them (GlobalTensor::SetValue)");
  EXPECT_EQ(run(2).error, r.error);  // the same message on every run
}

TEST(Races, StridedRowsThatInterleaveDoNotRace) {
  // Core c writes rows of 32 bytes at 64-byte pitch starting at c * 32: columns, no shared byte.
  GmBuf<float> data(16 * 16);
  auto r = RunOn("ascend910b", 2, [&] {
    TPipe pipe;
    TBuf<> ub;
    pipe.InitBuffer(ub, 16 * 32);
    LocalTensor<float> u = ub.Get<float>();
    Duplicate(u, 1.0f, 16 * 8);
    PipeBarrier<PIPE_ALL>();
    DataCopyParams p(16, 1, 0, 1);  // 16 rows of one 32-byte block, GM gap one block
    DataCopy(data.Tensor()[static_cast<uint64_t>(Idx()) * 8], u, p);
  });
  EXPECT_LAUNCH_OK(r);
}

TEST(Races, DetectionCanBeSwitchedOff) {
  GmBuf<int32_t> data(8);
  auto body = [&] { data.Tensor().SetValue(0, Idx()); };
  EXPECT_FALSE(RunOn("ascend910b", 2, body).ok);
  sim::SetRaceDetection(sim::RaceMode::kOff);
  EXPECT_LAUNCH_OK(RunOn("ascend910b", 2, body));
  sim::SetRaceDetection(sim::RaceMode::kEnvironment);
}
