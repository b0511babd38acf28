// Vector instructions on dav-c220 against hand-computed results: masks, strides, stride-0
// scalars, counter mode, saturation, multiply-add forms, duplicate, broadcast, parameter checks.
#include "test_support.h"

namespace isa_test {
namespace {

using VectorA2 = Model;

// Byte offset of lane l of repeat r (32-bit elements), written out independently of the model.
uint64_t Off32(uint64_t r, uint32_t l, uint64_t blk, uint64_t rep) { return (r * rep + (l / 8) * blk) * 32 + (l % 8) * 4; }

TEST_F(VectorA2, AddTwoFullRepeatsContiguous) {
  float* a = Ub<float>(0);
  float* b = Ub<float>(1024);
  float* d = Ub<float>(2048);
  for (int i = 0; i < 128; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i);
  }
  vadd(d, a, b, uint8_t(2), uint8_t(1), uint8_t(1), uint8_t(1), uint8_t(8), uint8_t(8), uint8_t(8));
  for (int i = 0; i < 128; ++i) EXPECT_EQ(d[i], 1.5f * static_cast<float>(i)) << i;
  EXPECT_EQ(normgrad::isa::Core().counters.repeats[1], 2u);  // PIPE_V
  EXPECT_TRUE(Violations().empty());
}

TEST_F(VectorA2, NormalMaskWritesOnlyActiveLanes) {
  float* a = Ub<float>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 64; ++i) {
    a[i] = 2.0f;
    d[i] = -1.0f;
  }
  set_vector_mask(~0ull, 0x8000000000000005ull);  // lanes 0, 2, 63; hi ignored for 64 lanes
  vmul(d, a, a, 1, 1, 1, 1, 8, 8, 8);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], (i == 0 || i == 2 || i == 63) ? 4.0f : -1.0f) << i;
}

TEST_F(VectorA2, BlockAndRepeatStridesAddressLanes) {
  // dst blocks 2 apart, repeats 20 blocks apart; src0 contiguous; src1 repeat stride 0 (both
  // repeats read the same 8 blocks).
  float* s0 = Ub<float>(0);
  float* s1 = Ub<float>(4096);
  uint8_t* d = Ub<uint8_t>(8192);
  for (int i = 0; i < 128; ++i) s0[i] = static_cast<float>(i);
  for (int i = 0; i < 64; ++i) s1[i] = 1000.0f * static_cast<float>(i);
  vsub(reinterpret_cast<float*>(d), s0, s1, 2, 2, 1, 1, 20, 8, 0);
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t l = 0; l < 64; ++l) {
      float got;
      std::memcpy(&got, d + Off32(r, l, 2, 20), 4);
      EXPECT_EQ(got, static_cast<float>(r * 64 + l) - 1000.0f * static_cast<float>(l)) << r << "," << l;
    }
  }
  float gap;
  std::memcpy(&gap, d + 32, 4);  // block 1 of repeat 0 lies between dst blocks 0 and 2
  EXPECT_EQ(gap, 0.0f);
}

TEST_F(VectorA2, BlockStrideZeroBroadcastsOneBlock) {
  float* s0 = Ub<float>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 64; ++i) s0[i] = static_cast<float>(i);
  vadd(d, s0, s0, 1, 1, 0, 0, 8, 8, 8);  // every block of the repeat reads block 0
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], 2.0f * static_cast<float>(i % 8)) << i;
}

TEST_F(VectorA2, CounterModeRunsCountElementsAndIgnoresRepeat) {
  float* a = Ub<float>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 128; ++i) {
    a[i] = 1.0f;
    d[i] = 7.0f;
  }
  set_mask_count();
  set_vector_mask(0, 100);
  vadd(d, a, a, 1, 1, 1, 1, 8, 8, 8);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(d[i], i < 100 ? 2.0f : 7.0f) << i;
  EXPECT_EQ(normgrad::isa::Core().counters.repeats[1], 2u);  // ceil(100 / 64)
  set_mask_norm();
  EXPECT_FALSE(normgrad::isa::Core().counterMode);
}

