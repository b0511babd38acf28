// DataCopy / DataCopyPad: round trips in every form and unit, padding and dummy bytes, the
// checks, the counters, and GM fills.
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

namespace {

template <typename T>
std::vector<T> Iota(size_t n, float start = 1.0f) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<float>(i));
  return v;
}

template <typename T>
void FillGm(GmBuf<T>& g, const std::vector<T>& v) {
  for (size_t i = 0; i < v.size(); ++i) g[i] = v[i];
}

bool IsPoisonWordAt(const LocalTensor<float>& t, uint32_t i) {
  return rt_test::Bits(t.GetValue(i)) == sim::kUbPoisonWord;
}

// Round trip GM -> UB -> GM with the count form: every element arrives unchanged.
template <typename T>
void CountRoundTrip(uint32_t n) {
  GmBuf<T> in(n), out(n);
  std::vector<T> v = Iota<T>(n, 3.0f);
  FillGm(in, v);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(T));
    LocalTensor<T> ub = buf.Get<T>();
    DataCopy(ub, in.Tensor(), n);
    PipeBarrier<PIPE_ALL>();  // MTE3 reads what MTE2 wrote (the hazard tracker checks it)
    DataCopy(out.Tensor(), ub, n);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(0, std::memcmp(in.data(), out.data(), n * sizeof(T)));
  EXPECT_EQ(r.cores[0].gmToUbBytes, n * sizeof(T));
  EXPECT_EQ(r.cores[0].ubToGmBytes, n * sizeof(T));
  EXPECT_EQ(r.cores[0].dmaIn, 1u);
  EXPECT_EQ(r.cores[0].dmaOut, 1u);
}

}  // namespace

TEST(DataCopy, CountFormRoundTripsEveryType) {
  CountRoundTrip<float>(64);
  CountRoundTrip<half>(48);
  CountRoundTrip<bfloat16_t>(16);
  CountRoundTrip<int8_t>(96);
  CountRoundTrip<int32_t>(8);
  CountRoundTrip<double>(4);
}

TEST(DataCopy, CountFormRoundsDownAndWarns) {
  // 20 floats = 80 bytes: the hardware copies 64 and leaves the tail.
  GmBuf<float> in(20), out(20, -1.0f);
  FillGm(in, Iota<float>(20));
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 128);
    LocalTensor<float> ub = buf.Get<float>();
    DataCopy(ub, in.Tensor(), 20);
    PipeBarrier<PIPE_ALL>();
    DataCopy(out.Tensor(), ub, 20);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "DataCopy: 80 bytes (20 elements) is not a multiple of 32; use DataCopyPad"));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], in[i]);
  for (int i = 16; i < 20; ++i) EXPECT_EQ(out[i], -1.0f) << i;
  EXPECT_EQ(r.cores[0].gmToUbBytes, 64u);
}

TEST(DataCopy, StridedFormUsesBlocksOnBothSides) {
  // 3 blocks of 2 x 32 bytes; GM gap 1 block, UB gap 2 blocks.
  const uint16_t count = 3, len = 2, srcGap = 1, dstGap = 2;
  GmBuf<float> in(3 * 24), out(3 * 24, 0.0f);
  FillGm(in, Iota<float>(72));
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 3 * 4 * 32);
    LocalTensor<float> ub = buf.Get<float>();
    DataCopy(ub, in.Tensor(), DataCopyParams(count, len, srcGap, dstGap));
    // Block i sits at UB float offset i * (2 + 2) * 8 and came from GM float offset i * (2 + 1) * 8.
    for (uint32_t i = 0; i < count; ++i) {
      for (uint32_t k = 0; k < 16; ++k) {
        if (ub.GetValue(i * 32 + k) != in[i * 24 + k]) sim::Fail("test", "block %u elem %u", i, k);
      }
    }
    // Back with the gaps swapped: UB gap 2 -> GM gap 0, so GM gets the three blocks packed.
    DataCopy(out.Tensor(), ub, DataCopyParams(count, len, dstGap, 0));
  });
  EXPECT_LAUNCH_OK(r);
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t k = 0; k < 16; ++k) EXPECT_EQ(out[i * 16 + k], in[i * 24 + k]);
  }
  for (uint32_t k = 48; k < 72; ++k) EXPECT_EQ(out[k], 0.0f);
  EXPECT_EQ(r.cores[0].gmToUbBytes, 3u * 64);
  EXPECT_EQ(r.cores[0].ubToGmBytes, 3u * 64);
}

