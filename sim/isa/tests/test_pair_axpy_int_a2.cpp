// vcpadd, the mixed half -> float vaxpy and the conversions with an integer operand on dav-c220,
// against values worked out by hand from the C-API pages (asc_pair_reduce_sum's example) and the
// documented rounding of each suffix.
#include <climits>

#include "test_support.h"

namespace isa_test {
namespace {

using PairAxpyIntA2 = Model;

// Bits of the half equal to the integer n, 1 <= n <= 2048 (exact): 2^e * (1 + m / 2^10).
uint16_t IntHalfBits(int n) {
  int e = 0;
  while ((n >> (e + 1)) != 0) ++e;
  return static_cast<uint16_t>(((e + 15) << 10) | ((n - (1 << e)) << (10 - e)));
}

// asc_pair_reduce_sum's example: 256 halves 1..256, 2 repeats, dst_repeat_stride 1 (half a repeat):
// [1 + 2, 3 + 4, ..., 255 + 256] = [3, 7, ..., 511] in 128 consecutive elements.
TEST_F(PairAxpyIntA2, VcpaddDocExample) {
  half* s = Ub<half>(0);
  half* d = Ub<half>(1024);
  for (int i = 0; i < 256; ++i) SetHalfBits(s + i, IntHalfBits(i + 1));
  set_vector_mask(~0ull, ~0ull);
  vcpadd(d, s, 2, 1, 1, 8);
  for (int k = 0; k < 128; ++k) ASSERT_EQ(HalfBits(d + k), IntHalfBits(4 * k + 3)) << k;
  EXPECT_TRUE(Violations().empty());
}

// Float, lanes 0..2 active, dstRep 2 (one repeat apart): pair 0 = 1 + 2, pair 1 = 3 + (inactive) 0, pair 2
// and later untouched; repeat 1 writes at element 2 * 32 = 64.
TEST_F(PairAxpyIntA2, VcpaddMaskAndDstStride) {
  float* s = Ub<float>(0);
  float* d = Ub<float>(2048);
  for (int i = 0; i < 128; ++i) s[i] = static_cast<float>(i + 1);
  for (int i = 0; i < 128; ++i) d[i] = -1.0f;
  set_vector_mask(0, 0x7);
  vcpadd(d, s, 2, 2, 1, 8);
  EXPECT_EQ(d[0], 3.0f);
  EXPECT_EQ(d[1], 3.0f);
  EXPECT_EQ(d[2], -1.0f);
  EXPECT_EQ(d[64], 65.0f + 66.0f);
  EXPECT_EQ(d[65], 67.0f);
  EXPECT_EQ(d[66], -1.0f);
  set_vector_mask(~0ull, ~0ull);
  vcpadd(Ub<float>(2056), s, 1, 1, 1, 8);  // dst must be 32-byte aligned
  EXPECT_TRUE(Violated("vcpadd"));
}

// Axpy<float, half>: 64 lanes a repeat, src repeats 4 blocks apart (the count form's strides). (1 + 2^-10)^2 =
// 1 + 2^-9 + 2^-20 is exact in float (a half product would round it to 1 + 2^-9); + dst 1 gives
// 2 + 2^-9 + 2^-20, which float rounds to even at 2^-22 ulp: exact (2^-20 is a multiple of 2^-22).
TEST_F(PairAxpyIntA2, MixedVaxpyProductExactInFloat) {
  half* s = Ub<half>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 128; ++i) SetHalfBits(s + i, i < 64 ? 0x3c01 : 0x4000);  // 1 + 2^-10, then 2
  for (int i = 0; i < 128; ++i) d[i] = 1.0f;
  half x;
  SetHalfBits(&x, 0x3c01);
  set_vector_mask(~0ull, ~0ull);
  vaxpy(d, s, x, 2, 1, 1, 8, 4);
  const float e = 1.0f + std::ldexp(1.0f, -10);
  EXPECT_EQ(d[0], 2.0f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -20));
  EXPECT_EQ(d[63], d[0]);
  EXPECT_EQ(d[64], 1.0f + 2.0f * e);  // repeat 1 reads src[64, 128)
  EXPECT_EQ(d[127], d[64]);
  EXPECT_TRUE(Violations().empty());
}

// Runs one conversion on one repeat of n lanes (widest 4 bytes: dst and src repeat 8 blocks apart for 32-bit
// elements, 4 for 16-bit ones).
template <typename T>
struct Id {
  using type = T;
};
template <typename To, typename From>
using ConvFn = typename Id<void (*)(To*, From*, uint8_t, uint16_t, uint16_t, uint8_t, uint8_t)>::type;
template <typename To, typename From>
void Conv1(ConvFn<To, From> conv, To* d, From* s, int n) {
  set_vector_mask(0, (1ull << n) - 1);
  conv(d, s, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(sizeof(To) * 8 / 4), uint8_t(sizeof(From) * 8 / 4));
}

