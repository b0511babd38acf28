// Scalar GM accesses through the per-core data cache (ascendc/dcache.h): which accesses reach GM,
// the bytes the launch report counts for them, and the modeled time they add.
#include "runtime_test_util.h"

#include "ascendc/cost.h"
#include "ascendc/dcache.h"
#include "tikicpulib.h"

using namespace AscendC;
using rt_test::RunOn;
using sim::DataCache;

namespace {

constexpr uint64_t kLine = DataCache::kLineBytes;                 // 64
constexpr uint64_t kCapacity = DataCache::kCapacityBytes;         // 32 KiB
constexpr uint64_t kLinesInCache = DataCache::kLines;             // 512
constexpr uint64_t kFloatsPerLine = kLine / sizeof(float);        // 16

// Device-like GM: 512-byte aligned (GmAlloc), so 64-byte lines start where they do on the device
// and the expected line counts below are exact.
template <typename T>
class DeviceGm {
 public:
  explicit DeviceGm(size_t n) : p_(static_cast<T*>(GmAlloc(n * sizeof(T)))), n_(n) {}
  ~DeviceGm() { GmFree(p_); }
  DeviceGm(const DeviceGm&) = delete;
  DeviceGm& operator=(const DeviceGm&) = delete;
  T* data() { return p_; }
  GlobalTensor<T> Tensor() {
    GlobalTensor<T> t;
    t.SetGlobalBuffer(p_, n_);
    return t;
  }

 private:
  T* p_;
  size_t n_;
};

sim::LaunchReport Run1(const std::function<void()>& body) { return RunOn("ascend910b", 1, body); }

// The byte stride of the thrash pattern: one cache size plus one line, so every access is a new
// line (on a set-indexed cache it would also walk the sets).
constexpr uint64_t kThrashStride = kCapacity + kLine;

// Reads `count` floats spaced kThrashStride bytes apart, `passes` times over.
sim::LaunchReport RunStrided(uint64_t count, int passes) {
  const uint64_t strideFloats = kThrashStride / sizeof(float);
  DeviceGm<float> x(count * strideFloats);
  return Run1([&] {
    GlobalTensor<float> t = x.Tensor();
    float sum = 0;
    for (int p = 0; p < passes; ++p) {
      for (uint64_t i = 0; i < count; ++i) sum += t.GetValue(i * strideFloats);
    }
    (void)sum;
  });
}

// ---- the cache on its own ----

TEST(DataCache, ConstantsAreTheDocumentedOnes) {
  EXPECT_EQ(kCapacity, 32u * 1024);  // docs/hardware-rules.md §9
  EXPECT_EQ(kLine, 64u);             // docs/hardware-rules.md §9 (SetValue)
  EXPECT_EQ(kLinesInCache, 512u);
}

TEST(DataCache, MissLoadsALineAndHitsAreFree) {
  DataCache c;
  EXPECT_EQ(c.Read(0x1000, 4).in, kLine);
  EXPECT_EQ(c.Read(0x1000 + 60, 4).in, 0u);  // same line
  EXPECT_EQ(c.Read(0x1000 + 64, 4).in, kLine);
  EXPECT_EQ(c.ResidentLines(), 2u);
}

TEST(DataCache, AnAccessStraddlingTwoLinesTouchesBoth) {
  DataCache c;
  EXPECT_EQ(c.Read(0x1000 + 62, 4).in, 2 * kLine);
  EXPECT_EQ(c.Read(0x1000 + 56, 8).in, 0u);
}

TEST(DataCache, EvictsTheLeastRecentlyUsedLine) {
  DataCache c;
  for (uint64_t i = 0; i < kLinesInCache; ++i) c.Read(i * kLine, 4);  // full: lines 0..511
  EXPECT_EQ(c.Read(0, 4).in, 0u);                  // line 0 becomes the most recent
  EXPECT_EQ(c.Read(kLinesInCache * kLine, 4).in, kLine);  // evicts line 1, the least recent
  EXPECT_EQ(c.ResidentLines(), kLinesInCache);
  EXPECT_EQ(c.Read(0, 4).in, 0u);
  EXPECT_EQ(c.Read(2 * kLine, 4).in, 0u);
  EXPECT_EQ(c.Read(1 * kLine, 4).in, kLine);       // line 1 was the one evicted
}

TEST(DataCache, DirtyLinesAreWrittenBackOnceWhenEvictedOrFlushed) {
  DataCache c;
  EXPECT_EQ(c.Write(0, 4).in, 0u);  // write miss: allocated without a fill
  EXPECT_EQ(c.Write(4, 4).out, 0u);
  EXPECT_EQ(c.Read(8, 4).in, 0u);   // the written line is resident
  DataCache::Traffic evicting;
  for (uint64_t i = 1; i <= kLinesInCache; ++i) {
    DataCache::Traffic t = c.Read(i * kLine, 4);
    evicting.in += t.in;
    evicting.out += t.out;
  }
  EXPECT_EQ(evicting.in, kLinesInCache * kLine);
  EXPECT_EQ(evicting.out, kLine);   // line 0, dirty, evicted by the 512th new line
  EXPECT_EQ(c.Flush(), 0u);         // nothing else is dirty
  c.Write(kLine, 4);
  EXPECT_EQ(c.Flush(), kLine);
  EXPECT_EQ(c.Flush(), 0u);         // flushed lines are clean
}

TEST(DataCache, CleanInvalidateWritesBackAndDropsLines) {
  DataCache c;
  c.Write(0, 4);
  c.Read(kLine, 4);
  EXPECT_EQ(c.CleanInvalidateLine(kLine), 0u);  // clean line: dropped, nothing written
  EXPECT_EQ(c.ResidentLines(), 1u);
  EXPECT_EQ(c.CleanInvalidateLine(kLine), 0u);  // not resident
  c.Read(2 * kLine, 4);
  EXPECT_EQ(c.CleanInvalidateAll(), kLine);     // the dirty line 0
  EXPECT_EQ(c.ResidentLines(), 0u);
  EXPECT_EQ(c.Read(0, 4).in, kLine);
}

// ---- scalar reads in a launch ----

TEST(ScalarGm, TheSameFloatReadAThousandTimesCostsOneLine) {
  DeviceGm<float> x(16);
  auto r = Run1([&] {
    GlobalTensor<float> t = x.Tensor();
    for (int i = 0; i < 1000; ++i) (void)t.GetValue(3);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].scalarGm, 1000u);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, kLine);
  EXPECT_EQ(r.cores[0].scalarGmBytesOut, 0u);
  EXPECT_EQ(sim::ModelLaunch(r).bytesIn, kLine);
}

