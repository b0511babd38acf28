// Element-wise instructions: every op in count and both level-0 forms against references
// written here (IEEE float in the test, exact double rounded by RefHalfSat for half), the
// level-0 addressing with strides, the operand checks and the work counters.
// Tolerances: none. float results are compared bit for bit with the same IEEE operation
// done here; half results with the exact value rounded once (RNE) and saturated.
#include <cmath>
#include <type_traits>
#include <utility>

#include "normgrad_isa/model.h"
#include "vec_fixture.h"

namespace vectest {
namespace {

using namespace AscendC;
using VectorTest = VecTest;

// Detection trait: does Add exist for LocalTensor<T> (count form)?
template <typename T, typename = void>
struct HasAdd : std::false_type {};
template <typename T>
struct HasAdd<T, std::void_t<decltype(Add(std::declval<const LocalTensor<T>&>(), std::declval<const LocalTensor<T>&>(),
                                          std::declval<const LocalTensor<T>&>(), std::declval<const int32_t&>()))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasExp : std::false_type {};
template <typename T>
struct HasExp<T, std::void_t<decltype(Exp(std::declval<const LocalTensor<T>&>(), std::declval<const LocalTensor<T>&>(),
                                          std::declval<const int32_t&>()))>> : std::true_type {};
template <typename T, typename = void>
struct HasDuplicate : std::false_type {};
template <typename T>
struct HasDuplicate<T, std::void_t<decltype(Duplicate(std::declval<const LocalTensor<T>&>(), std::declval<const T&>(),
                                                      std::declval<const int32_t&>()))>> : std::true_type {};

TEST(VectorTypes, Bfloat16ArithmeticDoesNotExist) {
  EXPECT_FALSE(HasAdd<bfloat16_t>::value);
  EXPECT_FALSE(HasExp<bfloat16_t>::value);
  EXPECT_FALSE(HasExp<int32_t>::value);  // transcendental ops are half/float only
  EXPECT_TRUE(HasAdd<float>::value);
  EXPECT_TRUE(HasAdd<half>::value);
  EXPECT_TRUE(HasAdd<int16_t>::value);
  EXPECT_TRUE(HasDuplicate<bfloat16_t>::value);  // bf16 is storage: fills exist
}

TEST_F(VectorTest, KernelsCanTakeLevel0FunctionPointers) {
  void (*mul)(const LocalTensor<float>&, const LocalTensor<float>&, const LocalTensor<float>&, uint64_t, uint8_t,
              const BinaryRepeatParams&) = &Mul<float>;
  auto x = At<float>(0, 64), y = At<float>(256, 64);
  for (int i = 0; i < 64; ++i) Ptr<float>(0)[i] = 3.0f;
  mul(y, x, x, 64, 1, BinaryRepeatParams());
  EXPECT_EQ(Ptr<float>(256)[63], 9.0f);
}

// float count form: every binary op, bit-exact against the same IEEE op.
TEST_F(VectorTest, FloatBinaryCountForm) {
  const int n = 1000;  // not a multiple of 64: a partial last repeat
  auto a = At<float>(0, n), b = At<float>(4096, n), d = At<float>(8192, n);
  for (int i = 0; i < n; ++i) {
    Ptr<float>(0)[i] = std::sin(i * 0.37f) * 100.0f;
    Ptr<float>(4096)[i] = std::cos(i * 0.11f) * 3.0f + 0.001f;
  }
  const float* x = Ptr<float>(0);
  const float* y = Ptr<float>(4096);
  const float* r = Ptr<float>(8192);
  Add(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] + y[i])) << i;
  Sub(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] - y[i])) << i;
  Mul(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] * y[i])) << i;
  Div(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] / y[i])) << i;
  Max(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], std::fmax(x[i], y[i])) << i;
  Min(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], std::fmin(x[i], y[i])) << i;
  EXPECT_EQ(ctx_.counters.vecInstr, 6u);
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 5u * 16);  // ceil(1000 * 4 / 256) = 16
  EXPECT_EQ(Repeats(sim::OpClass::kTranscendental), 16u);   // Div
}

