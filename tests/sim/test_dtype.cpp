// half and bfloat16_t storage types: conversions checked against the binary16 definition
// (HalfValue) and hand-derived encodings, including every tie case.
#include <cmath>

#include "vec_fixture.h"

namespace vectest {
namespace {

TEST(DtypeTest, HalfDecodesEveryEncodingExactly) {
  for (uint32_t b = 0; b < 65536; ++b) {
    double want = HalfValue(static_cast<uint16_t>(b));
    float got = static_cast<float>(half::FromBits(static_cast<uint16_t>(b)));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << b;
    } else {
      ASSERT_EQ(static_cast<double>(got), want) << b;
      ASSERT_EQ(half(got).bits, b) << "round trip " << b;
    }
  }
}

TEST(DtypeTest, HalfFromFloatRoundsToNearestEven) {
  EXPECT_EQ(half(1.0f + 0x1p-11f).bits, 0x3c00);   // tie, even below
  EXPECT_EQ(half(1.0f + 0x3p-11f).bits, 0x3c02);   // tie, even above
  EXPECT_EQ(half(1.0f + 0x1.8p-11f).bits, 0x3c01);  // above the tie
  EXPECT_EQ(half(0x1p-25f).bits, 0x0000);           // tie between 0 and 2^-24
  EXPECT_EQ(half(0x1.8p-25f).bits, 0x0001);
  EXPECT_EQ(half(0x3p-25f).bits, 0x0002);           // tie between 2^-24 and 2^-23: even
  EXPECT_EQ(half(65519.0f).bits, 0x7bff);
  EXPECT_EQ(half(65520.0f).bits, 0x7c00);           // IEEE conversion overflows (no saturation here)
  EXPECT_EQ(half(-2.5f).bits, 0xc100);
  EXPECT_TRUE(std::isnan(static_cast<float>(half(NAN))));
}

TEST(DtypeTest, Bf16FromFloatRoundsToNearestEven) {
  EXPECT_EQ(bfloat16_t(1.0f + 0x1p-8f).bits, 0x3f80);
  EXPECT_EQ(bfloat16_t(1.0f + 0x3p-8f).bits, 0x3f82);
  EXPECT_EQ(bfloat16_t(-2.5f).bits, 0xc020);
  EXPECT_EQ(static_cast<float>(bfloat16_t::FromBits(0x3fc0)), 1.5f);
  EXPECT_EQ(AscendC::ToFloat(AscendC::ToBfloat16(3.0f)), 3.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(NAN))));
}

TEST(DtypeTest, TraitsAndLayout) {
  EXPECT_TRUE((AscendC::IsSameType<half, half>::value));
  EXPECT_FALSE((AscendC::IsSameType<half, bfloat16_t>::value));
  EXPECT_EQ(sizeof(half), 2u);
  EXPECT_EQ(sizeof(bfloat16_t), 2u);
}

}  // namespace
}  // namespace vectest
