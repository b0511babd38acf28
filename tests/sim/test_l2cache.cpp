// The L2 re-read model (ascendc/l2cache.h), the full-barrier and UB-peak counters, and what they
// change in a launch report.
#include "runtime_test_util.h"

#include <functional>
#include <vector>

#include "ascendc/cost.h"
#include "ascendc/l2cache.h"
#include "tikicpulib.h"

using namespace AscendC;
using rt_test::RunOn;

namespace {

// A byte buffer standing in for GM: the model only looks at addresses.
std::vector<uint8_t> g_gm(1 << 20);
const uint8_t* At(size_t offset) { return g_gm.data() + offset; }

TEST(L2Reuse, ARereadWithinTheWindowHitsAndAFirstReadDoesNot) {
  sim::L2Reuse l2;
  l2.Reset(48 * 4096, 48);  // this core's share of the L2: 4096 bytes
  EXPECT_EQ(l2.Read(At(0), 1, 1024, 1024), 0u);
  EXPECT_EQ(l2.Read(At(0), 1, 1024, 1024), 1024u);     // 1024 bytes moved since: inside 4096
  EXPECT_EQ(l2.Read(At(512), 1, 1024, 1024), 512u);    // only the overlap [512, 1024) was there
}

TEST(L2Reuse, BytesMovedBeyondTheCoresShareOfTheL2AreEvicted) {
  sim::L2Reuse l2;
  l2.Reset(4 * 2048, 4);  // share 2048 bytes
  EXPECT_EQ(l2.Read(At(0), 1, 1024, 1024), 0u);
  EXPECT_EQ(l2.Read(At(4096), 1, 1024, 1024), 0u);    // distance to [0, 1024) now 2048: still in
  EXPECT_EQ(l2.Read(At(0), 1, 512, 512), 512u);
  EXPECT_EQ(l2.Read(At(8192), 1, 2048, 2048), 0u);    // 2048 more: [512, 1024) is now 4608 bytes away
  EXPECT_EQ(l2.Read(At(512), 1, 512, 512), 0u);
}

TEST(L2Reuse, WrittenBytesAreInTheL2ForTheNextRead) {
  sim::L2Reuse l2;
  l2.Reset(192ull << 20, 48);
  l2.Write(At(0), 1, 4096, 4096);
  EXPECT_EQ(l2.Read(At(0), 1, 4096, 4096), 4096u);
}

TEST(L2Reuse, StridedRowsCountOnlyTheRowsBytes) {
  sim::L2Reuse l2;
  l2.Reset(192ull << 20, 48);
  EXPECT_EQ(l2.Read(At(0), 4, 100, 1000), 0u);       // rows [0,100), [1000,1100), ...
  EXPECT_EQ(l2.Read(At(0), 1, 4000, 4000), 400u);    // the contiguous read meets only the rows
  EXPECT_EQ(l2.Read(At(0), 1, 4000, 4000), 4000u);
}

// 5000 single-row reads 64 bytes long, 128 bytes apart (5000 spans, past the prune threshold),
// then the same reads again: 320000 bytes per pass.
uint64_t SecondPassHits(uint64_t share) {
  sim::L2Reuse l2;
  l2.Reset(48 * share, 48);
  for (size_t i = 0; i < 5000; ++i) l2.Read(At(i * 128), 1, 64, 64);
  uint64_t hits = 0;
  for (size_t i = 0; i < 5000; ++i) hits += l2.Read(At(i * 128), 1, 64, 64);
  return hits;
}

TEST(L2Reuse, PruningDropsOnlySpansThatCanNoLongerHit) {
  EXPECT_EQ(SecondPassHits(1 << 20), 5000u * 64);  // 320000 bytes fit a 1 MiB share: every byte hits
  EXPECT_EQ(SecondPassHits(64 * 1024), 0u);         // not a 64 KiB one: each re-read is 320000 away
}

// ---- in a launch ----

TEST(L2Reuse, ALaunchThatReadsItsInputTwiceIsChargedAtHbmOnce) {
  float* x = static_cast<float*>(GmAlloc(4096 * sizeof(float)));
  for (int i = 0; i < 4096; ++i) x[i] = 1.0f;
  auto r = RunOn("ascend910b", 1, [&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 16384);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(x, 4096);
    DataCopy(buf.Get<float>(), g, 4096);
    PipeBarrier<PIPE_MTE2>();
    DataCopy(buf.Get<float>(), g, 4096);  // the second pass of a two-pass design
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].gmToUbBytes, 32768u);
  EXPECT_EQ(r.cores[0].l2HitBytes, 16384u);
  sim::KernelTime k = sim::ModelLaunch(r);
  EXPECT_EQ(k.l2HitBytes, 16384u);
  EXPECT_NEAR(k.hbmUs, 16384.0 / (1.5 * 1e6), 1e-12);
  GmFree(x);
}