// The training series (dav-c100) has no counter mode for count forms: CANN's implementation issues one
// instruction per 255 full repeats, one for the other full repeats and one for the tail lanes
// (AscendCUtils::CalIntriInfo); A2/A3 issue one instruction in counter mode. The repeats are the same.
TEST_F(VecTest, CountFormInstructionsAreThoseCannsImplementationIssues) {
  struct Want {
    int count;
    uint64_t a2, training;
  };
  // 64 float lanes a repeat: 1000 = 15 full + 40; 19200 = 300 full (255 + 45); 19201 adds a tail.
  for (const Want& w : {Want{64, 1, 1}, Want{1000, 1, 2}, Want{19200, 1, 2}, Want{19201, 1, 3}, Want{40, 1, 1}}) {
    for (const char* soc : {"ascend910b", "ascend910"}) {
      UseSoc(soc);
      LocalTensor<float> a = At<float>(0, 19264), d = At<float>(80 * 1024, 19264);
      Adds(d, a, 1.0f, w.count);
      EXPECT_EQ(ctx_.counters.vecInstr, std::string(soc) == "ascend910" ? w.training : w.a2)
          << soc << " count " << w.count;
      EXPECT_EQ(Repeats(sim::OpClass::kElementwise), (w.count * 4u + 255) / 256) << soc << " count " << w.count;
    }
  }
}

// Front end A issues its vector work to the instruction-level model (ascendc/isa_issue.h): the model
// executes and counts exactly the instructions A's cost counters see, and a count form leaves the
// model's mask register as CANN's implementation does (normal mode, every lane).
TEST_F(VecTest, VectorCallsRunOnTheInstructionModel) {
  for (const char* soc : {"ascend910b", "ascend910"}) {
    UseSoc(soc);
    LocalTensor<float> a = At<float>(0, 19264), d = At<float>(80 * 1024, 19264);
    for (int i = 0; i < 19201; ++i) Ptr<float>(0)[i] = static_cast<float>(i);
    SetMaskCount();
    Adds(d, a, 0.5f, 19201);
    const normgrad::isa::State& model = normgrad::isa::Core();
    EXPECT_EQ(model.counters.vecInstr, ctx_.counters.vecInstr) << soc;
    EXPECT_EQ(model.counters.instr[PIPE_V], std::string(soc) == "ascend910" ? 3u : 1u) << soc;
    EXPECT_FALSE(model.counterMode) << soc;
    EXPECT_EQ(model.maskLo, ~0ull) << soc;
    EXPECT_EQ(model.maskHi, ~0ull) << soc;
    EXPECT_EQ(Ptr<float>(80 * 1024)[19200], 19200.5f) << soc;
  }
}

// A violation only the model sees fails the kernel like an API rule, naming the instruction. (Front end A
// checks every UB operand itself, so the model skips its UB checks there; this test turns them back on.)
TEST_F(VecTest, TheModelsViolationsFailTheKernel) {
  EXPECT_TRUE(normgrad::isa::Core().operandsChecked);
  normgrad::isa::RegisterUb(ctx_.ub.data(), ctx_.ub.size(), /*operandsChecked=*/false);
  float outside[64] = {};
  try {
    normgrad::isa::VecDup(normgrad::isa::Elem::kF32, outside, 0, normgrad::isa::VecStrides());
    FAIL() << "no violation";
  } catch (const sim::SimError& e) {
    EXPECT_NE(std::string(e.what()).find("instruction model: vector_dup: dst"), std::string::npos) << e.what();
  }
}

// SetFlag / WaitFlag set and wait the model's flag register on (source pipe, destination pipe, id).
TEST_F(VecTest, EventFlagsAreTheModelsRegister) {
  SetFlag<HardEvent::MTE2_V>(3);
  EXPECT_EQ(normgrad::isa::Core().flags[PIPE_MTE2][PIPE_V][3], 1u);
  EXPECT_EQ(sim::OutstandingFlags(static_cast<int>(HardEvent::MTE2_V), 3), 1u);
  WaitFlag<HardEvent::MTE2_V>(3);
  EXPECT_EQ(normgrad::isa::Core().flags[PIPE_MTE2][PIPE_V][3], 0u);
}