TEST_F(PairAxpyIntA2, FloatToInt32EachSuffix) {
  float* s = Ub<float>(0);
  int32_t* d = Ub<int32_t>(1024);
  const float in[6] = {2.5f, -2.5f, 3.7f, 3e10f, -3e10f, NAN};
  for (int i = 0; i < 6; ++i) s[i] = in[i];
  struct Case {
    const char* name;
    void (*fn)(int32_t*, float*, uint8_t, uint16_t, uint16_t, uint8_t, uint8_t);
    int32_t want[6];
  };
  const Case cases[] = {
      {"r", vconv_f322s32r, {2, -2, 4, INT_MAX, INT_MIN, 0}}, {"f", vconv_f322s32f, {2, -3, 3, INT_MAX, INT_MIN, 0}},
      {"c", vconv_f322s32c, {3, -2, 4, INT_MAX, INT_MIN, 0}}, {"a", vconv_f322s32a, {3, -3, 4, INT_MAX, INT_MIN, 0}},
      {"z", vconv_f322s32z, {2, -2, 3, INT_MAX, INT_MIN, 0}},
  };
  for (const Case& c : cases) {
    Conv1(c.fn, d, s, 6);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(d[i], c.want[i]) << c.name << " " << i;
  }
}

TEST_F(PairAxpyIntA2, NarrowAndWideIntegerConversions) {
  // half -> int8 / uint8 (no suffix: to nearest even), saturating: 200 -> 127, -3.5 -> -4, -1 -> 0 (u8).
  half* h = Ub<half>(0);
  SetHalfBits(h, 0x5a40);      // 200
  SetHalfBits(h + 1, 0xc300);  // -3.5
  SetHalfBits(h + 2, 0xbc00);  // -1
  int8_t* d8 = Ub<int8_t>(1024);
  Conv1(vconv_f162s8, d8, h, 3);
  EXPECT_EQ(d8[0], 127);
  EXPECT_EQ(d8[1], -4);
  EXPECT_EQ(d8[2], -1);
  uint8_t* u8 = Ub<uint8_t>(2048);
  Conv1(vconv_f162u8, u8, h, 3);
  EXPECT_EQ(u8[0], 200);
  EXPECT_EQ(u8[2], 0);
  // int32 -> int16 saturates; int8 -> half is exact (-128 = 0xd800).
  int32_t* i32 = Ub<int32_t>(4096);
  i32[0] = 40000;
  i32[1] = -7;
  int16_t* i16 = Ub<int16_t>(5120);
  Conv1(vconv_s322s16, i16, i32, 2);
  EXPECT_EQ(i16[0], 32767);
  EXPECT_EQ(i16[1], -7);
  int8_t* s8 = Ub<int8_t>(6144);
  s8[0] = -128;
  half* hd = Ub<half>(7168);
  Conv1(vconv_s82f16, hd, s8, 1);
  EXPECT_EQ(HalfBits(hd), 0xd800);
  // int64 -> float rounds once: 2^24 + 1 is a tie between 2^24 and 2^24 + 2.
  int64_t* i64 = Ub<int64_t>(8192);
  i64[0] = (1ll << 24) + 1;
  i64[1] = -(1ll << 40);
  float* f = Ub<float>(9216);
  set_vector_mask(0, 0x3);
  vconv_s642f32z(f, i64, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
  EXPECT_EQ(f[0], 16777216.0f);
  vconv_s642f32c(f, i64, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
  EXPECT_EQ(f[0], 16777218.0f);
  EXPECT_EQ(f[1], -1099511627776.0f);
  int32_t* n32 = Ub<int32_t>(10240);
  vconv_s642s32(n32, i64, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
  EXPECT_EQ(n32[0], (1 << 24) + 1);
  EXPECT_EQ(n32[1], INT_MIN);
  // float -> float rounds to an integral value: 2.5 -> 3 (a), 2 (r).
  float* g = Ub<float>(11264);
  g[0] = 2.5f;
  Conv1(vconv_f322f32a, f, g, 1);
  EXPECT_EQ(f[0], 3.0f);
  Conv1(vconv_f322f32r, f, g, 1);
  EXPECT_EQ(f[0], 2.0f);
  EXPECT_TRUE(Violations().empty());
}

}  // namespace
}  // namespace isa_test
