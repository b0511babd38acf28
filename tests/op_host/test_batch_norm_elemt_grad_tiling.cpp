// BatchNormElemtGrad tiling: table tests from shape to tiling fields, and invariants over many
// shapes (UB budget, every element owned by exactly one core, mode for typical shapes).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "batch_norm_elemt_grad_tiling.h"
#include "chips_under_test.h"

namespace normgrad {
namespace {

const SocFeatures kA2 = MakeSocFeatures(48, 192 * 1024, false);

// A chip with DataCopyPad but no bfloat16: the feature check alone must reject a bf16 call.
SocFeatures NoBf16Chip() {
  SocFeatures soc = MakeSocFeatures(32, 256 * 1024, false);
  soc.hasBf16 = false;
  return soc;
}

BatchNormElemtGradProblem Problem(int64_t n, int64_t c, int64_t hw, uint32_t dtype) {
  BatchNormElemtGradProblem p;
  p.n = n;
  p.c = c;
  p.hw = hw;
  p.counterNumel = 1;
  p.dyDtype = p.xDtype = p.dxDtype = dtype;
  return p;
}

BatchNormElemtGradTiling Tile(const BatchNormElemtGradProblem& p, const SocFeatures& soc = kA2) {
  BatchNormElemtGradTiling t{};
  const char* why = nullptr;
  EXPECT_TRUE(BatchNormElemtGradTilingFor(p, soc, &t, &why)) << (why ? why : "");
  return t;
}

// Elements of the flat [n, c, hw] range each core owns, computed from the tiling fields alone.
std::vector<int64_t> OwnedElems(const BatchNormElemtGradTiling& t) {
  std::vector<int64_t> owner(t.n * t.c * t.hw, -1);
  auto own = [&](int64_t i, int64_t core) {
    if (owner[i] != -1) ADD_FAILURE() << "element " << i << " owned by cores " << owner[i] << " and " << core;
    owner[i] = core;
  };
  for (int64_t core = 0; core < t.blockDim; ++core) {
    if (t.mode == kBnElemtRowScalars) {
      const int64_t begin = core * t.rowScalars.chunkElems;
      const int64_t end = std::min<int64_t>(begin + t.rowScalars.chunkElems, t.n * t.c * t.hw);
      for (int64_t i = begin; i < end; ++i) own(i, core);
    } else {
      const auto& s = t.channelSlabs;
      const int64_t c0 = core / s.batchGroups * s.channelsPerCore;
      const int64_t n0 = core % s.batchGroups * s.batchesPerCore;
      for (int64_t n = n0; n < std::min<int64_t>(n0 + s.batchesPerCore, t.n); ++n) {
        for (int64_t c = c0; c < std::min<int64_t>(c0 + s.channelsPerCore, t.c); ++c) {
          for (int64_t h = 0; h < t.hw; ++h) own((n * t.c + c) * t.hw + h, core);
        }
      }
    }
  }
  return owner;
}

double LoadBalance(const BatchNormElemtGradTiling& t) {
  std::vector<int64_t> owner = OwnedElems(t);
  std::vector<int64_t> count(t.blockDim, 0);
  for (int64_t o : owner) ++count[o];
  int64_t most = *std::max_element(count.begin(), count.end());
  return static_cast<double>(owner.size()) / t.blockDim / most;
}

TEST(BatchNormElemtGradTiling, ResNetStage1Fp16UsesRowScalars) {
  BatchNormElemtGradTiling t = Tile(Problem(32, 256, 56 * 56, kDtypeFloat16));
  EXPECT_EQ(t.mode, kBnElemtRowScalars);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.rowScalars.chunkElems, 535296);  // ceil(25,690,112 / 48) rounded up to 256
  EXPECT_EQ(t.rowScalars.tileElems, 9216u);    // 188,416 budget bytes / 20 per element, down to 256
}

TEST(BatchNormElemtGradTiling, ResNetStage4Fp16UsesChannelSlabs) {
  BatchNormElemtGradTiling t = Tile(Problem(32, 2048, 7 * 7, kDtypeFloat16));
  EXPECT_EQ(t.mode, kBnElemtChannelSlabs);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.channelSlabs.channelsPerCore, 43u);  // ceil(2048 / 48)
  EXPECT_EQ(t.channelSlabs.batchesPerCore, 32u);
  EXPECT_EQ(t.channelSlabs.batchGroups, 1u);
  EXPECT_EQ(t.channelSlabs.rowPitch, 2112u);  // 43 * 49 = 2107 rounded up to 16 halves
  EXPECT_EQ(t.channelSlabs.rowsPerTile, 2u);  // 188,416 / (2112 * 36)
}

