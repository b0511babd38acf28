// Reductions: the documented summation order, checked with values where the order changes the
// float result (true sum, sequential sum and tree sum all differ), half saturation inside the
// tree, output placement and alignment rules, and the checks. Expected values are worked out
// by hand in the comments; no tolerance is needed because the order is fully specified.
#include <cmath>

#include "normgrad_isa/model.h"
#include "vec_fixture.h"

namespace vectest {
namespace {

using namespace AscendC;
using ReduceTest = VecTest;

// 64 float lanes [2^24, 1, 1, ..., 1]. True sum 2^24 + 63; left to right 2^24 (every +1 is a
// tie that rounds back to even 2^24). Pairwise tree: level 1 gives [2^24, 2 x31], level 2
// [2^24 + 2, 4 x15], then 2^24 + 6, + 14, + 30, + 62: 16777278 (all even, all exact).
void FillOrderProbe(float* v) {
  v[0] = 16777216.0f;
  for (int i = 1; i < 64; ++i) v[i] = 1.0f;
}

TEST_F(ReduceTest, WholeReduceSumIsAPairwiseTreeInLaneOrder) {
  FillOrderProbe(Ptr<float>(0));
  FillOrderProbe(Ptr<float>(256));
  auto dst = At<float>(1024, 8);
  for (int i = 0; i < 8; ++i) Ptr<float>(1024)[i] = -1.0f;
  // Two repeats, results at dst[0] and dst[2] (dstRepStride is in elements).
  WholeReduceSum(dst, At<float>(0, 128), 64, 2, 2, 1, 8);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777278.0f);
  EXPECT_EQ(Ptr<float>(1024)[1], -1.0f);
  EXPECT_EQ(Ptr<float>(1024)[2], 16777278.0f);
  // Inactive lanes contribute 0: lanes 0..2 only -> (2^24 + 1) + (1 + 0) = 2^24 + 1 -> 2^24.
  WholeReduceSum(dst, At<float>(0, 128), 3, 1, 1, 1, 8);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777216.0f);
  uint64_t mask[2] = {0x6, 0};  // lanes 1, 2: 1 + 1
  WholeReduceSum(dst, At<float>(0, 128), mask, 1, 1, 1, 8);
  EXPECT_EQ(Ptr<float>(1024)[0], 2.0f);
  EXPECT_EQ(ctx_.counters.vecRepeats[static_cast<int>(sim::OpClass::kReduce)], 4u);
}

TEST_F(ReduceTest, WholeReduceSumHalfSaturatesInsideTheTree) {
  // [60000, 60000, -30000, 100, 0...]: 60000 + 60000 -> 65504 (saturated); -30000 + 100 =
  // -29900 -> -29904 (ulp 16); 65504 - 29904 = 35600 is a tie between 35584 (significand
  // 1112, even) and 35616 -> 35584. (The docs' "35604" ignores half rounding.)
  const double v[4] = {60000, 60000, -30000, 100};
  for (int i = 0; i < 128; ++i) Ptr<half>(0)[i] = H(i < 4 ? v[i] : 0);
  WholeReduceSum(At<half>(512, 16), At<half>(0, 128), 128, 1, 1, 1, 8);
  EXPECT_EQ(HalfValue(Bits(Ptr<half>(512)[0])), 35584.0);
}

TEST_F(ReduceTest, WholeReduceSumDstIsElementAligned) {
  FillOrderProbe(Ptr<float>(0));
  WholeReduceSum(At<float>(516, 4), At<float>(0, 64), 64, 1, 1, 1, 8);  // 4-byte aligned: legal
  EXPECT_EQ(Ptr<float>(516)[0], 16777278.0f);
  EXPECT_NE(FailMessage([&] { WholeReduceSum(At<float>(514, 4), At<float>(0, 64), 64, 1, 1, 1, 8); })
                .find("WholeReduceSum: dst UB address 514 is not 4-byte aligned"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { WholeReduceSum(At<float>(512, 4), At<float>(0, 64), 64, 256, 1, 1, 0); })
                .find("WholeReduceSum: repeatTime 256 is outside [0, 255]"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { WholeReduceSum(At<float>(512, 4), At<float>(0, 64), 64, 5, 1, 1, 0); })
                .find("dst: results reach byte 20 but the tensor has 16 bytes"),
            std::string::npos);
}