TEST(DataCopy, UbToUbBothForms) {
  GmBuf<int32_t> in(64), out(64);
  FillGm(in, Iota<int32_t>(64));
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 512);
    LocalTensor<int32_t> ua = a.Get<int32_t>(), ub = b.Get<int32_t>();
    DataCopy(ua, in.Tensor(), 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(ub, ua, 64);                                      // count form
    DataCopy(ub[64], ua, DataCopyParams(2, 1, 1, 0));           // blocks 0 and 2 of ua
    PipeBarrier<PIPE_ALL>();
    DataCopy(out.Tensor(), ub, 64);
    for (uint32_t k = 0; k < 8; ++k) {
      if (ub.GetValue(64 + k) != ua.GetValue(k) || ub.GetValue(72 + k) != ua.GetValue(16 + k)) {
        sim::Fail("test", "strided UB->UB element %u", k);
      }
    }
  });
  EXPECT_LAUNCH_OK(r);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], in[i]);
  EXPECT_EQ(r.cores[0].ubToUbBytes, 256u + 64u);
  EXPECT_EQ(r.cores[0].vecInstr, 2u);
}

TEST(DataCopyPad, ExtGmToUbStridesInBytesAndBlocks) {
  // 3 rows of 12 floats (48 bytes) out of a GM matrix with 20 floats per row:
  // GM stride 8 floats = 32 bytes; each row takes ceil(48/32) = 2 UB blocks, plus 1 block gap.
  GmBuf<float> in(60);
  FillGm(in, Iota<float>(60));
  std::vector<float> got(3 * 24);
  std::vector<uint32_t> bits(3 * 24);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 3 * 3 * 32);
    LocalTensor<float> ub = buf.Get<float>();
    DataCopyPad(ub, in.Tensor(), DataCopyExtParams(3, 48, 32, 1, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    for (uint32_t i = 0; i < 72; ++i) bits[i] = rt_test::Bits(ub.GetValue(i));
  });
  EXPECT_LAUNCH_OK(r);
  for (uint32_t row = 0; row < 3; ++row) {
    for (uint32_t k = 0; k < 12; ++k) EXPECT_EQ(bits[row * 24 + k], rt_test::Bits(in[row * 20 + k]));
    // Dummy bytes to the 32-byte boundary and the gap block are not data: poison.
    for (uint32_t k = 12; k < 16; ++k) EXPECT_EQ(bits[row * 24 + k], sim::kUbPoisonWord);
  }
  EXPECT_EQ(r.cores[0].gmToUbBytes, 3u * 48);
}

TEST(DataCopyPad, PaddingValuesAndLayout) {
  // Per row: [2 pad][5 data][3 pad] halves = 20 bytes -> one 32-byte UB block; 6 dummy halves.
  GmBuf<half> in(10);
  for (int i = 0; i < 10; ++i) in[i] = half(static_cast<float>(i + 1));
  std::vector<uint16_t> padded(32), unpadded(32);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<half> ub = buf.Get<half>();
    DataCopyPad(ub, in.Tensor(), DataCopyExtParams(2, 10, 0, 0), DataCopyPadExtParams<half>(true, 2, 3, half(7.0f)));
    for (int i = 0; i < 32; ++i) padded[i] = ub.GetValue(i).bits;
    DataCopyPad(ub, in.Tensor(), DataCopyExtParams(2, 10, 0, 0), DataCopyPadExtParams<half>(false, 2, 3, half(7.0f)));
    for (int i = 0; i < 32; ++i) unpadded[i] = ub.GetValue(i).bits;
  });
  EXPECT_LAUNCH_OK(r);
  const uint16_t seven = half(7.0f).bits;
  for (int row = 0; row < 2; ++row) {
    const uint16_t* p = padded.data() + row * 16;
    const uint16_t* q = unpadded.data() + row * 16;
    for (int k = 0; k < 2; ++k) EXPECT_EQ(p[k], seven);
    for (int k = 0; k < 5; ++k) EXPECT_EQ(p[2 + k], in[row * 5 + k].bits);
    for (int k = 0; k < 5; ++k) EXPECT_EQ(q[2 + k], in[row * 5 + k].bits);
    for (int k = 7; k < 16; ++k) EXPECT_EQ(p[k], seven) << k;  // right pad and dummy: paddingValue
    for (int k : {0, 1, 7, 8, 9}) EXPECT_EQ(q[k], 0x7FA0) << k;  // "random" padding: poison
  }
}