TEST(BatchNormElemtGradTiling, ResNetStage4AtFourImagesUsesChannelRows) {
  // 4 batches of 43 channels of 49: the slabs would expand each coefficient along the slab row
  // with one Duplicate per channel (172 per core, 1.9 us of vector work against 0.9 for rows of
  // 64 lanes); the same blocks of channels x batches, two tiles of two batches.
  BatchNormElemtGradTiling t = Tile(Problem(4, 2048, 7 * 7, kDtypeBfloat16));
  EXPECT_EQ(t.mode, kBnElemtChannelRows);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.channelSlabs.channelsPerCore, 43u);
  EXPECT_EQ(t.channelSlabs.batchesPerCore, 4u);
  EXPECT_EQ(t.channelSlabs.rowPitch, 64u);  // 49 rounded up to 16 bf16
  EXPECT_EQ(t.channelSlabs.rowsPerTile, 2u);  // two tiles in flight
  // Where the slabs expand once for many batches they stay (ResNetStage4Fp16UsesChannelSlabs);
  // a few rows of one block take the slabs too: a copy per batch would cost more than the expansion.
  EXPECT_EQ(Tile(Problem(96, 16, 64, kDtypeFloat32)).mode, kBnElemtChannelSlabs);
  EXPECT_EQ(Tile(Problem(4, 6, 9, kDtypeFloat32)).mode, kBnElemtChannelSlabs);
  // Without Brcb no channel rows.
  SocFeatures noBrcb = kA2;
  noBrcb.hasBrcb = false;
  EXPECT_EQ(Tile(Problem(4, 2048, 7 * 7, kDtypeBfloat16), noBrcb).mode, kBnElemtChannelSlabs);
}

TEST(BatchNormElemtGradTiling, SmallNcInputSpreadsOverTheCoresItsTrafficPays) {
  // 30 KiB of traffic: 30 cores' worth of 1 KiB. The slabs copy the statistics into the UB (exact
  // bytes, no 64-byte cache lines), so the cap is 30 cores; a second batch group would read all
  // 128 channels' statistics again (2.5 KiB, over 4.5 % of 30 KiB): channel groups only,
  // ceil(128 / 30) = 5 channels each, 26 cores.
  BatchNormElemtGradTiling t = Tile(Problem(20, 128, 1, kDtypeFloat32));
  EXPECT_EQ(t.mode, kBnElemtChannelSlabs);
  EXPECT_EQ(t.channelSlabs.statsInUb, 1u);
  EXPECT_EQ(t.blockDim, 26u);
  EXPECT_EQ(t.channelSlabs.channelsPerCore, 5u);
  EXPECT_EQ(t.channelSlabs.batchesPerCore, 20u);
  EXPECT_EQ(t.channelSlabs.batchGroups, 1u);
  EXPECT_EQ(t.channelSlabs.rowPitch, 8u);  // 5 floats rounded up to a 32-byte block
  EXPECT_EQ(t.channelSlabs.rowsPerTile, 20u);
  EXPECT_EQ(Tile(Problem(20, 128, 1, kDtypeBfloat16)).blockDim, 15u);  // 15 KiB: 9 channels a core
  // Under 2 KiB of traffic in all: one core.
  EXPECT_EQ(Tile(Problem(2, 64, 1, kDtypeFloat32)).blockDim, 1u);
  // A counter too long for the UB copy: scalar reads, so 1 + 4.5 % of 30 KiB / 384 bytes = 4
  // cores of 32 channels.
  BatchNormElemtGradProblem longCounter = Problem(20, 128, 1, kDtypeFloat32);
  longCounter.counterNumel = kBnElemtUbCounterMax + 1;
  const BatchNormElemtGradTiling g = Tile(longCounter);
  EXPECT_EQ(g.channelSlabs.statsInUb, 0u);
  EXPECT_EQ(g.blockDim, 4u);
  EXPECT_EQ(g.channelSlabs.channelsPerCore, 32u);
}

