// sim::Launch: core identity and isolation, blockDim limits, fault capture, merged warnings,
// exact counters on kernels whose traffic is known by hand, and the run log.
#include "runtime_test_util.h"

#include <stdexcept>

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

TEST(Launch, EveryCoreSeesItsOwnIndex) {
  GmBuf<int32_t> ids(48 * 2, -1);
  auto r = RunOn("ascend910b", 48, [&] {
    GlobalTensor<int32_t> t = ids.Tensor();
    t.SetValue(GetBlockIdx() * 2, static_cast<int32_t>(GetBlockIdx()));
    t.SetValue(GetBlockIdx() * 2 + 1, static_cast<int32_t>(GetBlockNum()));
  });
  EXPECT_LAUNCH_OK(r);
  ASSERT_EQ(r.cores.size(), 48u);
  for (int i = 0; i < 48; ++i) {
    EXPECT_EQ(ids[i * 2], i);
    EXPECT_EQ(ids[i * 2 + 1], 48);
    EXPECT_EQ(r.cores[i].scalarGm, 2u);
  }
  EXPECT_EQ(r.blockDim, 48);
  EXPECT_STREQ(r.soc->name, "ascend910b");
}

TEST(Launch, CoresHaveSeparateUbs) {
  // Every core writes its index into the same UB address, then reads it back after all wrote.
  GmBuf<int32_t> seen(8, -1);
  auto r = RunOn("ascend910b", 8, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<int32_t> t = buf.Get<int32_t>();
    t.SetValue(0, static_cast<int32_t>(GetBlockIdx()));
    SyncAll();
    seen[GetBlockIdx()] = t.GetValue(0);
  });
  EXPECT_LAUNCH_OK(r);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(seen[i], i);
}

TEST(Launch, BlockDimOutsideTheCores) {
  auto r = RunOn("ascend910b", 49, [] {});
  EXPECT_LAUNCH_ERROR(r, "Launch: test_kernel: blockDim 49 is outside [1, 48] vector cores on ascend910b");
  EXPECT_LAUNCH_ERROR(RunOn("ascend910", 33, [] {}), "blockDim 33 is outside [1, 32] vector cores on ascend910");
  EXPECT_LAUNCH_ERROR(RunOn("ascend910b", 0, [] {}), "blockDim 0 is outside");
}

TEST(Launch, FaultNamesTheCoreAndOtherCoresFinish) {
  GmBuf<int32_t> done(4, 0);
  auto r = RunOn("ascend910b", 4, [&] {
    if (GetBlockIdx() == 2) sim::Fail("DataCopy", "synthetic fault %d", 7);
    done[GetBlockIdx()] = 1;
  });
  EXPECT_LAUNCH_ERROR(r, "core 2: DataCopy: synthetic fault 7");
  EXPECT_EQ(done[0] + done[1] + done[3], 3);
  EXPECT_EQ(r.cores.size(), 4u);
}

TEST(Launch, LowestFaultingCoreIsReported) {
  auto r = RunOn("ascend910b", 16, [] { sim::Fail("TQue::DeQue", "same bug everywhere"); });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "core 0: TQue::DeQue: same bug everywhere");
}

TEST(Launch, LowestFaultingCoreWinsEvenWhenLaterCoresAreStopped) {
  // Higher cores are stopped at their next DMA once a lower core faulted; lower cores run on.
  GmBuf<float> g(8 * 48), small(8);
  for (int rep = 0; rep < 5; ++rep) {
    auto r = RunOn("ascend910b", 48, [&] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 32);
      for (int i = 0; i < 20; ++i) {
        DataCopy(buf.Get<float>(), g.Tensor()[GetBlockIdx() * 8], 8);
        PipeBarrier<PIPE_MTE2>();  // same destination each time (the hazard tracker checks it)
      }
      if (GetBlockIdx() >= 3) DataCopy(buf.Get<float>(), small.Tensor()[8], 8);
    });
    EXPECT_LAUNCH_ERROR(r, "core 3: DataCopy: global-memory read of 32 bytes");
  }
}

TEST(Launch, CppExceptionsAreCaught) {
  EXPECT_LAUNCH_ERROR(Run1([] { throw std::out_of_range("vector::at"); }),
                      "core 0: kernel threw a C++ exception: vector::at");
  EXPECT_LAUNCH_ERROR(Run1([] { throw 42; }), "core 0: kernel threw a non-standard C++ exception");
}