TEST(DataCopyPad, LegacyParamsSameUnitsAndRawPadBits) {
  GmBuf<float> in(16), out(40, -5.0f);
  FillGm(in, Iota<float>(16));
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<float> ub = buf.Get<float>();
    // 2 rows of 5 floats, GM stride 3 floats (12 bytes); left pad 1 float with raw bits of 2.0f.
    DataCopyPadParams pad(true, 1, 0, rt_test::Bits(2.0f));
    DataCopyPad(ub, in.Tensor(), DataCopyParams(2, 20, 12, 0), pad);
    if (ub.GetValue(0) != 2.0f || ub.GetValue(8) != 2.0f) sim::Fail("test", "left padding");
    // Store the padded rows (6 floats = 24 bytes each): UB rows one block apart (stride 0
    // blocks), GM rows 24 + 4 bytes apart.
    DataCopyPad(out.Tensor(), ub, DataCopyParams(2, 24, 0, 4));
  });
  EXPECT_LAUNCH_OK(r);
  const float expect[] = {2, 1, 2, 3, 4, 5, -5, 2, 9, 10, 11, 12, 13, -5};
  for (int i = 0; i < 14; ++i) EXPECT_EQ(out[i], expect[i]) << i;
}

TEST(DataCopyPad, UbToGmStrideBlocksOnUbBytesOnGm) {
  GmBuf<int16_t> out(64, 0);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<int16_t> ub = buf.Get<int16_t>();
    for (int i = 0; i < 128; ++i) ub.SetValue(i, static_cast<int16_t>(i));
    // 3 rows of 7 int16 (14 bytes): UB row = 1 block + 1 gap block -> rows at 0, 32, 64;
    // GM row pitch 14 + 6 bytes -> rows at 0, 10, 20 elements.
    DataCopyPad(out.Tensor(), ub, DataCopyExtParams(3, 14, 1, 6, 0));
  });
  EXPECT_LAUNCH_OK(r);
  for (int row = 0; row < 3; ++row) {
    for (int k = 0; k < 7; ++k) EXPECT_EQ(out[row * 10 + k], row * 32 + k);
    for (int k = 7; k < 10; ++k) EXPECT_EQ(out[row * 10 + k], 0);
  }
  EXPECT_EQ(out[30], 0);
  EXPECT_EQ(r.cores[0].ubToGmBytes, 42u);
}

TEST(DataCopyPad, FirstElementDummyModeFollowsTheDoc) {
  GmBuf<float> in(3);
  in[0] = 4.0f, in[1] = 5.0f, in[2] = 6.0f;
  sim::SetDataCopyPadDummyFill(sim::DummyFill::kFirstElement);
  std::vector<float> got(8);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<float> ub = buf.Get<float>();
    DataCopyPad(ub, in.Tensor(), DataCopyExtParams(1, 12, 0, 0, 0), DataCopyPadExtParams<float>());
    for (int i = 0; i < 8; ++i) got[i] = ub.GetValue(i);
  });
  sim::SetDataCopyPadDummyFill(sim::DummyFill::kPoison);
  EXPECT_LAUNCH_OK(r);
  const float expect[] = {4, 5, 6, 4, 4, 4, 4, 4};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], expect[i]);
}

// ---- on the instruction-level model (ascendc/isa_issue.h): A checks, the model moves the bytes

namespace {
// Runs f on one core of soc with a 1024-byte UB buffer.
sim::LaunchReport WithUb(const std::function<void(LocalTensor<float>)>& f, const char* soc = "ascend910b") {
  return RunOn(soc, 1, [&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    f(buf.Get<float>());
  });
}
}  // namespace