TEST(BatchNormElemtGradTiling, FewChannelsSplitBatchesToo) {
  // 16 channels cannot keep 48 cores busy alone: batches are split as well.
  BatchNormElemtGradTiling t = Tile(Problem(96, 16, 64, kDtypeFloat32));
  EXPECT_EQ(t.mode, kBnElemtChannelSlabs);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_GE(LoadBalance(t), 0.95);
}

TEST(BatchNormElemtGradTiling, DetectionBackboneUsesAllCores) {
  BatchNormElemtGradTiling t = Tile(Problem(1, 32, 352 * 640, kDtypeBfloat16));
  EXPECT_EQ(t.mode, kBnElemtRowScalars);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.rowScalars.chunkElems % 256, 0);
}

TEST(BatchNormElemtGradTiling, MixedWidthsUseRowScalars) {
  BatchNormElemtGradProblem p = Problem(32, 64, 9, kDtypeFloat32);
  p.dxDtype = kDtypeFloat16;
  BatchNormElemtGradTiling t = Tile(p);
  EXPECT_EQ(t.mode, kBnElemtRowScalars);
  EXPECT_EQ(t.rowScalars.chunkElems % 256, 0);  // 512 bytes of the 2-byte dx
}

TEST(BatchNormElemtGradTiling, RejectsChipsWithoutDataCopyPadOrBf16) {
  BatchNormElemtGradTiling t{};
  const char* why = nullptr;
  EXPECT_FALSE(BatchNormElemtGradTilingFor(Problem(2, 3, 4, kDtypeFloat32), MakeSocFeatures(32, 256 * 1024, true), &t,
                                           &why));
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("DataCopyPad"), std::string::npos);
  why = nullptr;
  EXPECT_FALSE(BatchNormElemtGradTilingFor(Problem(2, 3, 4, kDtypeBfloat16), NoBf16Chip(), &t, &why));
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("bfloat16"), std::string::npos);
}

TEST(BatchNormElemtGradTiling, CopiesDtypesAndShape) {
  BatchNormElemtGradProblem p = Problem(3, 5, 7, kDtypeBfloat16);
  p.counterDtype = kDtypeInt32;
  p.counterNumel = 6;
  p.statDtype[kBnInvstd] = kDtypeFloat16;
  p.hasWeight = false;
  BatchNormElemtGradTiling t = Tile(p);
  EXPECT_EQ(t.counterDtype, static_cast<uint32_t>(kDtypeInt32));
  EXPECT_EQ(t.counterNumel, 6);
  EXPECT_EQ(t.statDtype[kBnInvstd], static_cast<uint32_t>(kDtypeFloat16));
  EXPECT_EQ(t.statDtype[kBnMean], static_cast<uint32_t>(kDtypeFloat32));
  EXPECT_EQ(t.hasWeight, 0u);
  EXPECT_EQ(t.n * t.c * t.hw, 105);
}