TEST(Launch, WarningsAreMergedAcrossCores) {
  auto r = RunOn("ascend910b", 6, [] {
    sim::Warn("DataCopy", "26 bytes is not a multiple of 32; use DataCopyPad");
    if (GetBlockIdx() == 3) sim::Warn("TQue", "only on three");
  });
  EXPECT_LAUNCH_OK(r);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0], "core 0: DataCopy: 26 bytes is not a multiple of 32; use DataCopyPad (also on 5 other cores)");
  EXPECT_EQ(r.warnings[1], "core 3: TQue: only on three");
}

TEST(Launch, NestedLaunchIsAnError) {
  sim::LaunchReport inner;
  auto r = Run1([&] { inner = Run1([] {}); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_LAUNCH_ERROR(inner, "launched from inside a kernel");
}

TEST(Launch, ApiOutsideAKernelThrows) {
  EXPECT_THROW(GetBlockIdx(), sim::SimError);
  EXPECT_THROW(TPipe(), sim::SimError);
}

TEST(Launch, RunLogKeepsReportsInOrder) {
  sim::ClearRunLog();
  sim::Launch("first", 1, [] {});
  sim::Launch("second", 2, [] {});
  ASSERT_EQ(sim::RunLog().size(), 2u);
  EXPECT_EQ(sim::RunLog()[0].kernel, "first");
  EXPECT_EQ(sim::RunLog()[1].kernel, "second");
  EXPECT_EQ(sim::RunLog()[1].cores.size(), 2u);
  sim::ClearRunLog();
  EXPECT_TRUE(sim::RunLog().empty());
}

TEST(Launch, CountersOfACopyKernelAreExact) {
  // Each of 4 cores moves its 1000-float slice through a depth-1 queue pair in tiles of 256
  // floats (1024 bytes): 4 tiles, the last of 232 floats (928 bytes = 29 blocks, aligned).
  const uint32_t perCore = 1000, tile = 256;
  GmBuf<float> x(4 * perCore), y(4 * perCore, 0.0f);
  for (uint32_t i = 0; i < 4 * perCore; ++i) x[i] = static_cast<float>(i);
  auto r = RunOn("ascend910b", 4, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> out;
    pipe.InitBuffer(in, 2, tile * sizeof(float));
    pipe.InitBuffer(out, 2, tile * sizeof(float));
    GlobalTensor<float> xg = x.Tensor()[GetBlockIdx() * perCore], yg = y.Tensor()[GetBlockIdx() * perCore];
    for (uint32_t done = 0; done < perCore; done += tile) {
      uint32_t n = perCore - done < tile ? perCore - done : tile;
      LocalTensor<float> a = in.AllocTensor<float>();
      DataCopy(a, xg[done], n);
      in.EnQue(a);
      a = in.DeQue<float>();
      LocalTensor<float> b = out.AllocTensor<float>();
      DataCopy(b, a, n);  // UB -> UB
      in.FreeTensor(a);
      out.EnQue(b);
      b = out.DeQue<float>();
      DataCopy(yg[done], b, n);
      out.FreeTensor(b);
    }
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  for (uint32_t i = 0; i < 4 * perCore; ++i) ASSERT_EQ(y[i], x[i]) << i;
  for (const sim::CoreCounters& c : r.cores) {
    EXPECT_EQ(c.gmToUbBytes, 4000u);
    EXPECT_EQ(c.ubToGmBytes, 4000u);
    EXPECT_EQ(c.ubToUbBytes, 4000u);
    EXPECT_EQ(c.dmaIn, 4u);
    EXPECT_EQ(c.dmaOut, 4u);
    EXPECT_EQ(c.vecInstr, 4u);
    // Per tile: EnQue set + DeQue wait on each queue, FreeTensor set on each queue = 6; the
    // AllocTensor of a buffer freed before waits: tiles 3 and 4 reuse buffers 0 and 1 of both
    // queues = 4 waits. 4 * 6 + 4 = 28, and the TPipe's closing PipeBarrier<PIPE_ALL> (CANN's
    // TPipe::Destroy issues one).
    EXPECT_EQ(c.syncs, 29u);
    EXPECT_EQ(c.syncAll, 0u);
    EXPECT_EQ(c.scalarGm, 0u);
    EXPECT_EQ(c.scalarUb, 0u);
  }
}

TEST(Launch, TilingKeyReachesEveryCore) {
  GmBuf<uint64_t> keys(3, 0);
  g_tilingKey = 77;
  auto r = RunOn("ascend910b", 3, [&] { keys[GetBlockIdx()] = g_tilingKey; });
  g_tilingKey = 0;
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.tilingKey, 77u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(keys[i], 77u);
}
