// MulAddDst (dst = src0 * src1 + dst) and FusedMulAdd (dst = src0 * dst + src1): count and both
// level-0 forms against references written here, the level-0 strides (a Brcb'd per-row scalar with
// block stride 0, an accumulator with repeat stride 0), the operand checks, the counters and the
// SoC gate. Tolerances: none. float results are compared bit for bit with the product rounded and
// then the sum (two IEEE roundings, as the simulator documents); half with the exact a*b + c
// rounded once to nearest even and saturated.
#include <type_traits>
#include <utility>

#include "vec_fixture.h"

namespace vectest {
namespace {

using namespace AscendC;
using MulAddTest = VecTest;

float Unfused(float a, float b, float c) {
  volatile float p = a * b;  // rounded to float before the sum
  return p + c;
}

template <typename T, typename = void>
struct HasMulAddDst : std::false_type {};
template <typename T>
struct HasMulAddDst<T, std::void_t<decltype(MulAddDst(std::declval<const LocalTensor<T>&>(),
                                                      std::declval<const LocalTensor<T>&>(),
                                                      std::declval<const LocalTensor<T>&>(),
                                                      std::declval<const int32_t&>()))>> : std::true_type {};
template <typename T, typename = void>
struct HasFusedMulAdd : std::false_type {};
template <typename T>
struct HasFusedMulAdd<T, std::void_t<decltype(FusedMulAdd(std::declval<const LocalTensor<T>&>(),
                                                          std::declval<const LocalTensor<T>&>(),
                                                          std::declval<const LocalTensor<T>&>(),
                                                          std::declval<const int32_t&>()))>> : std::true_type {};

TEST(MulAddTypes, HalfAndFloatOnly) {
  EXPECT_TRUE(HasMulAddDst<float>::value);
  EXPECT_TRUE(HasMulAddDst<half>::value);
  EXPECT_FALSE(HasMulAddDst<bfloat16_t>::value);
  EXPECT_FALSE(HasMulAddDst<int32_t>::value);
  EXPECT_TRUE(HasFusedMulAdd<float>::value);
  EXPECT_TRUE(HasFusedMulAdd<half>::value);
  EXPECT_FALSE(HasFusedMulAdd<bfloat16_t>::value);
}

TEST_F(MulAddTest, MulAddDstCountFormFloatAndHalf) {
  const uint32_t A = 0, B = 1024, D = 2048;
  for (int i = 0; i < 200; ++i) {
    Ptr<float>(A)[i] = 0.1f * i - 3.0f;
    Ptr<float>(B)[i] = 1.0f / (i + 3);
    Ptr<float>(D)[i] = 0.7f * i;
  }
  MulAddDst(At<float>(D, 200), At<float>(A, 200), At<float>(B, 200), 150);
  for (int i = 0; i < 200; ++i) {
    const float a = 0.1f * i - 3.0f, b = 1.0f / (i + 3), d = 0.7f * i;
    ASSERT_EQ(FBits(Ptr<float>(D)[i]), FBits(i < 150 ? Unfused(a, b, d) : d)) << i;
  }
  EXPECT_EQ(ctx_.counters.vecInstr, 1u);
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 3u);  // 150 floats: ceil(600 / 256)
  const uint32_t HA = 4096, HB = 4352, HD = 4608;
  for (int i = 0; i < 128; ++i) {
    Ptr<half>(HA)[i] = H(i * 0.75 - 40);
    Ptr<half>(HB)[i] = H(1.0 + i / 64.0);
    Ptr<half>(HD)[i] = H(0.3 * i);
  }
  MulAddDst(At<half>(HD, 128), At<half>(HA, 128), At<half>(HB, 128), 128);
  for (int i = 0; i < 128; ++i) {
    const double exact = HalfValue(Bits(H(i * 0.75 - 40))) * HalfValue(Bits(H(1.0 + i / 64.0))) +
                         HalfValue(Bits(H(0.3 * i)));
    ASSERT_EQ(Bits(Ptr<half>(HD)[i]), RefHalfSat(exact)) << i;
  }
}

TEST_F(MulAddTest, FusedMulAddCountFormMultipliesDst) {
  const uint32_t A = 0, B = 512, D = 1024;
  for (int i = 0; i < 64; ++i) {
    Ptr<float>(A)[i] = 1.5f + i;
    Ptr<float>(B)[i] = -0.25f * i;
    Ptr<float>(D)[i] = 0.1f * i;
  }
  FusedMulAdd(At<float>(D, 64), At<float>(A, 64), At<float>(B, 64), 64);
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(FBits(Ptr<float>(D)[i]), FBits(Unfused(1.5f + i, 0.1f * i, -0.25f * i))) << i;
  }
  // In place: dst = dst * dst + dst.
  for (int i = 0; i < 64; ++i) Ptr<float>(D)[i] = 0.5f * i;
  FusedMulAdd(At<float>(D, 64), At<float>(D, 64), At<float>(D, 64), 64);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(FBits(Ptr<float>(D)[i]), FBits(Unfused(0.5f * i, 0.5f * i, 0.5f * i)));
}