TEST_F(ReduceTest, BlockReduceSumPerBlockAndEmptyBlocksUnchanged) {
  float* src = Ptr<float>(0);
  for (int i = 0; i < 128; ++i) src[i] = static_cast<float>(i);
  src[8] = 16777216.0f;  // block 1 of repeat 0: [2^24, 9, ..., 15]
  for (int i = 0; i < 16; ++i) Ptr<float>(1024)[i] = -1.0f;
  // Lanes 0..11 active: block 0 full, block 1 lanes 8..11, blocks 2..7 empty.
  BlockReduceSum(At<float>(1024, 16), At<float>(0, 128), 2, 12, 1, 1, 8);
  // Block 0: ((0+1)+(2+3)) + ((4+5)+(6+7)) = 28. Block 1: (2^24 + 9) -> 2^24 + 8 (tie to
  // even), (10 + 11) = 21, + 0 + 0; then 2^24 + 8 + 21 = 2^24 + 29 -> 2^24 + 28 (tie, even).
  EXPECT_EQ(Ptr<float>(1024)[0], 28.0f);
  EXPECT_EQ(Ptr<float>(1024)[1], 16777244.0f);
  EXPECT_EQ(Ptr<float>(1024)[2], -1.0f);  // no active lane: unchanged
  // Repeat 1 (dstRepStride 1 = 8 outputs): block 0 = 64 + ... + 71 = 540; block 1 lanes 72..75 = 294.
  EXPECT_EQ(Ptr<float>(1024)[8], 540.0f);
  EXPECT_EQ(Ptr<float>(1024)[9], 294.0f);
  EXPECT_EQ(Ptr<float>(1024)[10], -1.0f);
  EXPECT_NE(FailMessage([&] { BlockReduceSum(At<float>(1040, 8), At<float>(0, 64), 1, 64, 1, 1, 8); })
                .find("BlockReduceSum: dst UB address 1040 is not 32-byte aligned"),
            std::string::npos);
}

TEST_F(ReduceTest, PairReduceSumAddsNeighbours) {
  for (int i = 0; i < 128; ++i) Ptr<half>(0)[i] = H(i);
  PairReduceSum(At<half>(512, 64), At<half>(0, 128), 1, 128, 1, 1, 8);
  for (int k = 0; k < 64; ++k) ASSERT_EQ(HalfValue(Bits(Ptr<half>(512)[k])), 4.0 * k + 1) << k;
}

TEST_F(ReduceTest, ReduceSumCountAccumulatesRepeatsSequentially) {
  // Repeat sums: [2^24, 1, 1] (lane 0 of each repeat; repeat 2 is a 2-element tail).
  float* src = Ptr<float>(0);
  for (int i = 0; i < 130; ++i) src[i] = 0.0f;
  src[0] = 16777216.0f;
  src[64] = 1.0f;
  src[128] = 1.0f;
  auto dst = At<float>(1024, 8);
  ReduceSum(dst, At<float>(0, 130), At<float>(2048, 8), 130);
  // Sequential: (2^24 + 1) + 1 -> 2^24 twice; a tree over repeats would give 2^24 + 2.
  EXPECT_EQ(Ptr<float>(1024)[0], 16777216.0f);
  // Inside a repeat the tree still applies.
  FillOrderProbe(src);
  ReduceSum(dst, At<float>(0, 64), At<float>(2048, 8), 64);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777278.0f);
  EXPECT_EQ(ctx_.counters.vecRepeats[static_cast<int>(sim::OpClass::kReduce)], 3u + 1u);
  EXPECT_NE(FailMessage([&] { ReduceSum(dst, At<float>(0, 64), dst, 65); }).find("ReduceSum: src: active lanes reach"),
            std::string::npos);
}

