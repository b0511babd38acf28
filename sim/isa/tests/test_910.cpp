// dav-c100 (Atlas training series): the 6-argument vcadd, the suffix-less vconv_f322f16, and the
// plain store under atomics (CANN's dav_c100 API adds in UB itself before the copy; a front end issuing
// the device's instructions gets the DMA's add).
#include "test_support.h"

namespace isa_test {
namespace {

using Model910 = Model;

TEST_F(Model910, VcaddHasNoAccMode) {
  float* s = Ub<float>(0);
  float* d = Ub<float>(1024);
  for (int i = 0; i < 64; ++i) s[i] = 1.0f;
  vcadd(d, s, 1, 1, 1, 8);
  EXPECT_EQ(d[0], 64.0f);
}

TEST_F(Model910, F32ToF16WithoutSuffixRoundsToNearestEven) {
  float* s = Ub<float>(0);
  half* d = Ub<half>(1024);
  s[0] = 1.0f + std::ldexp(1.0f, -11);
  s[1] = 1.0f + 3 * std::ldexp(1.0f, -11);  // halfway between 0x3c01 and 0x3c02: even is 0x3c02
  set_vector_mask(0, 3);
  vconv_f322f16(d, s, uint8_t(1), uint16_t(1), uint16_t(1), uint8_t(4), uint8_t(8));
  EXPECT_EQ(HalfBits(d), 0x3c00);
  EXPECT_EQ(HalfBits(d + 1), 0x3c02);
}

// Under CANN's CPU-debug API (front end B) the store under atomics is plain: the API has added in UB
// already. A front end that issues the device's instructions (front end A, State::deviceAtomicStores)
// gets the device DMA's add, and a GM vector operand stays a violation there.
TEST_F(Model910, StoreUnderAtomicAddsOnlyForDeviceStores) {
  float* g = Gm<float>(0);
  float* u = Ub<float>(0);
  for (bool device : {false, true}) {
    normgrad::isa::Core().deviceAtomicStores = device;
    for (int i = 0; i < 8; ++i) {
      g[i] = 100.0f;
      u[i] = 2.0f;
    }
    set_atomic_f32();
    EXPECT_EQ(normgrad::isa::Core().vectorGmOperands, !device);
    copy_ubuf_to_gm(g, u, 0, 1, 1, 0, 0);
    set_atomic_none();
    for (int i = 0; i < 8; ++i) EXPECT_EQ(g[i], device ? 102.0f : 2.0f) << device << " " << i;
  }
  normgrad::isa::Core().deviceAtomicStores = false;
}

// CANN's CPU-debug DataCopyWithAtomicCom: with the atomic mode on, vadd takes the GM destination as
// an operand (sim/cann_cpu/DIFFERENCES.md, 1); without it a GM operand is still a violation.
TEST_F(Model910, VectorOperandInGmOnlyUnderAtomic) {
  float* g = Gm<float>(0);
  float* u = Ub<float>(0);
  for (int i = 0; i < 64; ++i) {
    g[i] = 100.0f;
    u[i] = 2.0f;
  }
  set_atomic_f32();
  vadd(u, g, u, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_TRUE(Violations().empty());
  EXPECT_EQ(u[63], 102.0f);
  set_atomic_none();
  vadd(u, g, u, 1, 1, 1, 1, 8, 8, 8);
  ASSERT_EQ(Violations().size(), 1u);
  EXPECT_NE(Violations()[0].find("is not in the UB"), std::string::npos) << Violations()[0];
}

TEST_F(Model910, HalfVaddAndMinMax) {
  half* a = Ub<half>(0);
  half* b = Ub<half>(256);
  half* d = Ub<half>(512);
  for (int i = 0; i < 128; ++i) {
    SetHalfBits(a + i, 0x3c00);  // 1
    SetHalfBits(b + i, 0x4000);  // 2
  }
  vadd(d, a, b, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_EQ(HalfBits(d + 127), 0x4200);  // 3
  vmax(d, a, b, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_EQ(HalfBits(d), 0x4000);
  vmin(d, a, b, 1, 1, 1, 1, 8, 8, 8);
  EXPECT_EQ(HalfBits(d), 0x3c00);
}

}  // namespace
}  // namespace isa_test