TEST_F(MulAddTest, Level0RowScalarsAndColumnAccumulator) {
  // 3 rows of 16 floats (2 blocks, repeat stride 2): FusedMulAdd with Brcb-style per-row blocks
  // (block stride 0, repeat stride 1): dst = s[r] * dst + t[r]; then MulAddDst into one 16-float
  // accumulator (repeat stride 0): acc += x[r] * y[r] over the rows in order.
  const uint32_t X = 0, S = 512, T = 1024, ACC = 1536, Y = 2048;
  for (int r = 0; r < 3; ++r) {
    for (int l = 0; l < 8; ++l) {
      Ptr<float>(S)[r * 8 + l] = 2.0f + r;
      Ptr<float>(T)[r * 8 + l] = -1.0f * r;
    }
    for (int c = 0; c < 16; ++c) {
      Ptr<float>(X)[r * 16 + c] = 0.5f * c + r;
      Ptr<float>(Y)[r * 16 + c] = 0.25f * (c + 1);
    }
  }
  for (int c = 0; c < 16; ++c) Ptr<float>(ACC)[c] = 1.0f;
  FusedMulAdd(At<float>(X, 48), At<float>(S, 24), At<float>(T, 24), 16, 3, BinaryRepeatParams(1, 0, 0, 2, 1, 1));
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 16; ++c) {
      ASSERT_EQ(FBits(Ptr<float>(X)[r * 16 + c]), FBits(Unfused(2.0f + r, 0.5f * c + r, -1.0f * r))) << r << c;
    }
  }
  uint64_t mask[2] = {0xffffull, 0};
  MulAddDst(At<float>(ACC, 16), At<float>(X, 48), At<float>(Y, 48), mask, 3, BinaryRepeatParams(1, 1, 1, 0, 2, 2));
  for (int c = 0; c < 16; ++c) {
    float acc = 1.0f;
    for (int r = 0; r < 3; ++r) acc = Unfused(Ptr<float>(X)[r * 16 + c], 0.25f * (c + 1), acc);
    ASSERT_EQ(FBits(Ptr<float>(ACC)[c]), FBits(acc)) << c;
  }
  EXPECT_EQ(ctx_.counters.vecInstr, 2u);
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 6u);
}

TEST_F(MulAddTest, ChecksOperandsAndSoc) {
  EXPECT_NE(FailMessage([&] { MulAddDst(At<float>(0, 64), At<float>(32, 64), At<float>(512, 64), 64); })
                .find("partially overlaps"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { FusedMulAdd(At<float>(0, 32), At<float>(256, 64), At<float>(512, 64), 64); })
                .find("exceeds"),
            std::string::npos);
  UseSoc("ascend910");
  EXPECT_NE(FailMessage([&] { MulAddDst(At<float>(0, 64), At<float>(256, 64), At<float>(512, 64), 64); })
                .find("MulAddDst is not available on ascend910"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { FusedMulAdd(At<float>(0, 64), At<float>(256, 64), At<float>(512, 64), 64); })
                .find("FusedMulAdd is not available on ascend910"),
            std::string::npos);
}

}  // namespace
}  // namespace vectest