TEST(L2Reuse, TheWhatIfL2SizeReachesTheNextLaunch) {
  float* x = static_cast<float*>(GmAlloc(4096 * sizeof(float)));
  std::string error;
  ASSERT_TRUE(sim::SetCostOverrides("l2_mb=0", &error)) << error;
  auto r = RunOn("ascend910b", 1, [&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 16384);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(x, 4096);
    DataCopy(buf.Get<float>(), g, 4096);
    PipeBarrier<PIPE_MTE2>();
    DataCopy(buf.Get<float>(), g, 4096);
  });
  ASSERT_TRUE(sim::SetCostOverrides("", &error));
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].l2HitBytes, 0u);  // no L2: every byte from HBM
  GmFree(x);
}

// One core with a 4 KiB TBuf: body(copy) may call copy() for a 4 KiB DataCopy GM -> UB between barriers.
sim::LaunchReport RunCopies(const std::function<void(const std::function<void()>&)>& body) {
  float* x = static_cast<float*>(GmAlloc(1024 * sizeof(float)));
  auto r = RunOn("ascend910b", 1, [&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 4096);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(x, 1024);
    body([&] { DataCopy(buf.Get<float>(), g, 1024); });
  });
  GmFree(x);
  return r;
}

TEST(Counters, BackToBackFullBarriersDrainOnce) {
  auto r = RunCopies([](const std::function<void()>& copy) {
    PipeBarrier<PIPE_ALL>();  // nothing issued yet: nothing to drain
    copy();
    PipeBarrier<PIPE_ALL>();  // drains the copy: a refill
    PipeBarrier<PIPE_ALL>();  // right after: nothing in flight
    copy();
    PipeBarrier<PIPE_ALL>();  // a refill
    copy();
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].fullBarriers, 5u);  // and the one the TPipe's destruction issues, as CANN's does
  EXPECT_EQ(r.cores[0].drains, 2u);
  EXPECT_EQ(sim::ModelLaunch(r).cores[0].refills, 3u);
}

TEST(Counters, ADrainNoCopyFollowsRefillsNothing) {
  // CANN's TPipe::Destroy ends with pipe_barrier(PIPE_ALL): the kernel's end drains the pipes, which the
  // one fill every core pays already prices. So neither that drain nor a last PipeBarrier<PIPE_ALL>
  // with no copy after it counts as a refill (front end B counts the same way).
  auto r = RunCopies([](const std::function<void()>& copy) {
    copy();
    PipeBarrier<PIPE_ALL>();
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].fullBarriers, 2u);
  EXPECT_EQ(r.cores[0].drains, 0u);
  EXPECT_EQ(sim::ModelLaunch(r).cores[0].refills, 1u);
}

TEST(Counters, FullBarriersAndTheUbPeakAreRecordedPerCore) {
  auto r = RunOn("ascend910b", 2, [&] {
    TPipe pipe;
    TBuf<> a, b;
    pipe.InitBuffer(a, 1000);  // rounded to 1024
    if (GetBlockIdx() == 1) pipe.InitBuffer(b, 4096);
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_V>();
    if (GetBlockIdx() == 1) PipeBarrier<PIPE_ALL>();
    pipe.Reset();
    TBuf<> c;
    pipe.InitBuffer(c, 512);  // after Reset the pool starts again at 0: the peak stays
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].fullBarriers, 2u);  // with the TPipe's destruction
  EXPECT_EQ(r.cores[1].fullBarriers, 3u);
  EXPECT_EQ(r.cores[0].ubPeakBytes, 1024u);
  EXPECT_EQ(r.cores[1].ubPeakBytes, 1024u + 4096u);
  EXPECT_EQ(sim::ModelLaunch(r).ubPeakBytes, 1024u + 4096u);
}

}  // namespace
