// Atomic accumulation of UB->GM copies: exact multi-core sums, rounding and saturation in the
// atomic type, and the warnings for type mismatches and atomics left on.
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

namespace {

// Each core stages `values(idx)` (8 elements = one 32-byte block for float) and adds it to dst.
template <typename T>
sim::LaunchReport AddFromCores(const char* soc, int cores, GmBuf<T>& dst, uint32_t count,
                               const std::function<T(int idx, uint32_t i)>& value, bool usePad = false) {
  return RunOn(soc, cores, [&, count, usePad] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, count * sizeof(T));
    LocalTensor<T> t = q.AllocTensor<T>();
    int idx = static_cast<int>(GetBlockIdx());
    for (uint32_t i = 0; i < count; ++i) t.SetValue(i, value(idx, i));
    q.EnQue(t);
    t = q.DeQue<T>();
    SetAtomicAdd<T>();
    if (usePad) {
      DataCopyPad(dst.Tensor(), t, DataCopyExtParams(1, count * sizeof(T), 0, 0, 0));
    } else {
      DataCopy(dst.Tensor(), t, count);
    }
    SetAtomicNone();
    q.FreeTensor(t);
  });
}

}  // namespace

TEST(Atomic, FloatSumOver48CoresIsExact) {
  // Integers below 2^24 add exactly in float in any order: sum of idx + 1 + i over 48 cores.
  GmBuf<float> dst(8, 100.0f);
  auto r = AddFromCores<float>("ascend910b", 48, dst, 8,
                               [](int idx, uint32_t i) { return static_cast<float>(idx + 1 + static_cast<int>(i)); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(dst[i], 100.0f + 1176.0f + 48.0f * i);
  for (const auto& c : r.cores) EXPECT_EQ(c.ubToGmBytes, 32u);
}

TEST(Atomic, Int32SumOver48CoresWithDataCopyPad) {
  GmBuf<int32_t> dst(5, -7);
  auto r = AddFromCores<int32_t>("ascend910b", 48, dst, 5, [](int idx, uint32_t i) { return idx * 1000 + 1; }, true);
  EXPECT_LAUNCH_OK(r);
  // sum idx * 1000 over 0..47 = 1128000, plus 48 ones.
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(dst[i], -7 + 1128000 + 48);
}

TEST(Atomic, HalfAddsRoundInHalf) {
  // 2048 + 1 is a tie in half (spacing 2 above 2048): RNE keeps 2048, so 48 adds of 1 leave it.
  GmBuf<half> tie(16, half(2048.0f));
  auto r = AddFromCores<half>("ascend910b", 48, tie, 16, [](int, uint32_t) { return half(1.0f); });
  EXPECT_LAUNCH_OK(r);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(static_cast<float>(tie[i]), 2048.0f);
  // From 0, the 48 ones are all exact.
  GmBuf<half> zero(16, half(0.0f));
  r = AddFromCores<half>("ascend910b", 48, zero, 16, [](int, uint32_t) { return half(1.0f); });
  EXPECT_LAUNCH_OK(r);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(static_cast<float>(zero[i]), 48.0f);
}

TEST(Atomic, HalfOverflowSaturates) {
  GmBuf<half> dst(16, half(60000.0f));
  auto r = AddFromCores<half>("ascend910b", 1, dst, 16, [](int, uint32_t i) { return half(i < 8 ? 60000.0f : -60000.0f); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(static_cast<float>(dst[0]), 65504.0f);  // inf saturates to the largest half
  EXPECT_EQ(static_cast<float>(dst[8]), 0.0f);
}

TEST(Atomic, Bf16AddsRoundInBf16) {
  // bf16 keeps 8 significant bits: 256 + 1 = 257 is a tie between 256 and 258 -> 256 (even);
  // 256 + 3 = 259 is a tie between 258 and 260 -> 260 (even).
  GmBuf<bfloat16_t> dst(16, bfloat16_t(256.0f));
  auto r = AddFromCores<bfloat16_t>("ascend910b", 1, dst, 16,
                                    [](int, uint32_t i) { return bfloat16_t(i < 8 ? 1.0f : 3.0f); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(static_cast<float>(dst[0]), 256.0f);
  EXPECT_EQ(static_cast<float>(dst[8]), 260.0f);
}

TEST(Atomic, TypeMismatchWarnsAndAddsAsTheAtomicType) {
  GmBuf<float> dst(8, 1.0f);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<float> t = buf.Get<float>();
    for (int i = 0; i < 8; ++i) t.SetValue(i, 2.0f);
    SetAtomicAdd<int32_t>();
    DataCopy(dst.Tensor(), t, 8);
    SetAtomicNone();
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "DataCopy: the copy moves float but SetAtomicAdd<int32_t> is on"));
  // The bit patterns of 1.0f and 2.0f added as integers.
  uint32_t expect = rt_test::Bits(1.0f) + rt_test::Bits(2.0f);
  EXPECT_EQ(rt_test::Bits(dst[0]), expect);
}

// SetAtomicAdd / SetAtomicNone set the instruction-level model's atomic register as CANN's
// implementation does (dav-c220: set_atomic_add, set_atomic_<type>; dav-c100: set_atomic_f32), and the
// model's DMA does the adds, on the training series too (the device's DMA adds there; only CANN's
// CPU-debug API adds in UB instead).
TEST(Atomic, AddsRunOnTheModelsAtomicRegister) {
  for (const char* soc : {"ascend910b", "ascend910"}) {
    GmBuf<float> dst(8, 10.0f);
    bool onAfterSet = false, offAfterNone = false;
    normgrad::isa::AtomicType type = normgrad::isa::AtomicType::kNone;
    auto r = RunOn(soc, 1, [&] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 32);
      LocalTensor<float> t = buf.Get<float>();
      for (int i = 0; i < 8; ++i) t.SetValue(i, 0.25f * i);
      SetAtomicAdd<float>();
      onAfterSet = normgrad::isa::Core().atomicEnabled;
      type = normgrad::isa::Core().atomicType;
      DataCopy(dst.Tensor(), t, 8);
      SetAtomicNone();
      offAfterNone = !normgrad::isa::Core().atomicEnabled;
    });
    EXPECT_LAUNCH_OK(r);
    EXPECT_TRUE(onAfterSet) << soc;
    EXPECT_EQ(type, normgrad::isa::AtomicType::kF32) << soc;
    EXPECT_TRUE(offAfterNone) << soc;
    for (int i = 0; i < 8; ++i) EXPECT_EQ(dst[i], 10.0f + 0.25f * i) << soc << " " << i;
  }
}

TEST(Atomic, LeftOnAtKernelEndWarns) {
  auto r = Run1([] { SetAtomicAdd<float>(); });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "core 0: SetAtomicAdd: atomic add is still on at kernel end"));
}

TEST(Atomic, AtlasTrainingAddsFloatOnly) {
  EXPECT_LAUNCH_ERROR(RunOn("ascend910", 1, [] { SetAtomicAdd<half>(); }),
                      "SetAtomicAdd: atomic add in half does not exist on ascend910 (float only)");
  EXPECT_LAUNCH_OK(RunOn("ascend910", 1, [] {
    SetAtomicAdd<float>();
    SetAtomicNone();
  }));
}

TEST(Atomic, PlainStoreAfterSetAtomicNone) {
  GmBuf<float> dst(8, 5.0f);
  auto r = AddFromCores<float>("ascend910b", 1, dst, 8, [](int, uint32_t) { return 1.0f; });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(dst[0], 6.0f);
  r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<float> t = buf.Get<float>();
    for (int i = 0; i < 8; ++i) t.SetValue(i, 1.0f);
    DataCopy(dst.Tensor(), t, 8);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(dst[0], 1.0f);
}
