// The mask register: its API, the state every call leaves behind, and how level-0 calls use it.
#include "vec_fixture.h"

namespace vectest {
namespace {

using namespace AscendC;
using MaskTest = VecTest;

TEST_F(MaskTest, StartsNormalAllOnes) {
  EXPECT_FALSE(normgrad::isa::Core().counterMode);
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_EQ(normgrad::isa::Core().maskHi, ~0ull);
}

TEST_F(MaskTest, ContinuousLengthSetsLowLanesPerType) {
  SetVectorMask<half>(100);  // 16-bit: 128 lanes, lanes 64..99 live in the high word
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_EQ(normgrad::isa::Core().maskHi, (1ull << 36) - 1);
  SetVectorMask<float>(100);  // 32-bit: clamped to 64 lanes
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_EQ(normgrad::isa::Core().maskHi, 0u);
  SetVectorMask<float>(3);
  EXPECT_EQ(normgrad::isa::Core().maskLo, 7u);
  EXPECT_EQ(normgrad::isa::Core().maskHi, 0u);
}

TEST_F(MaskTest, BitwiseAndCounterForms) {
  SetVectorMask<half>(0x5ull, 0xf0ull);  // (high, low)
  EXPECT_EQ(normgrad::isa::Core().maskHi, 0x5u);
  EXPECT_EQ(normgrad::isa::Core().maskLo, 0xf0u);
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(1000);
  EXPECT_TRUE(normgrad::isa::Core().counterMode);
  EXPECT_EQ(normgrad::isa::Core().maskLo, 1000u);
  EXPECT_EQ(normgrad::isa::Core().maskHi, 0u);
  SetMaskNorm();
  ResetMask();
  EXPECT_FALSE(normgrad::isa::Core().counterMode);
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_EQ(normgrad::isa::Core().maskHi, ~0ull);
  EXPECT_NE(FailMessage([] { SetVectorMask<float>(-1); }).find("SetVectorMask: len -1 is negative"),
            std::string::npos);
}

TEST_F(MaskTest, CountFormLeavesNormalAllOnes) {
  auto x = At<float>(0, 64), y = At<float>(256, 64);
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(5);
  Add(y, x, x, 64);
  EXPECT_FALSE(normgrad::isa::Core().counterMode);
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_EQ(normgrad::isa::Core().maskHi, ~0ull);
  SetVectorMask<float>(2);
  Cast(At<half>(512, 64), x, RoundMode::CAST_RINT, 64);
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  SetVectorMask<float>(2);
  ReduceSum(y, x, y, 64);
  EXPECT_EQ(normgrad::isa::Core().maskLo, ~0ull);
  EXPECT_FALSE(normgrad::isa::Core().counterMode);
}

TEST_F(MaskTest, IsSetMaskTrueProgramsAndLeavesTheRegister) {
  auto x = At<float>(0, 128), y = At<float>(512, 128);
  Adds(y, x, 1.0f, 10, 1, UnaryRepeatParams());
  EXPECT_EQ(normgrad::isa::Core().maskLo, (1ull << 10) - 1);
  uint64_t bits[2] = {0xffull, 0};
  Adds(y, x, 1.0f, bits, 1, UnaryRepeatParams());
  EXPECT_EQ(normgrad::isa::Core().maskLo, 0xffu);
}

TEST_F(MaskTest, IsSetMaskFalseUsesTheRegisterInEitherMode) {
  auto x = At<float>(0, 256), y = At<float>(1024, 256);
  for (int i = 0; i < 256; ++i) Ptr<float>(0)[i] = static_cast<float>(i);
  for (int i = 0; i < 256; ++i) Ptr<float>(1024)[i] = -1.0f;
  // Counter mode: 70 elements run over two repeats whatever repeatTime says.
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0, 70);
  Adds<float, false>(y, x, 0.5f, MASK_PLACEHOLDER, 1, UnaryRepeatParams());
  SetMaskNorm();
  ResetMask();
  for (int i = 0; i < 70; ++i) EXPECT_EQ(Ptr<float>(1024)[i], i + 0.5f) << i;
  EXPECT_EQ(Ptr<float>(1024)[70], -1.0f);
  // Normal mode: the programmed lanes, every repeat.
  SetVectorMask<float>(0, 0x3);
  Muls<float, false>(y, x, 2.0f, MASK_PLACEHOLDER, 2, UnaryRepeatParams());
  EXPECT_EQ(Ptr<float>(1024)[0], 0.0f);
  EXPECT_EQ(Ptr<float>(1024)[1], 2.0f);
  EXPECT_EQ(Ptr<float>(1024)[2], 2.5f);  // inactive lane keeps the Adds result
  EXPECT_EQ(Ptr<float>(1024)[65], 130.0f);
  EXPECT_EQ(Ptr<float>(1024)[66], 66.5f);
}

TEST_F(MaskTest, ZeroMaskIsANop) {
  auto x = At<float>(0, 64), y = At<float>(256, 64);
  Ptr<float>(256)[0] = 7.0f;
  Adds(y, x, 1.0f, uint64_t{0}, 5, UnaryRepeatParams());  // a literal 0 is ambiguous, as on the device
  EXPECT_EQ(Ptr<float>(256)[0], 7.0f);
  EXPECT_EQ(Repeats(sim::OpClass::kElementwise), 0u);
}

// CANN's api_check on the Atlas training series (dav-c100): a normal-mode level-0 call whose mask selects no
// lane is rejected; front end A enforces the same rule there (on A2/A3 it stays a no-op, ZeroMaskIsANop).
TEST_F(MaskTest, ZeroMaskInNormalModeFailsOnTheTrainingSeries) {
  UseSoc("ascend910");
  auto x = At<float>(0, 64), y = At<float>(256, 64);
  const std::string rule = "the mask selects no lane in normal mode, which ascend910 rejects";
  EXPECT_NE(FailMessage([&] { Adds(y, x, 1.0f, uint64_t{0}, 1, UnaryRepeatParams()); }).find("Adds: " + rule),
            std::string::npos);
  uint64_t none[2] = {0, 0};
  EXPECT_NE(FailMessage([&] { Add(y, x, x, none, 1, BinaryRepeatParams()); }).find("Add: " + rule), std::string::npos);
  // The register, when the call does not set it.
  SetVectorMask<float>(0, 0);
  EXPECT_NE(FailMessage([&] { Muls<float, false>(y, x, 2.0f, MASK_PLACEHOLDER, 1, UnaryRepeatParams()); })
                .find("Muls: " + rule),
            std::string::npos);
  // 16-bit lanes: a lane in the high word alone is a lane; a counter-mode count of 0 is not this rule's.
  auto h = At<half>(512, 128), g = At<half>(1024, 128);
  uint64_t high[2] = {0, 1};
  EXPECT_EQ(FailMessage([&] { Adds(g, h, half(1.0f), high, 1, UnaryRepeatParams()); }), "");
  ResetMask();
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0);
  EXPECT_EQ(FailMessage([&] { Muls<float, false>(y, x, 2.0f, MASK_PLACEHOLDER, 1, UnaryRepeatParams()); }), "");
  SetMaskNorm();
  ResetMask();
  Adds(y, x, 1.0f, uint64_t{64}, 1, UnaryRepeatParams());  // a lane selected: runs
  EXPECT_EQ(Ptr<float>(256)[0], 1.0f);
}

TEST_F(MaskTest, BitwiseHighWordMustBeZeroFor32BitTypes) {
  auto x = At<float>(0, 64);
  uint64_t bits[2] = {1, 1};
  EXPECT_NE(FailMessage([&] { Adds(x, x, 1.0f, bits, 1, UnaryRepeatParams()); })
                .find("Adds: bitwise mask[1] (high word) is 0x1, must be 0"),
            std::string::npos);
}

}  // namespace
}  // namespace vectest