TEST_F(VectorTest, FloatScalarAndUnaryCountForms) {
  const int n = 300;
  auto a = At<float>(0, n), d = At<float>(2048, n);
  for (int i = 0; i < n; ++i) Ptr<float>(0)[i] = 0.05f + i * 0.173f;
  const float* x = Ptr<float>(0);
  const float* r = Ptr<float>(2048);
  Adds(d, a, 0.1f, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] + 0.1f));
  Muls(d, a, -3.3f, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(x[i] * -3.3f));
  Maxs(d, a, 20.0f, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], std::fmax(x[i], 20.0f));
  Mins(d, a, 20.0f, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], std::fmin(x[i], 20.0f));
  // Correctly rounded references: the double result rounded once to float.
  Exp(d, a, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(static_cast<float>(std::exp(double{x[i]}))));
  Ln(d, a, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(static_cast<float>(std::log(double{x[i]}))));
  Sqrt(d, a, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(std::sqrt(x[i])));
  Rsqrt(d, a, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(static_cast<float>(1.0 / std::sqrt(double{x[i]}))));
  Reciprocal(d, a, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(FBits(r[i]), FBits(1.0f / x[i]));
  Muls(d, a, -1.0f, n);
  Abs(d, d, n);  // in place: 100 % overlap is legal
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], x[i]);
  EXPECT_EQ(Repeats(sim::OpClass::kTranscendental), 5u * 5);  // ceil(300 * 4 / 256) = 5
}

TEST_F(VectorTest, IntegerOpsWrap) {
  auto a = At<int32_t>(0, 8), b = At<int32_t>(64, 8), d = At<int32_t>(128, 8);
  Ptr<int32_t>(0)[0] = 2147483647;
  Ptr<int32_t>(64)[0] = 1;
  Ptr<int32_t>(0)[1] = -7;
  Ptr<int32_t>(64)[1] = 3;
  Add(d, a, b, 2);
  EXPECT_EQ(Ptr<int32_t>(128)[0], -2147483647 - 1);
  EXPECT_EQ(Ptr<int32_t>(128)[1], -4);
  Mul(d, a, b, 2);
  EXPECT_EQ(Ptr<int32_t>(128)[1], -21);
  auto s = At<int16_t>(256, 16), t = At<int16_t>(288, 16);
  Ptr<int16_t>(256)[0] = 30000;
  Muls(t, s, int16_t{3}, 1);
  EXPECT_EQ(Ptr<int16_t>(288)[0], static_cast<int16_t>(90000 - 65536 * 2));
  Maxs(t, s, int16_t{31000}, 1);
  EXPECT_EQ(Ptr<int16_t>(288)[0], 31000);
}