TEST(ScalarGm, LinesAreThoseOfTheAllocationWhereverTheHostPutIt) {
  // Host memory registered as device memory (how the Python API passes its inputs) starts wherever
  // the host put it; a device allocation starts on a 512-byte boundary. 16 floats from the start of
  // the allocation are one line on the device, so they are here too, at any host offset (front end B,
  // whose GM is 512-byte aligned, counts one line as well).
  alignas(512) static float host[64 + 8];
  for (int offset : {0, 4, 8}) {  // 0, 16 and 32 bytes into a host line
    float* gm = host + offset;
    sim::gm::Register(gm, 64 * sizeof(float));
    auto r = Run1([&] {
      GlobalTensor<float> t;
      t.SetGlobalBuffer(gm, 64);
      for (int i = 0; i < 16; ++i) (void)t.GetValue(i);
    });
    sim::gm::Unregister(gm);
    EXPECT_LAUNCH_OK(r);
    EXPECT_EQ(r.cores[0].scalarGmBytesIn, kLine) << "host offset " << offset * sizeof(float) << " bytes";
  }
}

TEST(ScalarGm, SequentialReadsOfTwiceTheCapacityCostEveryLine) {
  const uint64_t floats = 2 * kCapacity / sizeof(float);  // 16384 floats, 1024 lines
  DeviceGm<float> x(floats);
  for (uint64_t i = 0; i < floats; ++i) x.data()[i] = static_cast<float>(i % 7);
  float sum = 0;
  auto r = Run1([&] {
    GlobalTensor<float> t = x.Tensor();
    for (uint64_t i = 0; i < floats; ++i) sum += t.GetValue(i);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(sum, 49146.0f);  // the reads return the data: 16384 = 7 * 2340 + 4, 2340 * 21 + 6
  EXPECT_EQ(r.cores[0].scalarGm, floats);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 2 * kCapacity);  // floats / kFloatsPerLine lines of 64 B
  EXPECT_EQ(r.cores[0].scalarGmBytesIn / kLine, floats / kFloatsPerLine);
}

TEST(ScalarGm, ASecondSequentialPassOverMoreThanTheCapacityMissesAgain) {
  // LRU on a cyclic sweep larger than the cache: every line is evicted before it comes back.
  const uint64_t floats = 2 * kCapacity / sizeof(float);
  DeviceGm<float> x(floats);
  auto r = Run1([&] {
    GlobalTensor<float> t = x.Tensor();
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t i = 0; i < floats; ++i) (void)t.GetValue(i);
    }
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 2 * 2 * kCapacity);
}