// Every DataCopy / DataCopyPad form is issued to the model as the DMA instruction CANN's implementation
// issues (copy_gm_to_ubuf, copy_ubuf_to_gm, copy_ubuf_to_ubuf, the _align_b16/_b32 copies with
// set_mov_pad_val): the model counts exactly the copies and bytes A's cost counters see.
TEST(DataCopy, CopiesRunOnTheInstructionModel) {
  GmBuf<float> in(64), out(64, 0.0f);
  FillGm(in, Iota<float>(64));
  normgrad::isa::Counters model;
  uint64_t padRegister = 0;
  auto r = WithUb([&](LocalTensor<float> ub) {
    DataCopy(ub, in.Tensor(), 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(ub[128], ub, DataCopyParams(2, 1, 1, 0));  // UB -> UB: blocks 0 and 2 to 128..143
    DataCopyPad(ub[64], in.Tensor(), DataCopyExtParams(1, 12, 0, 0, 0), DataCopyPadExtParams<float>(true, 1, 0, -2.0f));
    PipeBarrier<PIPE_ALL>();
    DataCopy(out.Tensor(), ub[128], 16);
    DataCopyPad(out.Tensor()[16], ub[64], DataCopyExtParams(1, 16, 0, 0, 0));
    model = normgrad::isa::Core().counters;
    padRegister = normgrad::isa::Core().movPadVal;
  });
  EXPECT_LAUNCH_OK(r);
  const sim::CoreCounters& a = r.cores[0];
  EXPECT_EQ(model.dmaIn, 2u);
  EXPECT_EQ(model.dmaOut, 2u);
  EXPECT_EQ(model.dmaIn, a.dmaIn);
  EXPECT_EQ(model.dmaOut, a.dmaOut);
  EXPECT_EQ(model.gmToUbBytes, a.gmToUbBytes);
  EXPECT_EQ(model.ubToGmBytes, a.ubToGmBytes);
  EXPECT_EQ(model.ubToUbBytes, a.ubToUbBytes);
  EXPECT_EQ(model.instr[PIPE_MTE2], 2u);
  EXPECT_EQ(model.instr[PIPE_MTE3], 2u);
  EXPECT_EQ(model.instr[PIPE_V], 1u);  // the UB -> UB copy
  EXPECT_EQ(padRegister, uint64_t{rt_test::Bits(-2.0f)});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], in[i]) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(out[i], in[i + 8]) << i;
  const float padded[4] = {-2.0f, 1.0f, 2.0f, 3.0f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[16 + i], padded[i]) << i;
}

// A reads GM through the model's GM reader, which A points at gm::Read: views of strided and broadcast
// tensors (no bytes in memory) stay readable by DataCopy and DataCopyPad.
TEST(DataCopy, ViewsOfStridedTensorsAreReadThroughTheModel) {
  std::vector<float> storage(64);
  for (int i = 0; i < 64; ++i) storage[i] = static_cast<float>(i);
  sim::gm::StridedSource every2nd{reinterpret_cast<const uint8_t*>(storage.data()), {16}, {2}, 1, 4};
  sim::gm::StridedSource broadcast{reinterpret_cast<const uint8_t*>(storage.data()), {4, 8}, {0, 1}, 8, 4};
  auto* strided = static_cast<float*>(sim::gm::RegisterView(every2nd));
  auto* rows = static_cast<float*>(sim::gm::RegisterView(broadcast));
  ASSERT_NE(strided, nullptr);
  ASSERT_NE(rows, nullptr);
  std::vector<float> got(48);
  auto r = WithUb([&](LocalTensor<float> ub) {
    GlobalTensor<float> s, b;
    s.SetGlobalBuffer(strided, 16);
    b.SetGlobalBuffer(rows, 32);
    DataCopy(ub, s, 16);
    DataCopyPad(ub[16], b, DataCopyExtParams(4, 24, 8, 0, 0), DataCopyPadExtParams<float>(true, 0, 2, 0.5f));
    for (int i = 0; i < 48; ++i) got[i] = ub.GetValue(i);
  });
  sim::gm::UnregisterView(strided);
  sim::gm::UnregisterView(rows);
  EXPECT_LAUNCH_OK(r);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], 2.0f * i + 1) << i;
  for (int row = 0; row < 4; ++row) {  // each row: storage[8..13], then the right pad
    for (int k = 0; k < 6; ++k) EXPECT_EQ(got[16 + row * 8 + k], 8.0f + k) << row << "," << k;
    for (int k = 6; k < 8; ++k) EXPECT_EQ(got[16 + row * 8 + k], 0.5f) << row << "," << k;
  }
}