// half: exact result rounded once to half, then saturated (inf -> 65504, NaN -> 0).
TEST_F(VectorTest, HalfArithmeticRoundsOnceAndSaturates) {
  const int n = 7;
  auto a = At<half>(0, 16), b = At<half>(32, 16), d = At<half>(64, 16);
  const double xs[n] = {1.0, 60000.0, -300.0, 2049.0 / 2048, 0.1, 65504.0, 3.0};
  const double ys[n] = {std::ldexp(1.0, -11), 60000.0, 300.0, std::ldexp(1.0, -11), 0.2, 16.0, 7.0};
  for (int i = 0; i < n; ++i) {
    Ptr<half>(0)[i] = H(xs[i]);
    Ptr<half>(32)[i] = H(ys[i]);
  }
  auto hv = [&](int base, int i) { return HalfValue(Bits(Ptr<half>(base)[i])); };
  Add(d, a, b, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(hv(0, i) + hv(32, i))) << i;
  EXPECT_EQ(Bits(Ptr<half>(64)[0]), 0x3c00);  // 1 + 2^-11 is a tie: even -> 1.0
  EXPECT_EQ(Bits(Ptr<half>(64)[1]), 0x7bff);  // 120000 saturates to 65504
  Mul(d, a, b, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(hv(0, i) * hv(32, i))) << i;
  EXPECT_EQ(Bits(Ptr<half>(64)[2]), 0xfbff);  // -90000 -> -65504
  Div(d, a, b, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(hv(0, i) / hv(32, i))) << i;
  Exp(d, a, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(std::exp(hv(0, i)))) << i;
  Sqrt(d, b, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(std::sqrt(hv(32, i)))) << i;
  // inf - inf is NaN: saturation mode turns it into 0; inf alone becomes 65504.
  Ptr<half>(0)[0] = half::FromBits(0x7c00);
  Sub(d, a, a, 1);
  EXPECT_EQ(Bits(Ptr<half>(64)[0]), 0x0000);
  Abs(d, a, 1);
  EXPECT_EQ(Bits(Ptr<half>(64)[0]), 0x7bff);
  Adds(d, b, H(0.5), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(Bits(Ptr<half>(64)[i]), RefHalfSat(hv(32, i) + 0.5)) << i;
}

TEST_F(VectorTest, HalfAddExhaustiveAgainstExactRounding) {
  // Every positive finite half x plus a fixed set of addends, including ties and cancellation.
  const int n = 0x7c00;
  auto a = At<half>(0, n), b = At<half>(0x10000, n), d = At<half>(0x20000, n);
  for (double addend : {1.0, -1.0, std::ldexp(1.0, -24), 1000.5, -65504.0}) {
    for (int i = 0; i < n; ++i) {
      Ptr<half>(0)[i] = half::FromBits(static_cast<uint16_t>(i));
      Ptr<half>(0x10000)[i] = H(addend);
    }
    Add(d, a, b, n);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(Bits(Ptr<half>(0x20000)[i]), RefHalfSat(HalfValue(static_cast<uint16_t>(i)) + addend))
          << i << " + " << addend;
    }
  }
}

// Reference for lane l of repeat r (docs/hardware-rules.md §4), written out independently.
uint32_t LaneByte(uint32_t r, uint32_t l, uint32_t size, uint32_t blk, uint32_t rep) {
  return (r * rep + (l * size / 32) * blk) * 32 + (l * size) % 32;
}

TEST_F(VectorTest, Level0ContinuousMaskWithStridesAndBroadcast) {
  // src1 block stride 0 re-reads one block; src1 repeat stride 1 moves it one block per repeat.
  const uint32_t A = 0, B = 8192, D = 16384;
  for (int i = 0; i < 2048; ++i) {
    Ptr<float>(A)[i] = static_cast<float>(i);
    Ptr<float>(B)[i] = 1000.0f * i;
    Ptr<float>(D)[i] = -1.0f;
  }
  BinaryRepeatParams p(1, 2, 0, 8, 16, 1);
  Add(At<float>(D, 2048), At<float>(A, 2048), At<float>(B, 2048), 40, 3, p);
  for (uint32_t r = 0; r < 3; ++r) {
    for (uint32_t l = 0; l < 64; ++l) {
      float got = Ptr<float>(D)[LaneByte(r, l, 4, 1, 8) / 4];
      if (l < 40) {
        float want = Ptr<float>(A)[LaneByte(r, l, 4, 2, 16) / 4] + Ptr<float>(B)[LaneByte(r, l, 4, 0, 1) / 4];
        ASSERT_EQ(got, want) << r << "," << l;
      } else {
        ASSERT_EQ(got, -1.0f) << "inactive lane " << r << "," << l << " changed";
      }
    }
  }
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 3u);
}

