// Cast: every legal pair and mode, bit-exact on hand-derived ties, saturation, the legal
// matrix per SoC with its error messages, level-0 forms and in-place rules. No tolerances:
// every expected value below is an exact encoding worked out by hand from the format.
#include <cmath>
#include <cstdint>
#include <limits>

#include "vec_fixture.h"

namespace vectest {
namespace {

using namespace AscendC;
using CastTest = VecTest;

constexpr RoundMode kModes[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};

class CastCase : public CastTest {
 protected:
  // Casts one value through the count form at fixed UB addresses.
  template <typename T, typename U>
  T One(U v, RoundMode m) {
    *Ptr<U>(0) = v;
    Cast(At<T>(1024, 16), At<U>(0, 16), m, 1);
    return *Ptr<T>(1024);
  }
};

TEST_F(CastCase, FloatToHalfEveryModeOnTies) {
  // Rows: input, then expected bits for RINT, FLOOR, CEIL, ROUND, TRUNC, ODD.
  struct Row {
    float x;
    uint16_t want[6];
  } rows[] = {
      // 1 + 2^-11: halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01).
      {1.0f + 0x1p-11f, {0x3c00, 0x3c00, 0x3c01, 0x3c01, 0x3c00, 0x3c01}},
      // 1 + 3*2^-11: halfway between 0x3c01 (odd) and 0x3c02 (even).
      {1.0f + 0x3p-11f, {0x3c02, 0x3c01, 0x3c02, 0x3c02, 0x3c01, 0x3c01}},
      {-(1.0f + 0x1p-11f), {0xbc00, 0xbc01, 0xbc00, 0xbc01, 0xbc00, 0xbc01}},
      // below the tie: 1 + 2^-12
      {1.0f + 0x1p-12f, {0x3c00, 0x3c00, 0x3c01, 0x3c00, 0x3c00, 0x3c01}},
      // 2^-25: halfway between 0 and the smallest subnormal 2^-24 (0x0001).
      {0x1p-25f, {0x0000, 0x0000, 0x0001, 0x0001, 0x0000, 0x0001}},
      // 65519 rounds down to 65504 unless directed up (65536 overflows and saturates).
      {65519.0f, {0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff}},
      {70000.0f, {0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff}},
      {-INFINITY, {0xfbff, 0xfbff, 0xfbff, 0xfbff, 0xfbff, 0xfbff}},
      {NAN, {0, 0, 0, 0, 0, 0}},
      {2.5f, {0x4100, 0x4100, 0x4100, 0x4100, 0x4100, 0x4100}},  // exact
  };
  for (const Row& row : rows) {
    for (int m = 0; m < 6; ++m) {
      EXPECT_EQ(Bits(One<half>(row.x, kModes[m])), row.want[m]) << row.x << " mode " << m;
    }
    EXPECT_EQ(Bits(One<half>(row.x, RoundMode::CAST_NONE)), row.want[0]) << "NONE is RINT";
  }
}

TEST_F(CastCase, FloatToBf16Modes) {
  struct Row {
    float x;
    uint16_t want[5];  // RINT FLOOR CEIL ROUND TRUNC
  } rows[] = {
      {1.0f + 0x1p-8f, {0x3f80, 0x3f80, 0x3f81, 0x3f81, 0x3f80}},      // tie, even below
      {1.0f + 0x3p-8f, {0x3f82, 0x3f81, 0x3f82, 0x3f82, 0x3f81}},      // tie, even above
      {-(1.0f + 0x1p-8f), {0xbf80, 0xbf81, 0xbf80, 0xbf81, 0xbf80}},
      {3.4e38f, {0x7f7f, 0x7f7f, 0x7f7f, 0x7f7f, 0x7f7f}},             // rounds past max: saturates
      {INFINITY, {0x7f7f, 0x7f7f, 0x7f7f, 0x7f7f, 0x7f7f}},
  };
  for (const Row& row : rows) {
    for (int m = 0; m < 5; ++m) EXPECT_EQ(One<bfloat16_t>(row.x, kModes[m]).bits, row.want[m]) << row.x << " " << m;
  }
  EXPECT_NE(FailMessage([&] { One<bfloat16_t>(1.0f, RoundMode::CAST_NONE); })
                .find("Cast: float -> bfloat16_t with CAST_NONE is not supported on ascend910b (allowed: CAST_RINT, "
                      "CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC)"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { One<bfloat16_t>(1.0f, RoundMode::CAST_ODD); }).find("CAST_ODD is not supported"),
            std::string::npos);
}

TEST_F(CastCase, FloatToIntegersRoundAndSaturate) {
  struct Row {
    float x;
    int32_t want[5];  // RINT FLOOR CEIL ROUND TRUNC
  } rows[] = {
      {2.5f, {2, 2, 3, 3, 2}},     {-2.5f, {-2, -3, -2, -3, -2}}, {0.5f, {0, 0, 1, 1, 0}},
      {-0.5f, {0, -1, 0, -1, 0}},  {1.5f, {2, 1, 2, 2, 1}},       {3e9f, {2147483647, 2147483647, 2147483647, 2147483647, 2147483647}},
      {-3e9f, {-2147483647 - 1, -2147483647 - 1, -2147483647 - 1, -2147483647 - 1, -2147483647 - 1}},
      {NAN, {0, 0, 0, 0, 0}},
  };
  for (const Row& row : rows) {
    for (int m = 0; m < 5; ++m) EXPECT_EQ(One<int32_t>(row.x, kModes[m]), row.want[m]) << row.x << " " << m;
  }
  EXPECT_EQ(One<int16_t>(40000.5f, RoundMode::CAST_RINT), 32767);
  EXPECT_EQ(One<int64_t>(-1e19f, RoundMode::CAST_TRUNC), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(One<int64_t>(0x1p40f, RoundMode::CAST_TRUNC), int64_t{1} << 40);
  EXPECT_NE(FailMessage([&] { One<int32_t>(1.0f, RoundMode::CAST_NONE); }).find("float -> int32_t with CAST_NONE"),
            std::string::npos);
}

TEST_F(CastCase, FloatToFloatRoundsToIntegral) {
  EXPECT_EQ(One<float>(2.5f, RoundMode::CAST_RINT), 2.0f);
  EXPECT_EQ(One<float>(2.5f, RoundMode::CAST_ROUND), 3.0f);
  EXPECT_EQ(One<float>(-2.5f, RoundMode::CAST_FLOOR), -3.0f);
  EXPECT_EQ(One<float>(-2.5f, RoundMode::CAST_CEIL), -2.0f);
  EXPECT_EQ(One<float>(-2.5f, RoundMode::CAST_TRUNC), -2.0f);
  EXPECT_TRUE(std::signbit(One<float>(-0.5f, RoundMode::CAST_RINT)));  // -0, as IEEE roundToIntegral
  EXPECT_EQ(One<float>(0x1p30f + 128.0f, RoundMode::CAST_RINT), 0x1p30f + 128.0f);
}

TEST_F(CastCase, IntegerSources) {
  // 2^24 + 1 is halfway between 2^24 and 2^24 + 2 in float.
  const int32_t tie = (1 << 24) + 1;
  EXPECT_EQ(One<float>(tie, RoundMode::CAST_RINT), 16777216.0f);
  EXPECT_EQ(One<float>(tie, RoundMode::CAST_NONE), 16777216.0f);
  EXPECT_EQ(One<float>(tie, RoundMode::CAST_ROUND), 16777218.0f);
  EXPECT_EQ(One<float>(tie, RoundMode::CAST_CEIL), 16777218.0f);
  EXPECT_EQ(One<float>(-tie, RoundMode::CAST_FLOOR), -16777218.0f);
  EXPECT_EQ(One<float>(-tie, RoundMode::CAST_TRUNC), -16777216.0f);
  // int64: 2^53 + 2^29 is halfway between 2^53 and 2^53 + 2^30 in float.
  const int64_t big = (int64_t{1} << 53) + (int64_t{1} << 29);
  EXPECT_EQ(One<float>(big, RoundMode::CAST_RINT), 0x1p53f);
  EXPECT_EQ(One<float>(big, RoundMode::CAST_ROUND), 0x1p53f + 0x1p30f);
  EXPECT_EQ(One<float>(-big - 1, RoundMode::CAST_TRUNC), -0x1p53f);
  EXPECT_EQ(One<int32_t>(int64_t{1} << 40, RoundMode::CAST_NONE), 2147483647);
  EXPECT_EQ(One<int16_t>(int32_t{-40000}, RoundMode::CAST_NONE), -32768);
  EXPECT_EQ(One<int64_t>(int32_t{-5}, RoundMode::CAST_NONE), -5);
  // int16 -> half: 2049 is halfway between 2048 and 2050.
  EXPECT_EQ(Bits(One<half>(int16_t{2049}, RoundMode::CAST_RINT)), 0x6800);
  EXPECT_EQ(Bits(One<half>(int16_t{2049}, RoundMode::CAST_ROUND)), 0x6801);
  EXPECT_EQ(One<float>(int16_t{-7}, RoundMode::CAST_NONE), -7.0f);
  EXPECT_EQ(Bits(One<half>(int8_t{-128}, RoundMode::CAST_NONE)), 0xd800);
  EXPECT_EQ(Bits(One<half>(uint8_t{255}, RoundMode::CAST_NONE)), 0x5bf8);
  EXPECT_NE(FailMessage([&] { One<half>(int32_t{1}, RoundMode::CAST_NONE); }).find("SetDeqScale"), std::string::npos);
}

TEST_F(CastCase, HalfAndBf16Sources) {
  // Every half encoding widens exactly to float (NaN stays NaN: float results are IEEE).
  const int n = 32768;  // two halves of the encodings: 64 KiB in + 128 KiB out fill the UB
  auto src = At<half>(0, n);
  auto dst = At<float>(0x10000, n);
  for (int part = 0; part < 2; ++part) {
    for (int i = 0; i < n; ++i) Ptr<half>(0)[i] = half::FromBits(static_cast<uint16_t>(part * n + i));
    Cast(dst, src, RoundMode::CAST_NONE, n);
    for (int i = 0; i < n; ++i) {
      double want = HalfValue(static_cast<uint16_t>(part * n + i));
      float got = Ptr<float>(0x10000)[i];
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got)) << i;
      } else {
        ASSERT_EQ(static_cast<double>(got), want) << i;
      }
    }
  }
  EXPECT_EQ(One<float>(bfloat16_t::FromBits(0xc049), RoundMode::CAST_NONE), -3.140625f);
  EXPECT_EQ(One<int32_t>(bfloat16_t::FromBits(0x4020), RoundMode::CAST_ROUND), 3);  // 2.5 -> 3
  EXPECT_EQ(One<int32_t>(H(-2.5), RoundMode::CAST_RINT), -2);
  EXPECT_EQ(One<int8_t>(H(300), RoundMode::CAST_NONE), 127);
  EXPECT_EQ(One<uint8_t>(H(-3), RoundMode::CAST_TRUNC), 0);
  EXPECT_NE(FailMessage([&] { One<float>(H(1), RoundMode::CAST_RINT); })
                .find("Cast: half -> float with CAST_RINT is not supported on ascend910b (allowed: CAST_NONE)"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { One<uint16_t>(1.0f, RoundMode::CAST_RINT); })
                .find("Cast: float -> an unsupported type (CAST_RINT) is not a supported conversion"),
            std::string::npos);
}