TEST_F(VectorA2, RepeatReadsBeforeItWrites) {
  // dst = src0 shifted by one block within the repeat: every read of the repeat happens first.
  float* buf = Ub<float>(0);
  for (int i = 0; i < 72; ++i) buf[i] = static_cast<float>(i);
  vadds(buf + 8, buf, 100.0f, uint8_t(1), uint16_t(1), uint16_t(1), uint16_t(8), uint16_t(8));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(buf[8 + i], static_cast<float>(i) + 100.0f) << i;
}

TEST_F(VectorA2, HalfResultsSaturate) {
  half* a = Ub<half>(0);
  half* d = Ub<half>(512);
  for (int i = 0; i < 128; ++i) SetHalfBits(a + i, 0x7a00);  // 49152
  vadd(d, a, a, 1, 1, 1, 1, 8, 8, 8);                        // 98304 -> 65504
  for (int i = 0; i < 128; ++i) EXPECT_EQ(HalfBits(d + i), 0x7bff) << i;
  SetHalfBits(a, 0x3c00);  // 1.0
  SetHalfBits(a + 1, 0x1400);  // 2^-10
  half halfScalar;
  SetHalfBits(&halfScalar, 0x3800);  // 0.5
  vmuls(d, a, halfScalar, uint8_t(1), uint16_t(1), uint16_t(1), uint16_t(8), uint16_t(8));
  EXPECT_EQ(HalfBits(d), 0x3800);      // 0.5
  EXPECT_EQ(HalfBits(d + 1), 0x1000);  // 2^-11
}

TEST_F(VectorA2, MulAddForms) {
  float* a = Ub<float>(0);
  float* b = Ub<float>(256);
  float* d = Ub<float>(512);
  for (int i = 0; i < 64; ++i) {
    a[i] = 3.0f;
    b[i] = static_cast<float>(i);
    d[i] = 10.0f;
  }
  vmla(d, a, b, 1, 1, 1, 1, 8, 8, 8);  // d = a*b + d
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], 3.0f * static_cast<float>(i) + 10.0f) << i;
  for (int i = 0; i < 64; ++i) d[i] = 2.0f;
  vmadd(d, a, b, uint8_t(1), uint8_t(1), uint8_t(1), uint8_t(1), uint8_t(8), uint8_t(8), uint8_t(8));  // d = a*d + b
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], 6.0f + static_cast<float>(i)) << i;
  for (int i = 0; i < 64; ++i) d[i] = 1.0f;
  vaxpy(d, b, 0.25f, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(8));  // d = b*0.25 + d
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], 0.25f * static_cast<float>(i) + 1.0f) << i;
  // float rounds the product, then the sum: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11
  // before -1 is added (a fused form would keep the 2^-24).
  a[0] = 1.0f + std::ldexp(1.0f, -12);
  d[0] = -1.0f;
  set_vector_mask(0, 1);
  vmla(d, a, a, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_EQ(d[0], std::ldexp(1.0f, -11));
}

TEST_F(VectorA2, DuplicateWithBlockStride) {
  uint32_t* d = Ub<uint32_t>(0);
  vector_dup(reinterpret_cast<float*>(d), 1.5f, uint8_t(1), uint16_t(2), 1, uint8_t(16), 0);
  float one5 = 1.5f;
  uint32_t bits;
  std::memcpy(&bits, &one5, 4);
  for (int blk = 0; blk < 16; ++blk) {
    for (int j = 0; j < 8; ++j) EXPECT_EQ(d[blk * 8 + j], blk % 2 == 0 ? bits : 0u) << blk << "," << j;
  }
}

TEST_F(VectorA2, BrcbFillsOneBlockPerElement) {
  uint32_t* s = Ub<uint32_t>(0);
  uint32_t* d = Ub<uint32_t>(1024);
  for (int i = 0; i < 16; ++i) s[i] = 100u + static_cast<uint32_t>(i);
  set_vector_mask(0, 1);  // vbrcb ignores the mask
  vbrcb(d, s, uint16_t(1), uint16_t(8), uint8_t(2));
  for (int e = 0; e < 16; ++e) {
    for (int j = 0; j < 8; ++j) EXPECT_EQ(d[e * 8 + j], 100u + static_cast<uint32_t>(e)) << e;
  }
}