// Invariants over random shapes and dtypes, on every A2/A3 and Ascend 950 chip of every core count
// (the operator serves no other; chips_under_test.h).
TEST(BatchNormElemtGradTiling, InvariantsOverRandomShapes) {
  std::mt19937 rng(20240605);
  const uint32_t dtypes[] = {kDtypeFloat32, kDtypeFloat16, kDtypeBfloat16};
  std::vector<normgrad_test::ChipUnderTest> socs;
  for (const normgrad_test::ChipUnderTest& chip : normgrad_test::ChipsOfEveryCoreCount()) {
    if (chip.soc.hasDataCopyPad && chip.soc.hasBf16) socs.push_back(chip);
  }
  ASSERT_EQ(socs.size(), 11u);  // A2/A3: 48, 40, 1 and 7 cores; Ascend 950: 72, 64, 56, 16, 8, 1 and 7
  for (int i = 0; i < 200; ++i) {
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const int64_t hwChoices[] = {1, 2, 3, 7, 9, 49, 196, 511, 512, 784, 3136, pick(1, 5000)};
    BatchNormElemtGradProblem p = Problem(pick(1, 24), pick(1, 200), hwChoices[pick(0, 11)], dtypes[pick(0, 2)]);
    if (i % 5 == 0) p.dxDtype = dtypes[pick(0, 2)];
    const SocFeatures& soc = socs[i % socs.size()].soc;
    BatchNormElemtGradTiling t = Tile(p, soc);
    SCOPED_TRACE(testing::Message() << socs[i % socs.size()].label << ": n=" << p.n << " c=" << p.c << " hw=" << p.hw
                                    << " mode=" << t.mode);
    ASSERT_GE(t.blockDim, 1u);
    ASSERT_LE(t.blockDim, soc.vectorCores);
    EXPECT_LE(BatchNormElemtGradUbBytes(t), normgrad::UsableUbBytes(soc));
    std::vector<int64_t> owner = OwnedElems(t);
    EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0) << "elements owned by no core";
    std::vector<int64_t> count(t.blockDim, 0);
    for (int64_t o : owner) ++count[o];
    EXPECT_EQ(std::count(count.begin(), count.end(), 0), 0) << "a launched core owns nothing";
    if (t.mode == kBnElemtRowScalars) {
      EXPECT_EQ(t.rowScalars.chunkElems * KernelDtypeBytes(std::min({t.dyDtype, t.xDtype, t.dxDtype})) % 512, 0);
      EXPECT_GE(t.rowScalars.tileElems, 1u);
    } else {
      EXPECT_EQ(KernelDtypeBytes(t.dyDtype), KernelDtypeBytes(t.dxDtype));
      EXPECT_EQ(t.channelSlabs.rowPitch * KernelDtypeBytes(t.dyDtype) % 32, 0u);
      EXPECT_GE(t.channelSlabs.rowsPerTile, 1u);
      EXPECT_LE(t.channelSlabs.rowsPerTile, std::min<uint32_t>(t.channelSlabs.batchesPerCore, 4095u));
      if (t.mode == kBnElemtChannelRows) {
        // One UB row per (n, c): hw rounded up to 32 bytes, at most 255 fp32 blocks (repeat stride).
        EXPECT_EQ(t.channelSlabs.rowPitch, (t.hw * KernelDtypeBytes(t.dyDtype) + 31) / 32 * 32 / KernelDtypeBytes(t.dyDtype));
        EXPECT_LE(t.channelSlabs.rowPitch / 8, 255u);
        EXPECT_LE(t.channelSlabs.channelsPerCore, 4095u);  // one DataCopyPad per batch
      } else {
        EXPECT_GE(t.channelSlabs.rowPitch, t.channelSlabs.channelsPerCore * t.hw);
      }
    }
  }
}

TEST(BatchNormElemtGradTiling, TypicalNetworkShapesBalanceCores) {
  const int64_t shapes[][3] = {{32, 256, 3136}, {32, 512, 784}, {32, 1024, 196}, {32, 2048, 49},
                               {32, 64, 3136},  {32, 128, 784}, {32, 256, 196},  {32, 512, 49},
                               {1, 32, 352 * 640}, {1, 64, 176 * 320}, {256, 1024, 1}};
  for (const auto& s : shapes) {
    for (uint32_t dtype : {kDtypeFloat32, kDtypeFloat16}) {
      BatchNormElemtGradTiling t = Tile(Problem(s[0], s[1], s[2], dtype));
      SCOPED_TRACE(testing::Message() << s[0] << "x" << s[1] << "x" << s[2] << " mode " << t.mode);
      // 1024 channels in groups of 22 need only 47 cores for the same makespan as 48.
      EXPECT_GE(t.blockDim, 47u);
      EXPECT_GE(LoadBalance(t), 0.95);
      if (s[2] >= 512) {
        EXPECT_EQ(t.mode, kBnElemtRowScalars);
      } else {
        EXPECT_TRUE(t.mode == kBnElemtChannelSlabs || t.mode == kBnElemtChannelRows);
      }
    }
  }
}

}  // namespace
}  // namespace normgrad