// The training series' table; the inference series (dav-m200) has the same float <-> half rows
// (asc-devkit impl/basic_api/dav_m200/kernel_operator_vec_vconv_impl.h) and no bfloat16.
TEST_F(CastCase, TrainingAndInferenceSeriesMatrix) {
  for (const std::string soc : {"ascend910", "ascend310p"}) {
    UseSoc(soc.c_str());
    EXPECT_EQ(Bits(One<half>(1.0f + 0x1p-11f, RoundMode::CAST_ODD)), 0x3c01);
    EXPECT_EQ(Bits(One<half>(1.0f + 0x1p-11f, RoundMode::CAST_NONE)), 0x3c00);
    EXPECT_NE(FailMessage([&] { One<half>(1.0f, RoundMode::CAST_RINT); })
                  .find("float -> half with CAST_RINT is not supported on " + soc + " (allowed: CAST_NONE, CAST_ODD)"),
              std::string::npos);
    EXPECT_NE(FailMessage([&] { One<float>(bfloat16_t::FromBits(0x3f80), RoundMode::CAST_NONE); })
                  .find("bfloat16_t -> float (CAST_NONE) is not a supported conversion on " + soc),
              std::string::npos);
  }
}

TEST_F(CastTest, Level0HalfToFloatWithHalfWidthSourceStride) {
  // 64 lanes per repeat: src half uses 4 blocks (srcRepStride 4), dst float 8 blocks.
  auto src = At<half>(0, 256);
  auto dst = At<float>(1024, 256);
  for (int i = 0; i < 256; ++i) Ptr<half>(0)[i] = H(i * 0.5);
  for (int i = 0; i < 256; ++i) Ptr<float>(1024)[i] = -1.0f;
  Cast(dst, src, RoundMode::CAST_NONE, 48, 3, UnaryRepeatParams(1, 1, 8, 4));
  for (int r = 0; r < 3; ++r) {
    for (int l = 0; l < 64; ++l) {
      float want = l < 48 ? (r * 64 + l) * 0.5f : -1.0f;
      ASSERT_EQ(Ptr<float>(1024)[r * 64 + l], want) << r << "," << l;
    }
  }
  uint64_t mask[2] = {0x1, 0};
  Cast(At<half>(0, 256), At<float>(1024, 256), RoundMode::CAST_ROUND, mask, 1, UnaryRepeatParams(1, 1, 4, 8));
  EXPECT_EQ(Bits(Ptr<half>(0)[0]), 0x0000);
  EXPECT_EQ(Bits(Ptr<half>(0)[1]), Bits(H(0.5)));  // inactive lane untouched
}

TEST_F(CastTest, InPlaceNarrowingIsLegalWideningIsNot) {
  const int n = 200;
  auto f = At<float>(0, n);
  for (int i = 0; i < n; ++i) Ptr<float>(0)[i] = i + 0.25f;
  Cast(f.ReinterpretCast<half>(), f, RoundMode::CAST_RINT, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(Bits(Ptr<half>(0)[i]), RefHalfSat(i + 0.25)) << i;
  EXPECT_NE(FailMessage([&] { Cast(f, f.ReinterpretCast<half>(), RoundMode::CAST_NONE, n); })
                .find("Cast: dst [UB 0, +800 bytes) partially overlaps src [UB 0, +400 bytes)"),
            std::string::npos);
  EXPECT_EQ(ctx_.counters.vecInstr, 1u);
  EXPECT_EQ(Repeats(sim::OpClass::kCast), 4u);  // ceil(200 * 4 / 256)
}

}  // namespace
}  // namespace vectest