// The count form issues what CANN's ReduceSum issues. Atlas A2/A3 (dav_c220 ReduceSumImpl): counter mode,
// one vcadd accumulating into the ACC register, get_acc_val between V -> S and S -> V / S -> MTE3
// handshakes, the mask restored only when the call set it. Training series (dav_c100, "other version"):
// 130 floats are a body of 2 full repeats and a 2-element tail. Body (ReduceSumImpl): FirstStep one vcadd
// of 2 repeats into tmp; SecondStep 2 sums are a tail of the 64-lane step: one vcadd into dst, V -> S,
// scalar copy to tmp; FinalStep one result: V -> S, S -> V, S -> MTE3; then the API's V -> S. Tail (one
// repeat): one vcadd into tmp, V -> S, S -> V, S -> MTE3; V -> S; the two sums to tmp[0, 2), S -> V; one
// vcadd of 2 lanes into tmp, V -> S, S -> V, S -> MTE3. 4 vcadds, 5 repeats, 13 handshakes, 2 barriers.
TEST_F(ReduceTest, ReduceSumCountIssuesCannsInstructions) {
  for (const char* soc : {"ascend910b", "ascend910"}) {
    UseSoc(soc);
    float* src = Ptr<float>(0);
    for (int i = 0; i < 130; ++i) src[i] = 1.0f;
    auto dst = At<float>(1024, 8);
    ReduceSum(dst, At<float>(0, 130), At<float>(2048, 8), 130);
    const bool a2 = std::string(soc) == "ascend910b";
    EXPECT_EQ(Ptr<float>(1024)[0], 130.0f) << soc;
    EXPECT_EQ(ctx_.counters.vecInstr, a2 ? 1u : 4u) << soc;
    EXPECT_EQ(ctx_.counters.vecRepeats[static_cast<int>(sim::OpClass::kReduce)], a2 ? 3u : 5u) << soc;
    EXPECT_EQ(ctx_.counters.syncs, a2 ? 6u : 28u) << soc;
    EXPECT_EQ(normgrad::isa::Core().counters.setFlags, a2 ? 3u : 13u) << soc;
    EXPECT_EQ(normgrad::isa::Core().counters.waitFlags, a2 ? 3u : 13u) << soc;
    EXPECT_FALSE(normgrad::isa::Core().counterMode) << soc;
  }
  // isSetMask = false: the register (here counter mode, 70 elements) is used and left as it was.
  UseSoc("ascend910b");
  for (int i = 0; i < 130; ++i) Ptr<float>(0)[i] = 1.0f;
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(70);
  ReduceSum<float, false>(At<float>(1024, 8), At<float>(0, 130), At<float>(2048, 8), 130);
  EXPECT_EQ(Ptr<float>(1024)[0], 70.0f);
  EXPECT_TRUE(normgrad::isa::Core().counterMode);
  EXPECT_EQ(normgrad::isa::Core().maskLo, 70u);
}

TEST_F(ReduceTest, ReduceSumHighDimUsesTreesOverPartialSums) {
  // 3 repeats with sums [2^24, 1, 1] -> tmp; then one tree over [2^24, 1, 1, 0, ...]:
  // (2^24 + 1) -> 2^24, (1 + 0) = 1, then 2^24 + 1 -> 2^24.
  float* src = Ptr<float>(0);
  for (int i = 0; i < 192; ++i) src[i] = 0.0f;
  src[0] = 16777216.0f;
  src[64] = 1.0f;
  src[128] = 1.0f;
  ReduceSum(At<float>(1024, 8), At<float>(0, 192), At<float>(2048, 8), 64, 3, 8);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777216.0f);
  // With [1, 2^24, 1]: tree (1 + 2^24) -> 2^24, (1 + 0) -> 1, 2^24 + 1 -> 2^24; sequential too.
  // With [2^24, 1, 1, 1]: tree (2^24+1)->2^24, (1+1)=2 -> 2^24 + 2; sequential gives 2^24.
  for (int i = 0; i < 256; ++i) Ptr<float>(4096)[i] = 0.0f;
  Ptr<float>(4096)[0] = 16777216.0f;
  Ptr<float>(4096)[64] = Ptr<float>(4096)[128] = Ptr<float>(4096)[192] = 1.0f;
  ReduceSum(At<float>(1024, 8), At<float>(4096, 256), At<float>(2048, 8), 64, 4, 8);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777218.0f);
  // 9 repeats need 9 tmp elements (CANN's api_check: repeatTime elements).
  EXPECT_NE(FailMessage([&] { ReduceSum(At<float>(1024, 8), At<float>(0, 576), At<float>(2048, 8), 64, 9, 8); })
                .find("ReduceSum: sharedTmpBuffer has 8 elements, 9 repeats need 9"),
            std::string::npos);
}