// The model fills the pads of a DataCopyPad without isPad with its pad register (set_mov_pad_val, still
// holding an earlier isPad call's value); front end A then writes its poison over the bytes the
// documentation leaves unspecified, so a kernel that reads them sees NaN, not a plausible value.
TEST(DataCopyPad, PoisonOverlaysThePadRegisterWhereUnspecified) {
  GmBuf<float> in(8);
  FillGm(in, Iota<float>(8));
  std::vector<float> got(8);
  uint64_t padRegister = 0;
  auto r = WithUb([&](LocalTensor<float> ub) {
    DataCopyPad(ub[8], in.Tensor(), DataCopyExtParams(1, 4, 0, 0, 0), DataCopyPadExtParams<float>(true, 1, 1, 9.0f));
    DataCopyPad(ub, in.Tensor(), DataCopyExtParams(1, 12, 0, 0, 0), DataCopyPadExtParams<float>(false, 2, 1, 0.0f));
    padRegister = normgrad::isa::Core().movPadVal;
    for (int i = 0; i < 8; ++i) got[i] = ub.GetValue(i);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(padRegister, uint64_t{rt_test::Bits(9.0f)});  // the second call set no pad value
  for (int i : {0, 1, 5, 6, 7}) EXPECT_EQ(rt_test::Bits(got[i]), sim::kUbPoisonWord) << i;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[2 + i], in[i]) << i;
}

// ---- every check fires with the API, the core and the values

TEST(DataCopyChecks, UnalignedUbOperand) {
  GmBuf<float> g(64);
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) { DataCopy(ub[3], g.Tensor(), 8); }),
                      "core 0: DataCopy: dst UB address 12 is not 32-byte aligned");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(g.Tensor(), ub[1], DataCopyExtParams(1, 8, 0, 0, 0));
                      }),
                      "DataCopyPad: src UB address 4 is not 32-byte aligned");
}

TEST(DataCopyChecks, GmOutsideEveryAllocation) {
  GmBuf<float> g(16);
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) { DataCopy(ub, g.Tensor(), 24); }),
                      "DataCopy: global-memory read of 96 bytes");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(g.Tensor()[10], ub, DataCopyExtParams(1, 28, 0, 0, 0));
                      }),
                      "DataCopyPad: global-memory write of 28 bytes");
}

TEST(DataCopyChecks, GmNotElementAligned) {
  GmBuf<float> g(16);
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        GlobalTensor<float> bad;
                        bad.SetGlobalBuffer(reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(g.data()) + 2), 8);
                        DataCopy(ub, bad, 8);
                      }),
                      "is not aligned to the 4-byte element");
}

TEST(DataCopyChecks, FootprintBeyondTheTensor) {
  GmBuf<float> g(1024);
  EXPECT_LAUNCH_ERROR(RunOn("ascend910b", 1,
                            [&] {
                              TPipe pipe;
                              TBuf<> buf;
                              pipe.InitBuffer(buf, 64);
                              DataCopy(buf.Get<float>(), g.Tensor(), 24);
                            }),
                      "DataCopy: dst needs 96 bytes from UB address 0 but its tensor has 64 bytes");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopy(ub, g.Tensor(), DataCopyParams(4, 8, 0, 1));
                      }),
                      "dst needs 1120 bytes");
}