TEST_F(VectorTest, Level0BitwiseMaskHalfUsesBothWords) {
  const uint32_t A = 0, D = 4096;
  for (int i = 0; i < 512; ++i) {
    Ptr<half>(A)[i] = H(i);
    Ptr<half>(D)[i] = H(-1);
  }
  uint64_t mask[2] = {0x8000000000000001ull, 0x8000000000000002ull};  // lanes 0, 63, 65, 127
  // Repeat stride 0 on dst: both repeats write the same 8 blocks, the later one wins.
  Muls(At<half>(D, 512), At<half>(A, 512), H(2), mask, 2, UnaryRepeatParams(1, 1, 0, 8));
  const half* d = Ptr<half>(D);
  EXPECT_EQ(HalfValue(Bits(d[0])), 2.0 * 128);
  EXPECT_EQ(HalfValue(Bits(d[63])), 2.0 * 191);
  EXPECT_EQ(HalfValue(Bits(d[65])), 2.0 * 193);
  EXPECT_EQ(HalfValue(Bits(d[127])), 2.0 * 255);
  EXPECT_EQ(HalfValue(Bits(d[1])), -1.0);
  EXPECT_EQ(HalfValue(Bits(d[64])), -1.0);
}

TEST_F(VectorTest, Level0AccumulatesThroughRepeatStrideZero) {
  // dst = dst + src0 with dst and src1 the same 64 floats: rows of src0 summed in repeat order.
  const uint32_t A = 0, D = 4096;
  for (int i = 0; i < 256; ++i) Ptr<float>(A)[i] = static_cast<float>(i % 64 + 1);
  for (int i = 0; i < 64; ++i) Ptr<float>(D)[i] = 0.5f;
  auto d = At<float>(D, 64);
  Add(d, At<float>(A, 256), d, 64, 4, BinaryRepeatParams(1, 1, 1, 0, 8, 0));
  for (int l = 0; l < 64; ++l) EXPECT_EQ(Ptr<float>(D)[l], 0.5f + 4.0f * (l + 1)) << l;
}

TEST_F(VectorTest, AxpyAllTypePairs) {
  auto xf = At<float>(0, 64), df = At<float>(256, 64);
  for (int i = 0; i < 64; ++i) {
    Ptr<float>(0)[i] = 0.1f * i;
    Ptr<float>(256)[i] = 1.0f;
  }
  Axpy(df, xf, 3.0f, 64);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(FBits(Ptr<float>(256)[i]), FBits(3.0f * (0.1f * i) + 1.0f));
  auto xh = At<half>(512, 128), dh = At<half>(768, 128);
  for (int i = 0; i < 128; ++i) {
    Ptr<half>(512)[i] = H(i * 7.25);
    Ptr<half>(768)[i] = H(0.3);
  }
  Axpy(dh, xh, H(1.5), 128);
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(Bits(Ptr<half>(768)[i]), RefHalfSat(1.5 * HalfValue(Bits(H(i * 7.25))) + HalfValue(Bits(H(0.3)))));
  }
  // half -> float: 64 lanes per repeat; src uses 4 blocks per repeat (srcRepStride 4).
  auto dm = At<float>(1024, 128);
  for (int i = 0; i < 128; ++i) Ptr<float>(1024)[i] = 2.0f;
  Axpy(dm, xh, H(0.5), 64, 2, UnaryRepeatParams(1, 1, 8, 4));
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(Ptr<float>(1024)[i], 2.0f + 0.5f * static_cast<float>(HalfValue(Bits(H(i * 7.25))))) << i;
  }
  EXPECT_NE(FailMessage([&] { Axpy(xh.ReinterpretCast<float>(), xh, H(1), 32); }).find("forbids any overlap"),
            std::string::npos);
}

TEST_F(VectorTest, DuplicateCountAndLevel0) {
  auto d = At<float>(0, 256);
  Duplicate(d, 2.5f, 100);
  EXPECT_EQ(Ptr<float>(0)[99], 2.5f);
  EXPECT_EQ(Ptr<float>(0)[100], 0.0f);
  // 2 repeats, 8 lanes (one block) each, block stride 1, repeat stride 2 blocks.
  Duplicate(d, -1.0f, 8, 2, 1, 2);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(Ptr<float>(0)[i], -1.0f);
  EXPECT_EQ(Ptr<float>(0)[8], 2.5f);
  EXPECT_EQ(Ptr<float>(0)[16], -1.0f);
  auto bf = At<bfloat16_t>(1024, 32);
  Duplicate(bf, bfloat16_t::FromBits(0x3f80), 32);  // bf16 moves bits, no arithmetic
  EXPECT_EQ(Ptr<bfloat16_t>(1024)[31].bits, 0x3f80);
}