// CANN's sequence for the high-dim form (ReduceSumFirstStep: vcadd of the repeats into tmp; SecondStep: on
// dav-c220 one counter-mode vcadd over the repeat sums, on dav-c100 full repeats of them then the tail;
// FinalStep: a vcadd of the second sums or, when one is left, a scalar copy), on both series.
// 300 repeats of float, one lane each (src[64 r] = 1): repeat sums 1; second sums [64 x4, 44]; total 300.
TEST_F(ReduceTest, ReduceSumHighDimIssuesCannsSteps) {
  for (const char* soc : {"ascend910b", "ascend910"}) {
    UseSoc(soc);
    const bool a2 = std::string(soc) == "ascend910b";
    float* src = Ptr<float>(0);
    for (int i = 0; i < 300 * 64; ++i) src[i] = i % 64 == 0 ? 1.0f : 5.0f;
    ReduceSum(At<float>(90000, 8), At<float>(0, 300 * 64), At<float>(80000, 304), 1, 300, 8);
    EXPECT_EQ(Ptr<float>(90000)[0], 300.0f) << soc;
    // tmp[0, 5) holds the second sums.
    EXPECT_EQ(Ptr<float>(80000)[0], 64.0f) << soc;
    EXPECT_EQ(Ptr<float>(80000)[4], 44.0f) << soc;
    // A2: 255 + 45 repeats, 1 counter-mode vcadd (5 repeats), 1 final: 4 instructions. dav-c100: 248 + 52,
    // 4 full second repeats, the tail (44) into dst, 1 final: 5 instructions, one V -> S and one S -> V.
    EXPECT_EQ(ctx_.counters.vecInstr, a2 ? 4u : 5u) << soc;
    EXPECT_EQ(ctx_.counters.vecRepeats[static_cast<int>(sim::OpClass::kReduce)], a2 ? 306u : 306u) << soc;
    EXPECT_EQ(normgrad::isa::Core().counters.setFlags, a2 ? 0u : 2u) << soc;
    EXPECT_EQ(ctx_.counters.syncs, a2 ? 2u : 6u) << soc;
    // CANN leaves the mask as its last step set it: 5 lanes.
    EXPECT_EQ(normgrad::isa::Core().maskLo, 0x1Fu) << soc;
  }
}

// Training series: CANN sums the full repeats of the count form by trees over their sums (ReduceSumImpl),
// not sequentially. Repeat sums [2^24, 1, 1, 1]: tree (2^24 + 1) -> 2^24, 1 + 1 = 2, 2^24 + 2; sequential
// gives 2^24 (each + 1 is a tie to even).
TEST_F(ReduceTest, ReduceSumCountOnTrainingSeriesSumsRepeatsByTree) {
  UseSoc("ascend910");
  float* src = Ptr<float>(0);
  for (int i = 0; i < 256; ++i) src[i] = i % 64 == 0 ? 1.0f : 0.0f;
  src[0] = 16777216.0f;
  ReduceSum(At<float>(1024, 8), At<float>(0, 256), At<float>(2048, 8), 256);
  EXPECT_EQ(Ptr<float>(1024)[0], 16777218.0f);
  // sharedTmpBuffer: 4 repeats need 4 elements; a 2-element tail needs 2.
  EXPECT_NE(FailMessage([&] { ReduceSum(At<float>(1024, 8), At<float>(0, 256), At<float>(2048, 3), 256); })
                .find("ReduceSum: sharedTmpBuffer has 3 elements, 4 repeats need 4"),
            std::string::npos);
  EXPECT_NE(FailMessage([&] { ReduceSum(At<float>(1024, 8), At<float>(0, 66), At<float>(2048, 1), 66); })
                .find("ReduceSum: sharedTmpBuffer has 1 elements, 1 repeats need 2"),
            std::string::npos);
}

TEST_F(ReduceTest, AllZeroBitwiseMaskWarns) {
  uint64_t mask[2] = {0, 0};
  Ptr<float>(512)[0] = 5.0f;
  WholeReduceSum(At<float>(512, 8), At<float>(0, 64), mask, 1, 1, 1, 8);
  EXPECT_EQ(Ptr<float>(512)[0], 5.0f);
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_NE(ctx_.warnings[0].find("WholeReduceSum: bitwise mask is all zero"), std::string::npos);
}

}  // namespace
}  // namespace vectest