// 16-bit elements: each repeat reads the next 8 elements (16 bytes), as the Brcb page's uint16_t example
// (16 inputs, 2 repeats) shows; not the next 32-byte block.
TEST_F(VectorA2, BrcbSixteenBitReadsEightElementsPerRepeat) {
  uint16_t* s = Ub<uint16_t>(0);
  uint16_t* d = Ub<uint16_t>(1024);
  for (int i = 0; i < 32; ++i) s[i] = static_cast<uint16_t>(200 + i);
  vbrcb(d, s, uint16_t(1), uint16_t(8), uint8_t(2));
  for (int e = 0; e < 16; ++e) {
    for (int j = 0; j < 16; ++j) EXPECT_EQ(d[e * 16 + j], 200 + e) << e << "," << j;
  }
}

TEST_F(VectorA2, DivSqrtAndCopy) {
  float* a = Ub<float>(0);
  float* b = Ub<float>(256);
  float* d = Ub<float>(512);
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>(i * i);
    b[i] = 4.0f;
  }
  vdiv(d, a, b, 1, 1, 1, 1, 8, 8, 8);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], static_cast<float>(i * i) / 4.0f) << i;
  vsqrt(d, a, 1, uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(8));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], static_cast<float>(i)) << i;
  a[1] = 2.0f;  // sqrt(2) rounded once from double
  set_vector_mask(0, 2);
  vsqrt(d, a, 1, uint16_t(1), uint16_t(1), uint8_t(8), uint8_t(8));
  EXPECT_EQ(d[1], static_cast<float>(std::sqrt(2.0)));
  // vcopy: bits unchanged, repeat strides in blocks (here 16: every other repeat-sized slot).
  uint32_t* cs = Ub<uint32_t>(4096);
  uint32_t* cd = Ub<uint32_t>(8192);
  for (int i = 0; i < 64; ++i) cs[i] = 0xdead0000u + static_cast<uint32_t>(i);
  set_vector_mask(~0ull, ~0ull);
  vcopy(cd, cs, uint8_t(1), uint16_t(1), uint16_t(1), uint16_t(16), uint16_t(8));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(cd[i], 0xdead0000u + static_cast<uint32_t>(i)) << i;
  // vdiv has no integer form (on dav-c220 an int32 vdiv does not even compile: stub_fun.h).
  int32_t* ia = Ub<int32_t>(0);
  normgrad::isa::VecBinary("vdiv", normgrad::isa::BinOp::kDiv, normgrad::isa::Elem::kS32, ia, ia, ia,
                           normgrad::isa::VecStrides{});
  EXPECT_TRUE(Violated("int32_t is not supported"));
}

TEST_F(VectorA2, RepeatZeroIsANopAndAbove255AViolation) {
  float* a = Ub<float>(0);
  for (int i = 0; i < 64; ++i) a[i] = 1.0f;
  vadd(a, a, a, 0, 1, 1, 1, 8, 8, 8);
  EXPECT_TRUE(Violations().empty());
  EXPECT_EQ(a[0], 1.0f);
  vadd(a, a, a, 256, 1, 1, 1, 8, 8, 8);
  EXPECT_TRUE(Violated("repeat = 256"));
  EXPECT_EQ(a[0], 1.0f);
}

TEST_F(VectorA2, MisalignedOrOutsideUbIsAViolation) {
  float* a = Ub<float>(0);
  vadd(Ub<float>(4), a, a, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_TRUE(Violated("not 32-byte aligned"));
  Violations().clear();
  vadd(Ub<float>(kUb - 128), a, a, 1, 1, 1, 1, 8, 8, 8);  // 256 bytes from 128 before the end
  EXPECT_TRUE(Violated("beyond the UB"));
  Violations().clear();
  float outside[64] = {};
  vadd(outside, a, a, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_TRUE(Violated("not in the UB"));
}

}  // namespace
}  // namespace isa_test
