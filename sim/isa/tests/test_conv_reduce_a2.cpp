// Conversions with each rounding suffix and the reductions on dav-c220, against values worked
// out by hand and an independent recursive pairwise sum.
#include "test_support.h"

namespace isa_test {
namespace {

using ConvReduceA2 = Model;

// Pairwise sum over v[0, n) (n a power of two), written recursively.
float PairwiseSum(const float* v, int n) {
  if (n == 1) return v[0];
  return PairwiseSum(v, n / 2) + PairwiseSum(v + n / 2, n / 2);
}

// Converts src[0..n) with one vconv variant, one repeat under a mask of n lanes.
template <typename Conv>
void RunConv(Conv conv, half* d, float* s, int n) {
  set_vector_mask(0, (1ull << n) - 1);
  conv(d, s, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
}

TEST_F(ConvReduceA2, F32ToF16EachSuffix) {
  float* s = Ub<float>(0);
  half* d = Ub<half>(1024);
  const float tie = 1.0f + std::ldexp(1.0f, -11);      // halfway between 1 and 1 + 2^-10
  const float above = 1.0f + 3 * std::ldexp(1.0f, -12);  // 3/4 of the way
  const float in[6] = {tie, -tie, above, 70000.0f, -70000.0f, 2.5f};
  for (int i = 0; i < 6; ++i) s[i] = in[i];
  struct Case {
    const char* name;
    void (*fn)(half*, float*, uint8_t, uint16_t, uint16_t, uint8_t, uint8_t);
    uint16_t want[6];
  };
  // 1.0 = 0x3c00, 1 + 2^-10 = 0x3c01, 1 + 2^-9 = 0x3c02, 65504 = 0x7bff, 2.5 = 0x4100 (exact).
  const Case cases[] = {
      {"r", vconv_f322f16r, {0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x4100}},
      {"none", vconv_f322f16, {0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x4100}},
      {"a", vconv_f322f16a, {0x3c01, 0xbc01, 0x3c01, 0x7bff, 0xfbff, 0x4100}},
      {"f", vconv_f322f16f, {0x3c00, 0xbc01, 0x3c00, 0x7bff, 0xfbff, 0x4100}},
      {"c", vconv_f322f16c, {0x3c01, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x4100}},
      {"z", vconv_f322f16z, {0x3c00, 0xbc00, 0x3c00, 0x7bff, 0xfbff, 0x4100}},
      {"o", vconv_f322f16o, {0x3c01, 0xbc01, 0x3c01, 0x7bff, 0xfbff, 0x4100}},
  };
  for (const Case& c : cases) {
    RunConv(c.fn, d, s, 6);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(HalfBits(d + i), c.want[i]) << c.name << " " << i;
  }
}

TEST_F(ConvReduceA2, F32ToBf16EachSuffixAndWidening) {
  float* s = Ub<float>(0);
  bfloat16_t* d = Ub<bfloat16_t>(1024);
  const float tie = 1.0f + std::ldexp(1.0f, -8);  // halfway between 1 (0x3f80) and 1 + 2^-7 (0x3f81)
  s[0] = tie;
  s[1] = -tie;
  s[2] = 3.0e38f * 2.0f;  // inf -> saturates to 0x7f7f
  struct Case {
    void (*fn)(bfloat16_t*, float*, uint8_t, uint16_t, uint16_t, uint8_t, uint8_t);
    uint16_t want[3];
  };
  const Case cases[] = {{vconv_f322bf16r, {0x3f80, 0xbf80, 0x7f7f}}, {vconv_f322bf16a, {0x3f81, 0xbf81, 0x7f7f}},
                        {vconv_f322bf16f, {0x3f80, 0xbf81, 0x7f7f}}, {vconv_f322bf16c, {0x3f81, 0xbf80, 0x7f7f}},
                        {vconv_f322bf16z, {0x3f80, 0xbf80, 0x7f7f}}};
  int k = 0;
  for (const Case& c : cases) {
    set_vector_mask(0, 7);
    c.fn(d, s, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
    for (int i = 0; i < 3; ++i) {
      uint16_t b;
      std::memcpy(&b, d + i, 2);
      EXPECT_EQ(b, c.want[i]) << k << " " << i;
    }
    ++k;
  }
  // Widening: bf16 and half to float are exact.
  float* w = Ub<float>(2048);
  set_vector_mask(0, 1);
  vconv_bf162f32(w, d, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(4));
  EXPECT_EQ(w[0], 1.0f);  // d[0] holds z's 0x3f80
  half* h = Ub<half>(4096);
  SetHalfBits(h, 0x0001);  // smallest subnormal, 2^-24
  vconv_f162f32(w, h, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(4));
  EXPECT_EQ(w[0], std::ldexp(1.0f, -24));
}

TEST_F(ConvReduceA2, ConversionsOverWholeAndPartialRepeats) {
  // Counter mode, 100 elements: one whole repeat of 64 lanes (contiguous run) and a tail of 36
  // lanes (lane by lane); the half source packs 64 lanes in 4 blocks (srcRep 4).
  half* h = Ub<half>(0);
  float* f = Ub<float>(1024);
  for (int i = 0; i < 128; ++i) SetHalfBits(h + i, static_cast<uint16_t>(0x3c00 + i));  // 1 + i * 2^-10
  for (int i = 0; i < 128; ++i) f[i] = -5.0f;
  set_mask_count();
  set_vector_mask(0, 100);
  vconv_f162f32(f, h, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(4));
  for (int i = 0; i < 128; ++i) {
    EXPECT_EQ(f[i], i < 100 ? 1.0f + std::ldexp(static_cast<float>(i), -10) : -5.0f) << i;
  }
  // And back with a dst block stride of 2 (not contiguous): every other 32-byte block of dst.
  half* back = Ub<half>(4096);
  set_vector_mask(0, 64);
  vconv_f322f16r(back, f, uint8_t(1), uint16_t(2), uint16_t(1), uint8_t(8), uint8_t(8));
  for (int i = 0; i < 64; ++i) {
    int blk = i / 16, j = i % 16;
    EXPECT_EQ(HalfBits(back + blk * 32 + j), 0x3c00 + i) << i;
    EXPECT_EQ(HalfBits(back + blk * 32 + 16 + j), 0) << i;
  }
}

TEST_F(ConvReduceA2, VcaddIsAPairwiseTreeWithMaskedLanesZero) {
  float* s = Ub<float>(0);
  float* d = Ub<float>(1024);
  float ref[2][64];
  for (int r = 0; r < 2; ++r) {
    for (int l = 0; l < 64; ++l) {
      // Large and small values alternate, so the order of the adds shows in the result.
      s[r * 64 + l] = (l % 4 == 0) ? 1.0e8f : (l % 4 == 2 ? -1.0e8f : 1.0f + static_cast<float>(r));
      ref[r][l] = l < 48 ? s[r * 64 + l] : 0.0f;  // lanes 48.. masked off below
    }
  }
  set_vector_mask(0, (1ull << 48) - 1);
  vcadd(d, s, 2, 3, 1, 8, 0);  // dst stride 3 elements
  EXPECT_EQ(d[0], PairwiseSum(ref[0], 64));
  EXPECT_EQ(d[3], PairwiseSum(ref[1], 64));
  EXPECT_EQ(d[1], 0.0f);
  // A sequential sum would differ: check the case is sensitive to the order.
  float seq = 0;
  for (int l = 0; l < 64; ++l) seq += ref[0][l];
  EXPECT_NE(seq, d[0]);
}

TEST_F(ConvReduceA2, VcaddAccModeAccumulatesIntoAcc) {
  // The count-form ReduceSum: counter mode, accMode 1, then get_acc_val. 100 floats: the tree of
  // repeat 0 (64 lanes) plus the tree of repeat 1 (36 lanes, the rest 0), added in that order.
  float* s = Ub<float>(0);
  float* d = Ub<float>(1024);
  float ref[2][64] = {};
  for (int i = 0; i < 100; ++i) {
    s[i] = (i % 3 == 0) ? 3.0e7f : 0.1f * static_cast<float>(i);
    ref[i / 64][i % 64] = s[i];
  }
  d[0] = -1.0f;
  set_mask_count();
  set_vector_mask(0, 100);
  vcadd(d, s, 1, 1, 1, 8, 1);
  int64_t acc = get_acc_val();
  float got;
  std::memcpy(&got, &acc, 4);
  EXPECT_EQ(got, PairwiseSum(ref[0], 64) + PairwiseSum(ref[1], 64));
  EXPECT_EQ(d[0], -1.0f);  // dst untouched
  vcadd(d, s, 1, 1, 1, 8, 2);
  EXPECT_TRUE(Violated("accMode 2"));
}

TEST_F(ConvReduceA2, VcgaddSumsEachBlock) {
  float* s = Ub<float>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 128; ++i) s[i] = static_cast<float>(i);
  vcgadd(d, s, 2, 1, 1, 8);  // dstRep 1 = 8 elements
  for (int b = 0; b < 16; ++b) {
    float want = 0;
    for (int j = 0; j < 8; ++j) want += static_cast<float>(b * 8 + j);  // exact: small integers
    EXPECT_EQ(d[b], want) << b;
  }
}

}  // namespace
}  // namespace isa_test