TEST(DataCopyChecks, PadParamRules) {
  GmBuf<float> g(64);
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(ub, g.Tensor(), DataCopyExtParams(1, 10, 0, 0, 0), DataCopyPadExtParams<float>());
                      }),
                      "DataCopyPad: blockLen 10 is in bytes and must be a multiple of sizeof(T) = 4");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(ub, g.Tensor(), DataCopyExtParams(1, 16, 0, 0, 0),
                                    DataCopyPadExtParams<float>(true, 9, 0, 0.0f));
                      }),
                      "padding of 9 left and 0 right elements of 4 bytes exceeds 32 bytes per side");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(ub, g.Tensor(), DataCopyExtParams(4096, 4, 0, 0, 0), DataCopyPadExtParams<float>());
                      }),
                      "blockCount 4096 exceeds 4095");
  EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                        DataCopyPad(ub, g.Tensor(), DataCopyExtParams(1, 2097152, 0, 0, 0),
                                    DataCopyPadExtParams<float>());
                      }),
                      "blockLen 2097152 bytes exceeds 2097151");
}

TEST(DataCopyChecks, NoDataCopyPadOnAtlasTrainingOrInference) {
  GmBuf<float> g(64);
  for (const std::string soc : {"ascend910", "ascend310p", "Ascend310P1"}) {
    EXPECT_LAUNCH_ERROR(WithUb([&](LocalTensor<float> ub) {
                          DataCopyPad(ub, g.Tensor(), DataCopyExtParams(1, 12, 0, 0, 0),
                                      DataCopyPadExtParams<float>());
                        },
                               soc.c_str()),
                        "DataCopyPad: does not exist on " + soc);
  }
}

// CANN issues an empty copy as a DMA instruction with a zero field, outside its documented range
// (docs/sim.md, difference 16): front end A copies nothing, counts the call, and warns.
TEST(DataCopyChecks, ZeroLengthIsANopWithAWarning) {
  GmBuf<float> g(8, 1.0f);
  auto r = WithUb([&](LocalTensor<float> ub) {
    DataCopy(ub, g.Tensor(), DataCopyParams(0, 4, 0, 0));
    DataCopyPad(g.Tensor(), ub, DataCopyExtParams(1, 0, 0, 0, 0));
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "DataCopy: an empty copy (blockCount 0, 128 bytes a block) is not issued"));
  EXPECT_TRUE(rt_test::HasWarning(r, "DataCopyPad: an empty copy (blockCount 1, 0 bytes a block) is not issued"));
  EXPECT_EQ(g[0], 1.0f);
  EXPECT_EQ(r.cores[0].gmToUbBytes, 0u);
  EXPECT_EQ(r.cores[0].dmaIn, 1u);
  EXPECT_EQ(r.cores[0].dmaOut, 1u);
}

// ---- GM initialisation

TEST(InitGm, InitOutputAndInitGlobalMemoryFill) {
  GmBuf<float> a(10000, -1.0f);
  GmBuf<half> b(7, half(0.0f));
  auto r = Run1([&] {
    InitOutput(a.Tensor(), 9999, 2.5f);
    GlobalTensor<half> bt = b.Tensor();
    InitGlobalMemory(bt, 7, half(3.0f));
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  for (int i = 0; i < 9999; ++i) ASSERT_EQ(a[i], 2.5f) << i;
  EXPECT_EQ(a[9999], -1.0f);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(static_cast<float>(b[i]), 3.0f);
  // 39996 bytes in 8160-byte chunks = 5 stores; 14 bytes = 1 store.
  EXPECT_EQ(r.cores[0].dmaOut, 6u);
  EXPECT_EQ(r.cores[0].ubToGmBytes, 39996u + 14u);
}

TEST(InitGm, WarnsAfterInitBuffer) {
  GmBuf<float> a(8);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 32);
    InitOutput(a.Tensor(), 8, 1.0f);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "InitOutput: called after TPipe::InitBuffer"));
}

TEST(InitGm, OutOfRangeFails) {
  GmBuf<float> a(8);
  EXPECT_LAUNCH_ERROR(Run1([&] { InitOutput(a.Tensor(), 9, 1.0f); }), "InitOutput: global-memory write of 36 bytes");
}

TEST(DataCopy, PoisonShowsUninitialisedUb) {
  std::vector<bool> poisoned(16);
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<float> ub = buf.Get<float>();
    for (uint32_t i = 0; i < 16; ++i) poisoned[i] = IsPoisonWordAt(ub, i) && std::isnan(ub.GetValue(i));
  });
  EXPECT_LAUNCH_OK(r);
  for (bool p : poisoned) EXPECT_TRUE(p);
}