TEST_F(VectorTest, BrcbFillsOneBlockPerSourceElement) {
  auto src = At<float>(0, 16), dst = At<float>(1024, 128);
  for (int i = 0; i < 16; ++i) Ptr<float>(0)[i] = static_cast<float>(i + 1);
  Brcb(dst, src, 2, BrcbRepeatParams(1, 8));
  for (int j = 0; j < 16; ++j) {
    for (int k = 0; k < 8; ++k) ASSERT_EQ(Ptr<float>(1024)[j * 8 + k], j + 1.0f);
  }
  EXPECT_NE(FailMessage([&] { Brcb(src, src, 1, BrcbRepeatParams(1, 8)); }).find("Brcb"), std::string::npos);
  UseSoc("ascend910");
  EXPECT_NE(FailMessage([&] { Brcb(At<float>(1024, 128), At<float>(0, 16), 1, BrcbRepeatParams(1, 8)); })
                .find("Brcb: Brcb is not available on ascend910"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { Duplicate(At<bfloat16_t>(0, 16), bfloat16_t::FromBits(0), 16); })
                .find("bfloat16_t is not supported on ascend910"),
            std::string::npos);
}

TEST_F(VectorTest, ChecksFireWithTheirValues) {
  auto a = At<float>(0, 64), b = At<float>(256, 64);
  EXPECT_NE(FailMessage([&] { Add(At<float>(260, 8), a, a, 8); }).find("Add: dst UB address 260 is not 32-byte aligned"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { Add(b, a, a, 65); }).find("Add: count 65 exceeds dst of 64 elements"), std::string::npos);
  EXPECT_NE(FailMessage([&] { Exp(b, a, -1); }).find("Exp: count -1 is negative"), std::string::npos);
  // Level 0: two repeats of 8 blocks need 128 floats.
  EXPECT_NE(FailMessage([&] { Adds(b, a, 1.0f, 64, 2, UnaryRepeatParams()); })
                .find("Adds: dst: active lanes reach byte 512 but the tensor has 256 bytes"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { Adds(b, a, 1.0f, 64, 1, UnaryRepeatParams(0, 1, 8, 8)); })
                .find("Adds: dstBlkStride is 0"),
            std::string::npos);
  auto big = At<float>(0, 256);
  EXPECT_NE(FailMessage([&] { Add(At<float>(32, 64), big, big, 64); }).find("partially overlaps src0"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { Adds(At<float>(32, 64), big, 1.0f, 16, 1, UnaryRepeatParams()); })
                .find("Adds: dst and src partially overlap in repeat 0"),
            std::string::npos);
  // Identical operands (100 % overlap) are legal in both forms.
  Adds(big, big, 1.0f, 64, 4, UnaryRepeatParams());
  Adds(big, big, 1.0f, 256);
  EXPECT_EQ(Ptr<float>(0)[255], 2.0f);
}

TEST_F(VectorTest, CountersPerClass) {
  auto a = At<half>(0, 1000), d = At<half>(4096, 1000);
  Exp(d, a, 1000);           // ceil(1000 * 2 / 256) = 8
  Adds(d, a, H(1), 1000);    // 8
  Duplicate(d, H(0), 129);   // ceil(258 / 256) = 2
  Cast(At<float>(8192, 1000), a, RoundMode::CAST_NONE, 1000);  // widest 4 bytes: 16
  EXPECT_EQ(ctx_.counters.vecInstr, 4u);
  EXPECT_EQ(Repeats(sim::OpClass::kTranscendental), 8u);
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 10u);
  EXPECT_EQ(Repeats(sim::OpClass::kCast), 16u);
}

}  // namespace
}  // namespace vectest