TEST(ScalarGm, StridedReadsOverMoreThanTheCapacityMissEveryTime) {
  const uint64_t count = kLinesInCache + 88;  // 600 lines > 512
  auto r = RunStrided(count, 3);
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].scalarGm, 3 * count);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 3 * count * kLine);  // every one of the 1800 reads missed
}

TEST(ScalarGm, TheSameStridedReadsWithinTheCapacityMissOnlyOnce) {
  const uint64_t count = kLinesInCache - 12;  // 500 lines fit
  auto r = RunStrided(count, 3);
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, count * kLine);  // first pass only
}

TEST(ScalarGm, EachCoreHasItsOwnCacheAndEveryLaunchStartsCold) {
  DeviceGm<float> x(64);
  auto body = [&] {
    GlobalTensor<float> t = x.Tensor();
    for (int i = 0; i < 64; ++i) (void)t.GetValue(i);  // 4 lines, shared by every core
  };
  for (int launch = 0; launch < 2; ++launch) {
    auto r = RunOn("ascend910b", 8, body);
    EXPECT_LAUNCH_OK(r);
    for (const sim::CoreCounters& c : r.cores) EXPECT_EQ(c.scalarGmBytesIn, 4 * kLine);
    EXPECT_EQ(sim::ModelLaunch(r).bytesIn, 8 * 4 * kLine);
  }
}

// ---- scalar writes in a launch ----

TEST(ScalarGm, WritesAreWrittenBackAsWholeLinesAtKernelEnd) {
  DeviceGm<float> y(100);
  auto r = Run1([&] {
    GlobalTensor<float> t = y.Tensor();
    for (uint32_t i = 0; i < 100; ++i) t.SetValue(i, static_cast<float>(i));  // 400 B: 7 lines
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(y.data()[99], 99.0f);
  EXPECT_EQ(r.cores[0].scalarGm, 100u);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 0u);
  EXPECT_EQ(r.cores[0].scalarGmBytesOut, 7 * kLine);
  EXPECT_EQ(sim::ModelLaunch(r).bytesOut, 7 * kLine);
}

TEST(ScalarGm, DataCacheCleanAndInvalidWritesBackAndLaterReadsMiss) {
  DeviceGm<float> y(16);
  auto r = Run1([&] {
    GlobalTensor<float> t = y.Tensor();
    t.SetValue(0, 1.0f);
    DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(t);
    (void)t.GetValue(0);  // dropped by the invalidation: a fill
    (void)t.GetValue(1);
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(t);
    (void)t.GetValue(2);  // a fill again
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].scalarGmBytesOut, kLine);  // written back once, by the first clean
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 2 * kLine);
}

// ---- the launch report and the modeled time ----

TEST(ScalarGm, LaunchBytesInAddsTheLineFillsToTheDmaPayload) {
  DeviceGm<float> x(1024);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    DataCopy(buf.Get<float>(), x.Tensor(), 256);          // 1 KiB by DMA
    for (int i = 0; i < 32; ++i) (void)x.Tensor().GetValue(512 + 16 * i);  // 32 distinct lines
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.cores[0].gmToUbBytes, 1024u);
  EXPECT_EQ(r.cores[0].scalarGmBytesIn, 32 * kLine);
  sim::KernelTime k = sim::ModelLaunch(r);
  EXPECT_EQ(k.bytesIn, 1024 + 32 * kLine);
  EXPECT_EQ(k.scalarBytesIn, 32 * kLine);
  EXPECT_EQ(k.bytesOut, 0u);
}

TEST(ScalarGm, ThrashingCostsMoreModeledTimeThanHitting) {
  const uint64_t count = kLinesInCache + 88;
  sim::KernelTime thrash = sim::ModelLaunch(RunStrided(count, 3));
  sim::KernelTime fits = sim::ModelLaunch(RunStrided(kLinesInCache - 12, 3));
  const sim::SocProfile& soc = *sim::FindSoc("ascend910b");
  const double coreBytesPerUs = soc.coreDmaBytesPerCycle * soc.clockGHz * 1e3;
  // One core, no DMA: T_core = T_MTE2 = fills / BW_core, above T_HBM = fills / 1.5 TB/s.
  EXPECT_NEAR(thrash.maxCoreUs, 3.0 * count * kLine / coreBytesPerUs, 1e-9);
  EXPECT_NEAR(thrash.hbmUs, 3.0 * count * kLine / (soc.hbmSustainedTBs * 1e6), 1e-9);
  EXPECT_NEAR(thrash.totalUs, soc.launchUs + thrash.maxCoreUs, 1e-9);
  EXPECT_NEAR(fits.totalUs, soc.launchUs + (kLinesInCache - 12.0) * kLine / coreBytesPerUs, 1e-9);
  EXPECT_GT(thrash.totalUs, fits.totalUs);
}

}  // namespace
