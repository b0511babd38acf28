// GroupNormGrad tiling: table tests from shape to tiling fields, and invariants over many shapes
// (UB budget, every piece covered once, balanced cores), recomputed here from the field meanings.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "chips_under_test.h"
#include "group_norm_grad_tiling.h"

namespace {

using namespace normgrad;  // NOLINT: the tiling vocabulary under test

using normgrad::GroupNormGradRequest;
using normgrad::GroupNormGradTilingFor;
using normgrad::SocFeatures;

const SocFeatures kA2 = MakeSocFeatures(48, 192 * 1024, false);
// 32 cores of 256 KiB with every A2 feature: the training series' sizes, DataCopyPad kept.
const SocFeatures kTraining = MakeSocFeatures(32, 256 * 1024, false);
// The Atlas training series: no DataCopyPad, no hard SyncAll.
const SocFeatures kAscend910 = MakeSocFeatures(32, 256 * 1024, true);

GroupNormGradTiling Tile(int64_t n, int64_t c, int64_t hw, int64_t g, KernelDtype dtype,
                         SocFeatures soc = kA2, bool needDx = true) {
  GroupNormGradRequest req;
  req.n = n;
  req.c = c;
  req.hw = hw;
  req.group = g;
  req.dtype = dtype;
  req.needDx = needDx;
  GroupNormGradTiling t{};
  std::string err = GroupNormGradTilingFor(req, soc, &t);
  EXPECT_EQ(err, "") << n << "x" << c << "x" << hw << " g=" << g;
  return t;
}

struct Shape {
  int64_t n, c, hw, g;
};

// The shared plan's whole groups then one split wave: 2 x 640 x 32x32 fp16, 20 rows of 1024 a
// group (80 KiB of dy + x): 48 groups whole, the other 16 in one wave of 320 rows, 6-7 a core.
// The same plan for 1280 channels (groups of 40 rows), where no re-read layout is modeled faster.
TEST(GroupNormGradTiling, WholeGroupsThenOneSplitWave) {
  for (int64_t c : {640, 1280}) {
    SCOPED_TRACE(c);
    GroupNormGradTiling t = Tile(2, c, 32 * 32, 32, kDtypeFloat16);
    EXPECT_EQ(t.mode, kGngWholeGroupSplit);
    EXPECT_EQ(t.blockDim, 48u);
    EXPECT_EQ(t.hwParts, 1u);
    EXPECT_EQ(t.wholeGroupsPerCore, 1u);
    EXPECT_EQ(t.waveGroups, 16u);
    EXPECT_EQ(t.workspaceBytes, 2u * 2 * c * 4);  // piece-sum planes, already 512-aligned
    // The wave's SyncAll is split phase around the whole groups: for 640 channels the slice (7
    // rows of 2 KiB per tensor) read again from the L2 costs the port 0.5 us, less than the
    // 0.7 us the whole group's dx bytes alone hide.
    EXPECT_EQ(t.paramsSplitPhase, 1u);
    // Not on the training series (soft SyncAll, block copies).
    EXPECT_EQ(Tile(2, c, 32 * 32, 32, kDtypeFloat16, kAscend910).paramsSplitPhase, 0u);
  }
}

// Worked example of group_norm_grad_tiling_group_phases.cpp, SD-UNet fp16 64x64: the plan would
// keep 48 groups whole and split 16 in one wave on 48 cores (its barrier split phase around the
// whole groups: 15.8 us in the simulator); re-read groups on 32 cores with a 4096 chunk (a
// quarter of the plan's instructions per element, no barrier) are modeled and simulated faster
// (15.5 us).
TEST(GroupNormGradTiling, StableDiffusionFp16ReadsGroupsOnTheirOwnCores) {
  GroupNormGradTiling t = Tile(2, 320, 64 * 64, 32, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngRereadGroups);
  EXPECT_EQ(t.rereadLayout, kGngRereadOwner);
  EXPECT_EQ(t.blockDim, 32u);
  EXPECT_EQ(t.rowStride, 4096u);
  EXPECT_EQ(t.chunkElems, 4096u);
  EXPECT_EQ(t.wholeGroupsPerTile, 0u);  // 10 rows of 8 KiB: two passes of a group
}

TEST(GroupNormGradTiling, StableDiffusionFp32ReadsEachGroupTwiceOnItsOwnCore) {
  // 40960 fp32 elements per group: 320 KiB of dy + x, more than one core's UB. Split waves would
  // need three SyncAlls (64 groups in waves of 24, 24, 16); instead core k owns group k of both
  // samples, reads each group twice (the second read from L2: 3 x 160 KiB x 32 cores << 192 MiB)
  // and writes dgamma/dbeta of its 10 channels with no SyncAll at all.
  GroupNormGradTiling t = Tile(2, 320, 64 * 64, 32, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngRereadGroups);
  EXPECT_EQ(t.rereadLayout, kGngRereadOwner);
  EXPECT_EQ(t.blockDim, 32u);
  EXPECT_EQ(t.hwParts, 1u);
  EXPECT_EQ(t.splitTileSlots, 5u);        // half a group per tile: two passes
  EXPECT_EQ(t.wholeGroupsPerTile, 0u);
  EXPECT_EQ(t.paramChannelsPerCore, 10u);  // core k's channels are group k's
  EXPECT_EQ(t.paramChannelsRemainder, 0u);
  EXPECT_EQ(t.waveGroups, 0u);
  // On the training series (no DataCopyPad) the split waves stay.
  EXPECT_EQ(Tile(2, 320, 64 * 64, 32, kDtypeFloat32, kAscend910).mode, kGngSplitGroup);
}

// Where the plan stays: no dx; short rows whose split wave costs less than 32 cores' vector
// time (SD-UNet 640 ch 32x32 fp16); groups of few long rows.
TEST(GroupNormGradTiling, RereadOnlyWhereModeledFaster) {
  EXPECT_EQ(Tile(2, 320, 64 * 64, 32, kDtypeFloat32, kA2, false).mode, kGngParamsOnly);  // no dx
  EXPECT_EQ(Tile(2, 640, 32 * 32, 32, kDtypeFloat16).mode, kGngWholeGroupSplit);
  EXPECT_EQ(Tile(1, 16, 3000, 2, kDtypeFloat32).mode, kGngSplitGroup);  // 2 groups, 16 rows
  // More groups than cores: balanced runs of whole groups, one SyncAll before dgamma/dbeta.
  GroupNormGradTiling t = Tile(1, 600, 9000, 100, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngRereadGroups);
  EXPECT_EQ(t.rereadLayout, kGngRereadRuns);
  EXPECT_EQ(t.blockDim, 48u);
  // ResNet 56x56 16-bit: an even share of the pieces a core, the barrier split-phase under dx.
  GroupNormGradTiling r = Tile(16, 256, 3136, 32, kDtypeFloat16);
  EXPECT_EQ(r.mode, kGngRereadGroups);
  EXPECT_EQ(r.rereadLayout, kGngRereadRunsSplitPhase);
  EXPECT_EQ(r.blockDim, 48u);
}

TEST(GroupNormGradTiling, SmallGroupsManyPerTileDoubleBuffered) {
  // 8 x 256 x 28x28 fp16, 256 groups of 8 rows: 5 full rounds of whole groups over 48 cores,
  // two groups a tile, double-buffered, then the other 16 in one split wave.
  GroupNormGradTiling t = Tile(8, 256, 784, 32, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngWholeGroupSplit);  // 256 = 5 * 48 + 16
  EXPECT_EQ(t.wholeGroupsPerCore, 5u);
  EXPECT_EQ(t.rowStride, 784u);
  EXPECT_EQ(t.wholeBufferNum, 2u);
  EXPECT_GE(t.wholeGroupsPerTile, 2u);
  EXPECT_EQ(t.waveGroups, 16u);
}

TEST(GroupNormGradTiling, DetectionNeckFp32CutsRowsInThirdsAndRereadsGroups) {
  // Groups of 8 rows x 15200. The shared plan cuts rows in thirds of 5120 with the 1024 chunk
  // (one whole row per core would leave a quarter of the UB empty): 4 pieces per core, waves of
  // 8 groups x 24 pieces = 48 cores x 4, 32 SyncAlls. Re-read groups keep that geometry, and core
  // k takes group k of all 8 samples (476 KiB per tensor, twice) with no SyncAll.
  GroupNormGradTiling t = Tile(8, 256, 100 * 152, 32, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngRereadGroups);
  EXPECT_EQ(t.rereadLayout, kGngRereadOwner);
  EXPECT_EQ(t.hwParts, 3u);
  EXPECT_EQ(t.segLen, 5120u);
  EXPECT_EQ(t.lastSegLen, 15200u - 2 * 5120);
  EXPECT_EQ(t.chunkElems, 1024u);
  EXPECT_EQ(t.splitTileSlots, 4u);
  EXPECT_EQ(t.groupSlots, 24u);
}

// SD-UNet 320ch 8x8 fp16: 640 rows of 128 bytes. Whole groups plus a split wave would send
// 16 bytes of sums per (n, c) through the workspace, 4 % of the minimum traffic; a core holding
// both samples of its channels sums dgamma/dbeta itself. Spread over 48 cores (6-7 channels) it
// would share its edge groups' sums behind a barrier; one group of 10 channels a core on 32
// cores shares nothing, and the barrier (2 us) outweighs the 1.5x rows a core.
TEST(GroupNormGradTiling, SmallMapsHoldEverySampleOfAChannelRange) {
  GroupNormGradTiling t = Tile(2, 320, 8 * 8, 32, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngChannelSlab);
  EXPECT_EQ(t.blockDim, 32u);
  EXPECT_EQ(t.paramChannelsPerCore, 10u);  // core k's channels are group k's
  EXPECT_EQ(t.paramChannelsRemainder, 0u);
  EXPECT_FALSE(GngSlabExchanges(t));
  EXPECT_EQ(t.paramsSplitPhase, 0u);  // no barrier at all
  EXPECT_EQ(t.slabTileSlots, 20u);  // 2 samples x 10 channels
  EXPECT_EQ(t.rowStride, 64u);
  EXPECT_EQ(t.wholeGroupsPerCore, 0u);
  EXPECT_EQ(t.waveGroups, 0u);
  EXPECT_EQ(t.workspaceBytes, 1024u);  // 32 cores x 2 samples x 16 bytes (written by no core)
  EXPECT_LE(t.ubBytesUsed, 192u * 1024 - 8u * 1024 - 256);  // A2's UB less the toolchain's 8 KiB and the margin
}

// Groups of 12 channels over 8 x 96 rows of 1 KiB: one group a core on 8 cores would hold 96 rows
// each, so the slabs spread over 48 cores (2 channels each, a group over 6 cores) and exchange.
TEST(GroupNormGradTiling, LargerSlabsSpreadOverEveryCoreAndExchange) {
  GroupNormGradTiling t = Tile(8, 96, 256, 8, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngChannelSlab);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.paramChannelsPerCore, 2u);
  EXPECT_TRUE(GngSlabExchanges(t));
  EXPECT_EQ(t.paramsSplitPhase, 1u);
  EXPECT_EQ(t.workspaceBytes, 48u * 8 * 16);
}

TEST(GroupNormGradTiling, ResNet7x7Fp16HoldsChannelSlabs) {
  GroupNormGradTiling t = Tile(8, 512, 49, 32, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngChannelSlab);
  EXPECT_EQ(t.blockDim, 32u);
  EXPECT_EQ(t.slabTileSlots, 8u * 16);  // one group of 16 channels, 8 samples
  EXPECT_EQ(t.rowStride, 64u);
}

// The traffic target (<= 1.05 x the minimum) for the 16-bit suite shapes with HxW <= 64: the
// workspace, written once and read at most twice (each edge group by its one or two other
// sharers), stays under 2 % of the minimum 3 * N * C * HxW * 2 bytes (the whole-group plan sent
// 16 bytes per (n, c) plus group sums read back: 4-6 %).
TEST(GroupNormGradTiling, ShortRowSuiteShapesKeepWorkspaceTrafficUnderTwoPercent) {
  const Shape suite[] = {{2, 320, 64, 32}, {2, 640, 64, 32}, {2, 1280, 64, 32}, {8, 512, 49, 32}};
  for (const Shape& s : suite) {
    for (KernelDtype dt : {kDtypeFloat16, kDtypeBfloat16}) {
      GroupNormGradTiling t = Tile(s.n, s.c, s.hw, s.g, dt);
      SCOPED_TRACE(testing::Message() << s.n << "x" << s.c << "x" << s.hw << " dtype=" << dt);
      EXPECT_EQ(t.mode, kGngChannelSlab);
      const uint64_t partials = uint64_t{t.blockDim} * t.n * 16;  // bytes every core publishes
      EXPECT_LE(t.workspaceBytes, partials + 511);
      EXPECT_LE(3 * partials * 100, 2 * 3 * s.n * s.c * s.hw * 2);  // written once, read <= twice
      // Balance: whole groups a core (all equal), or at most 1 / 0.9 of the mean rows.
      const uint64_t most = t.paramChannelsPerCore + (t.paramChannelsRemainder > 0 ? 1 : 0);
      EXPECT_GE(s.c * 10, most * t.blockDim * 9);
    }
  }
}

// Channel slabs need dx and dgamma or dbeta, DataCopyPad, a balanced channel split and room.
TEST(GroupNormGradTiling, ChannelSlabsOnlyWhereTheyApply) {
  EXPECT_NE(Tile(2, 320, 64, 32, kDtypeFloat16, kA2, false).mode, kGngChannelSlab);  // no dx
  EXPECT_NE(Tile(2, 320, 64, 32, kDtypeFloat16, kAscend910).mode, kGngChannelSlab);  // block copies
  EXPECT_NE(Tile(16, 64, 3136, 32, kDtypeFloat16).mode, kGngChannelSlab);  // 64 channels: 2 or 1 a core
  EXPECT_NE(Tile(2, 320, 4096, 32, kDtypeFloat16).mode, kGngChannelSlab);  // 2 x 7 rows of 8 KiB
  EXPECT_NE(Tile(2, 640, 1024, 32, kDtypeFloat16).mode, kGngChannelSlab);  // fits, but rows of 2 KiB
  EXPECT_EQ(Tile(2, 640, 256, 32, kDtypeFloat32).mode, kGngChannelSlab);   // rows of 1 KiB
  GroupNormGradRequest req;
  req.n = 2;
  req.c = 320;
  req.hw = 64;
  req.group = 32;
  req.dtype = kDtypeFloat16;
  req.needDgamma = false;
  req.needDbeta = false;
  GroupNormGradTiling t{};
  ASSERT_EQ(GroupNormGradTilingFor(req, kA2, &t), "");
  EXPECT_NE(t.mode, kGngChannelSlab);  // dx only: whole groups need no exchange at all
}

TEST(GroupNormGradTiling, HxW1PadsEachChannelToOneBlockOffA2) {
  GroupNormGradTiling t = Tile(64, 128, 1, 32, kDtypeFloat32, kAscend910);
  EXPECT_NE(t.mode, kGngSampleRows);
  EXPECT_EQ(t.rowStride, 8u);
  EXPECT_EQ(t.hwParts, 1u);
  EXPECT_EQ(t.groupSlots, 4u);
}

// Sample rows: HxW = 1 on A2/A3 holds whole sample rows; per-core dgamma/dbeta partials are the
// only extra traffic.
TEST(GroupNormGradTiling, HxW1FeaturesTakeSampleRowsOnEveryCore) {
  GroupNormGradTiling t = Tile(4096, 1024, 1, 32, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngSampleRows);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.sampleRows.sampleSplit * t.sampleRows.groupSplit, 48u);
  EXPECT_EQ(t.sampleRows.groups * t.sampleRows.groupSplit, 32u);
  EXPECT_EQ(t.sampleRows.segStride, 32u);  // 32 fp32 channels a group: a 128-byte segment, no padding
  EXPECT_EQ(t.sampleRows.bufferNum, 2u);
  EXPECT_GE(t.sampleRows.rowsPerTile, 1u);
  const double minimum = 3.0 * 4096 * 1024 * 4;
  EXPECT_LE(2.0 * t.workspaceBytes, 0.02 * minimum);  // partials written once, read once
}

TEST(GroupNormGradTiling, SampleRowsSegmentLayouts) {
  GroupNormGradTiling s4 = Tile(64, 128, 1, 32, kDtypeFloat32);  // 4 channels a group: padded to 8
  EXPECT_EQ(s4.mode, kGngSampleRows);
  EXPECT_EQ(s4.sampleRows.segStride, 8u);
  GroupNormGradTiling s100 = Tile(50, 3200, 1, 32, kDtypeBfloat16);  // 100 channels: padded to 112
  EXPECT_EQ(s100.mode, kGngSampleRows);
  EXPECT_EQ(s100.sampleRows.segStride, 112u);
  GroupNormGradTiling s1 = Tile(4096, 1024, 1, 1024, kDtypeFloat16);  // one channel a group
  EXPECT_EQ(s1.mode, kGngSampleRows);
  EXPECT_EQ(s1.sampleRows.segStride, 1u);
  EXPECT_EQ(s1.sampleRows.groups % 16, 0u);  // S = 1: a core's rows are whole 32-byte rows of stats
  GroupNormGradTiling wide = Tile(64, 8192, 1, 32, kDtypeBfloat16);  // 16 KiB rows: split over groups
  EXPECT_EQ(wide.mode, kGngSampleRows);
  EXPECT_GT(wide.sampleRows.groupSplit, 1u);
  GroupNormGradTiling one = Tile(1, 1024, 1, 32, kDtypeFloat32);
  EXPECT_EQ(one.mode, kGngSampleRows);
  EXPECT_EQ(one.sampleRows.sampleSplit, 1u);  // one sample: no partials, no SyncAll
  EXPECT_EQ(one.sampleRows.stage2Channels, 0u);
  GroupNormGradTiling noDx = Tile(4096, 1024, 1, 32, kDtypeFloat32, kA2, false);
  EXPECT_EQ(noDx.mode, kGngSampleRows);
}

TEST(GroupNormGradTiling, SampleRowsOnlyWhereTheyApply) {
  EXPECT_NE(Tile(4096, 1024, 2, 32, kDtypeFloat32).mode, kGngSampleRows);          // HxW > 1
  EXPECT_NE(Tile(4096, 1024, 1, 32, kDtypeFloat32, kAscend910).mode, kGngSampleRows);  // block copies
  EXPECT_NE(Tile(2, 16384, 1, 2, kDtypeFloat32).mode, kGngSampleRows);             // 8192-element segments
}

TEST(GroupNormGradTiling, GroupLargerThanEveryCoreTogetherStreamsTwice) {
  // 1 x 64 x 512x512 fp32 with one group: 16.8 M elements, 134 MB of dy + x.
  GroupNormGradTiling t = Tile(1, 64, 512 * 512, 1, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngTwoPass);
  EXPECT_EQ(t.waveGroups, 1u);  // the only group
  EXPECT_GT(t.hwParts, 1u);  // a 1 MiB row does not fit one core: split into pieces
  EXPECT_EQ(t.segLen % 64, 0u);
  EXPECT_EQ((t.hwParts - 1) * t.segLen + t.lastSegLen, 512u * 512);
}

TEST(GroupNormGradTiling, ChannelsPerGroupAbove8000) {
  GroupNormGradTiling t = Tile(2, 16384, 1, 2, kDtypeFloat16);
  EXPECT_EQ(t.channelsPerGroup, 8192u);
  EXPECT_EQ(t.blockDim, 48u);
}

TEST(GroupNormGradTiling, DxNotRequestedIsOneStreamingPass) {
  GroupNormGradTiling t = Tile(8, 256, 100 * 152, 32, kDtypeBfloat16, kA2, false);
  EXPECT_EQ(t.mode, kGngParamsOnly);
  EXPECT_EQ(t.wholeGroupsPerCore, 0u);
  EXPECT_EQ(t.waveGroups, 256u);
}

TEST(GroupNormGradTiling, TinyProblemUsesOneCorePerGroupAndNoSyncAll) {
  // Two groups of 2 x 3 elements: one core per group (a channel slab of whole groups), dgamma/dbeta
  // of its channels without the SyncAll one core per piece (4) would need before them.
  GroupNormGradTiling t = Tile(1, 4, 3, 2, kDtypeFloat32);
  EXPECT_EQ(t.mode, kGngChannelSlab);
  EXPECT_EQ(t.blockDim, 2u);
  EXPECT_FALSE(GngSlabExchanges(t));
}

TEST(GroupNormGradTiling, OwnerLayoutHoldsRunsOfGroupsPerTile) {
  // 4 x 32 groups of 8 rows of 1024 (rows too long for a slab): core k owns group k of the four
  // samples, several groups a tile (fp32), and writes dgamma/dbeta without a SyncAll. fp16 refines
  // its owner layout with 8192-element chunks, a tile then holding less than a group (simulated
  // 10.68 -> 10.07 us against 4096 with two groups a tile).
  for (KernelDtype dt : {kDtypeFloat32, kDtypeFloat16}) {
    GroupNormGradTiling t = Tile(4, 256, 1024, 32, dt);
    EXPECT_EQ(t.mode, kGngRereadGroups);
    EXPECT_EQ(t.rereadLayout, kGngRereadOwner);
    EXPECT_EQ(t.blockDim, 32u);
    if (dt == kDtypeFloat32) {
      EXPECT_GE(t.wholeGroupsPerTile, 2u);
    } else {
      EXPECT_EQ(t.chunkElems, 8192u);
    }
  }
}

TEST(GroupNormGradTiling, LargestChunkOnlyRefinesAnOwnerLayout) {
  // SD-UNet 320 ch 32x32 16-bit: owner layout with 4096, then 8192 modeled (and simulated:
  // 8.72 -> 8.05 us) faster.
  const GroupNormGradTiling sd320 = Tile(2, 320, 32 * 32, 32, kDtypeFloat16);
  EXPECT_EQ(sd320.mode, kGngRereadGroups);
  EXPECT_EQ(sd320.rereadLayout, kGngRereadOwner);
  EXPECT_EQ(sd320.chunkElems, 8192u);
  // 8192 never replaces the plan (640 ch 32x32 16-bit: whole groups plus one split wave) nor takes
  // a layout with a SyncAll (3 x 256 x 32x32 g16 16-bit would run 9.03 -> 10.16 us).
  EXPECT_EQ(Tile(2, 640, 32 * 32, 32, kDtypeFloat16).mode, kGngWholeGroupSplit);
  EXPECT_EQ(Tile(3, 256, 32 * 32, 16, kDtypeFloat16).mode, kGngWholeGroup);
}

TEST(GroupNormGradTiling, RejectsWhatHasNoTiling) {
  GroupNormGradRequest req;
  req.n = 2;
  req.c = 30;
  req.hw = 4;
  req.group = 4;  // 30 % 4 != 0
  GroupNormGradTiling t{};
  EXPECT_NE(GroupNormGradTilingFor(req, kA2, &t), "");
}

// ---- Atlas training series (ascend910): block-copy mode and soft SyncAll ----

TEST(GroupNormGradTiling, TrainingSeriesUsesBlockCopiesAndSoftSync) {
  GroupNormGradTiling t = Tile(2, 320, 64 * 64, 32, kDtypeFloat32, kAscend910);
  EXPECT_EQ(t.blockCopyOnly, 1u);
  EXPECT_EQ(t.softSync, 1u);
  EXPECT_EQ(t.blockDim, 32u);
  // Planes of 2 x 320 pieces x 4 bytes = 2560 bytes (512-aligned), then 32 cores x 32 bytes of
  // soft SyncAll flags rounded up to 1024.
  EXPECT_EQ(t.planeBytes, 2560u);
  EXPECT_EQ(t.syncOffset, 2u * 2560);
  EXPECT_EQ(t.workspaceBytes, 2u * 2560 + 1024);
  EXPECT_LE(t.ubBytesUsed, 256u * 1024 - 8u * 1024 - 256);
}

TEST(GroupNormGradTiling, TrainingSeriesFp16StableDiffusionIsWholeGroupsOnly) {
  // A group is 10 x 4096 halves = 160 KiB of dy + x: it fits one core's 256 KiB, and the 64
  // groups are exactly 2 rounds over 32 cores, so nothing is split and no SyncAll precedes dx.
  GroupNormGradTiling t = Tile(2, 320, 64 * 64, 32, kDtypeFloat16, kAscend910);
  EXPECT_EQ(t.mode, kGngWholeGroup);
  EXPECT_EQ(t.wholeGroupsPerCore, 2u);
  EXPECT_EQ(t.waveGroups, 0u);
  EXPECT_EQ(t.paramsSplitPhase, 0u);  // no hard SyncAll hardware: SyncAll (soft) before dgamma/dbeta
}

TEST(GroupNormGradTiling, A2WholeGroupsTakeSplitPhaseParamsBarrier) {
  // 3 x 64 groups of 6 x 1024 halves: 4 whole groups a core over 48 cores, nothing split; the
  // last tile's dx (its own groups' sums only) runs between the flag's set and its wait.
  GroupNormGradTiling t = Tile(3, 384, 1024, 64, kDtypeFloat16);
  EXPECT_EQ(t.mode, kGngWholeGroup);
  EXPECT_EQ(t.paramsSplitPhase, 1u);
  GroupNormGradTiling slab = Tile(8, 96, 256, 8, kDtypeFloat16);  // spread: groups shared
  EXPECT_EQ(slab.mode, kGngChannelSlab);
  EXPECT_EQ(slab.paramsSplitPhase, 1u);
}

TEST(GroupNormGradTiling, A2KeepsDataCopyPadAndHardSync) {
  GroupNormGradTiling t = Tile(2, 320, 64 * 64, 32, kDtypeFloat16);
  EXPECT_EQ(t.blockCopyOnly, 0u);
  EXPECT_EQ(t.softSync, 0u);
  EXPECT_EQ(t.planeBytes * 2, t.workspaceBytes);
}

TEST(GroupNormGradTiling, TrainingSeriesRowsShorterThanABlockRunOnOneCore) {
  // HxW = 3: 12 fp32 bytes per row; two cores would share 32-byte blocks of dx.
  EXPECT_EQ(Tile(16, 64, 3, 8, kDtypeFloat32, kAscend910).blockDim, 1u);
  // HxW = 9 is one whole block plus a tail in fp32 (many cores) but below a block in fp16.
  EXPECT_EQ(Tile(16, 64, 9, 8, kDtypeFloat32, kAscend910).blockDim, 32u);
  EXPECT_EQ(Tile(16, 64, 9, 8, kDtypeFloat16, kAscend910).blockDim, 1u);
  // Without dx nothing is written per row: all cores share the sums.
  EXPECT_EQ(Tile(16, 64, 3, 8, kDtypeFloat32, kAscend910, false).blockDim, 32u);
}

TEST(GroupNormGradTiling, TrainingSeriesParamRangesAreWholeBlocks) {
  // C = 100 fp32 over 32 cores: ceil(100 / 32) = 4 rounds up to one block of 8 channels, so 13
  // cores own channels and the last one stops at C = 100.
  GroupNormGradTiling t = Tile(2, 100, 49, 4, kDtypeFloat32, kAscend910);
  EXPECT_EQ(t.paramChannelsPerCore, 8u);
  EXPECT_EQ(t.paramChannelsRemainder, 0u);
  EXPECT_EQ(t.paramBatchChannels, 8u);
}

// ---- invariants over many shapes ----

std::vector<Shape> ManyShapes() {
  std::vector<Shape> shapes = {
      {2, 320, 4096, 32}, {2, 640, 1024, 32}, {2, 1280, 256, 32}, {2, 1280, 64, 32},
      {8, 256, 15200, 32}, {16, 64, 3136, 32}, {1, 32, 1, 32},    {1, 8, 49, 8},
      {3, 6, 5, 3},       {1, 64, 65536, 1},  {2, 16384, 1, 2},  {1, 512, 262144, 32},
      {7, 96, 196, 4},    {5, 33, 1023, 11},  {1, 3, 70000, 1},  {64, 128, 1, 32},
      {4, 24, 17, 24},    {1, 128, 4097, 64}, {9, 10, 2049, 5},  {2, 32, 333333, 2},
      {1, 2, 3, 1},       {2, 8, 9, 4},       {1, 16, 262144, 1}, {1, 4, 70001, 2},
      {4096, 1024, 1, 32}, {50, 3200, 1, 32}, {4096, 1024, 1, 1024}, {64, 8192, 1, 32},
      {33, 48, 1, 16},    {30, 96, 1, 12},    {1, 1024, 1, 32},   {5000, 16, 1, 2},
  };
  return shapes;
}

// Channel slabs: core k holds pieces (n, c) for every n and its dgamma/dbeta channels.
void ReplaySlabs(const GroupNormGradTiling& t, std::vector<int>* owners) {
  ASSERT_EQ(t.hwParts, 1u);
  ASSERT_GE(t.paramChannelsPerCore, 1u);
  for (uint64_t k = 0; k < t.blockDim; ++k) {
    uint64_t rem = t.paramChannelsRemainder;
    uint64_t first = k * t.paramChannelsPerCore + std::min<uint64_t>(k, rem);
    uint64_t count = t.paramChannelsPerCore + (k < rem ? 1 : 0);
    EXPECT_LE(t.n * count, t.slabTileSlots) << "a core's slab must stay resident";
    for (uint64_t n = 0; n < t.n; ++n) {
      for (uint64_t ch = first; ch < first + count; ++ch) ++(*owners)[n * t.c + ch];
    }
  }
}

// Sample rows: core k = pn * Pg + pg holds samples of chunk pn (sizes differ by at most one) and
// groups [pg * groups, (pg + 1) * groups); every element (n, c) is one piece here.
void ReplaySampleRows(const GroupNormGradTiling& t, std::vector<int>* owners) {
  ASSERT_EQ(t.hw, 1u);
  ASSERT_EQ(t.groupSlots, t.channelsPerGroup);
  ASSERT_EQ(t.sampleRows.sampleSplit * t.sampleRows.groupSplit, t.blockDim);
  ASSERT_EQ(t.sampleRows.groups * t.sampleRows.groupSplit, t.g);
  ASSERT_LE(t.sampleRows.sampleSplit, t.n);
  for (uint64_t k = 0; k < t.blockDim; ++k) {
    const uint64_t pn = k / t.sampleRows.groupSplit;
    const uint64_t pg = k % t.sampleRows.groupSplit;
    const uint64_t base = t.n / t.sampleRows.sampleSplit;
    const uint64_t rem = t.n % t.sampleRows.sampleSplit;
    const uint64_t n0 = pn * base + std::min(pn, rem);
    const uint64_t rows = base + (pn < rem ? 1 : 0);
    for (uint64_t n = n0; n < n0 + rows; ++n) {
      for (uint64_t c = pg * t.sampleRows.groups * t.channelsPerGroup; c < (pg + 1) * t.sampleRows.groups * t.channelsPerGroup; ++c) {
        ++(*owners)[n * t.c + c];
      }
    }
  }
  if (t.sampleRows.sampleSplit > 1 && (t.needDgamma || t.needDbeta)) {
    EXPECT_GE(t.sampleRows.stage2Channels * t.blockDim, t.c);  // stage 2 covers every channel
    EXPECT_GE(t.sampleRows.stage2Batch, 1u);
    EXPECT_GE(t.planeBytes, t.sampleRows.sampleSplit * t.c * 4);
  }
}

// Re-read groups: core k owns group k of every sample (kGngRereadOwner, then its dgamma/dbeta
// channels are that group's) or a contiguous run of groups; a group larger than the tile is read
// twice, which the L2 must serve (three group tensors per core within its share; with split
// phase three times the core's whole run, all of it read twice).
void ReplayRereadGroups(const GroupNormGradTiling& t, std::vector<int>* owners) {
  const uint64_t groups = t.n * t.g;
  const uint64_t s = t.dtype == kDtypeFloat32 ? 4 : 2;
  EXPECT_EQ(t.blockCopyOnly, 0u);
  EXPECT_EQ(t.waveGroups, 0u);
  EXPECT_EQ(t.wholeGroupsPerCore, 0u);
  const uint64_t l2 = 192ull * 1024 * 1024 * 9 / 10;
  const uint64_t groupBytes = t.channelsPerGroup * t.hw * s;
  if (t.rereadLayout == kGngRereadRunsSplitPhase) {
    EXPECT_TRUE(t.needDgamma || t.needDbeta);
    const uint64_t share = (groups * t.groupSlots + t.blockDim - 1) / t.blockDim;  // pieces
    EXPECT_LE(3 * share * t.segLen * s * t.blockDim, l2);
  } else if (t.wholeGroupsPerTile == 0) {
    EXPECT_GT(t.groupSlots, t.splitTileSlots);
    EXPECT_LE(3 * groupBytes * t.blockDim, l2);
  } else if (t.rereadLayout == kGngRereadOwner) {
    EXPECT_LE(t.groupSlots, t.splitTileSlots);
    EXPECT_TRUE(t.wholeGroupsPerTile == 1 || t.groupSlots % 8 == 0 || !(t.needDgamma || t.needDbeta));
  } else {
    EXPECT_LE(t.wholeGroupsPerTile * t.groupSlots, t.splitTileSlots);
  }
  for (uint64_t k = 0; k < t.blockDim; ++k) {
    uint64_t first = 0, count = 0, step = 1;
    if (t.rereadLayout == kGngRereadOwner) {
      ASSERT_EQ(t.blockDim, t.g);
      first = k;
      count = t.n;
      step = t.g;
      // dgamma/dbeta without a SyncAll: core k's channels are group k's, whose sums only it wrote.
      EXPECT_EQ(t.paramChannelsPerCore, t.channelsPerGroup);
      EXPECT_EQ(t.paramChannelsRemainder, 0u);
    } else if (t.rereadLayout == kGngRereadRunsSplitPhase) {  // an even share of the pieces
      const uint64_t pieces = groups * t.groupSlots;
      const uint64_t p0 = k * (pieces / t.blockDim) + std::min<uint64_t>(k, pieces % t.blockDim);
      const uint64_t share = pieces / t.blockDim + (k < pieces % t.blockDim ? 1 : 0);
      for (uint64_t p = p0; p < p0 + share; ++p) ++(*owners)[p];
      continue;
    } else {
      first = k * (groups / t.blockDim) + std::min<uint64_t>(k, groups % t.blockDim);
      count = groups / t.blockDim + (k < groups % t.blockDim ? 1 : 0);
    }
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t q = first + i * step;
      for (uint64_t p = q * t.groupSlots; p < (q + 1) * t.groupSlots; ++p) ++(*owners)[p];
    }
  }
}

// Replays the kernel's work split and checks every piece of every group is owned exactly once.
void CheckCoverage(const GroupNormGradTiling& t) {
  const uint64_t groups = t.n * t.g;
  const uint64_t pieces = groups * t.groupSlots;
  std::vector<int> owners(pieces, 0);
  const uint64_t cores = t.blockDim;
  if (t.mode == kGngChannelSlab) ReplaySlabs(t, &owners);
  if (t.mode == kGngSampleRows) {
    ReplaySampleRows(t, &owners);
    for (uint64_t p = 0; p < pieces; ++p) ASSERT_EQ(owners[p], 1) << "piece " << p;
    return;
  }
  for (uint64_t k = 0; k < cores; ++k) {
    for (uint64_t p = k * t.wholeGroupsPerCore * t.groupSlots; p < (k + 1) * t.wholeGroupsPerCore * t.groupSlots; ++p) {
      ++owners[p];
    }
  }
  if (t.mode == kGngRereadGroups) ReplayRereadGroups(t, &owners);
  for (uint64_t w0 = t.wholeGroupsPerCore * cores;
       t.mode != kGngChannelSlab && t.mode != kGngRereadGroups && w0 < groups; w0 += t.waveGroups) {
    uint64_t wg = std::min<uint64_t>(t.waveGroups, groups - w0);
    uint64_t wp = wg * t.groupSlots;
    for (uint64_t k = 0; k < cores; ++k) {
      uint64_t first = w0 * t.groupSlots + k * (wp / cores) + std::min<uint64_t>(k, wp % cores);
      uint64_t count = wp / cores + (k < wp % cores ? 1 : 0);
      if (t.mode != kGngTwoPass && t.needDx) {
        EXPECT_LE(count, t.splitTileSlots) << "a split slice must stay resident";
      }
      for (uint64_t p = first; p < first + count; ++p) ++owners[p];
    }
  }
  for (uint64_t p = 0; p < pieces; ++p) ASSERT_EQ(owners[p], 1) << "piece " << p;
  // Pieces of a row tile the row exactly.
  EXPECT_GT(t.lastSegLen, 0u);
  EXPECT_LE(t.lastSegLen, t.segLen);
  EXPECT_EQ((t.hwParts - 1) * t.segLen + t.lastSegLen, t.hw);
  // dgamma/dbeta channels: each channel on exactly one core (the kernel clips ranges at C).
  std::vector<int> channelOwners(t.c, 0);
  for (uint64_t k = 0; k < cores; ++k) {
    uint64_t rem = t.paramChannelsRemainder;
    uint64_t first = k * t.paramChannelsPerCore + std::min<uint64_t>(k, rem);
    uint64_t count = t.paramChannelsPerCore + (k < rem ? 1 : 0);
    for (uint64_t ch = first; ch < std::min<uint64_t>(first + count, t.c); ++ch) ++channelOwners[ch];
    if (t.blockCopyOnly) {  // each core's range starts on a 32-byte block of dgamma/dbeta
      EXPECT_EQ(first * (t.dtype == kDtypeFloat32 ? 4 : 2) % 32, 0u);
    }
  }
  for (uint64_t ch = 0; ch < t.c; ++ch) ASSERT_EQ(channelOwners[ch], 1) << "channel " << ch;
  if (t.blockCopyOnly) {
    const uint64_t perBlock = 32 / (t.dtype == kDtypeFloat32 ? 4 : 2);
    EXPECT_EQ(t.paramBatchChannels % perBlock, 0u);
    // The kernel writes a piece's last block ending at the piece's end: every piece holds one.
    if (t.hwParts > 1) {
      EXPECT_GE(t.lastSegLen, perBlock);
    }
    // Rows shorter than a block are packed on one core (no two cores share a block of dx).
    if (t.hw < perBlock && t.needDx) {
      EXPECT_EQ(t.blockDim, 1u);
    }
  }
}

// On every chip of every core count (chips_under_test.h), and on kTraining (the training series'
// sizes with A2's features, no real chip). The family defaults and kTraining get every dtype with
// and without dx; the other core counts fp32 and fp16 with dx (the splits are what differs), to
// keep the test's time down.
TEST(GroupNormGradTiling, InvariantsOverManyShapes) {
  std::vector<normgrad_test::ChipUnderTest> chips = normgrad_test::ChipsOfEveryCoreCount();
  chips.push_back({"32 cores of 256 KiB with A2's features", kTraining, false, true});
  for (const normgrad_test::ChipUnderTest& chip : chips) {
    SCOPED_TRACE(chip.label);
    const SocFeatures& soc = chip.soc;
    const uint32_t budget = normgrad::GngUbBudget(soc);
    std::vector<KernelDtype> dtypes = {kDtypeFloat32, kDtypeFloat16};
    std::vector<bool> dxMasks = {true};
    if (chip.familyDefault) {
      dtypes.push_back(kDtypeBfloat16);
      dxMasks.push_back(false);
    }
    for (const Shape& s : ManyShapes()) {
      for (KernelDtype dt : dtypes) {
        for (bool needDx : dxMasks) {
          SCOPED_TRACE(testing::Message() << s.n << "x" << s.c << "x" << s.hw << " g=" << s.g << " dtype=" << dt
                                          << " needDx=" << needDx << " ub=" << soc.ubBytes
                                          << " pad=" << soc.hasDataCopyPad);
          GroupNormGradTiling t = Tile(s.n, s.c, s.hw, s.g, dt, soc, needDx);
          EXPECT_LE(t.ubBytesUsed, budget);
          // The figure is the mode's peak: the largest layout among the phases the mode runs.
          EXPECT_EQ(t.ubBytesUsed, normgrad::GroupNormGradUbBytes(t));
          EXPECT_LE(normgrad::GroupNormGradWholeUbBytes(t), budget);
          EXPECT_LE(normgrad::GroupNormGradSplitUbBytes(t), budget);
          EXPECT_LE(normgrad::GroupNormGradParamUbBytes(t), budget);
          EXPECT_LE(normgrad::GroupNormGradSlabUbBytes(t), budget);
          EXPECT_LE(t.slabTileSlots, 4095u);
          EXPECT_LE(t.wholeTileSlots, 4095u);
          EXPECT_LE(t.splitTileSlots, 4095u);
          EXPECT_GE(t.blockDim, 1u);
          EXPECT_LE(t.blockDim, soc.vectorCores);
          if (t.mode == kGngSampleRows) {
            EXPECT_LE(normgrad::GroupNormGradSampleRowsUbBytes(t), budget);
            const uint64_t segBytes = t.sampleRows.segStride * (dt == kDtypeFloat32 ? 4 : 2);
            EXPECT_TRUE(t.sampleRows.segStride == 1 || segBytes % 32 == 0);
          } else {
            EXPECT_EQ(t.rowStride * (dt == kDtypeFloat32 ? 4 : 2) % 32, 0u);
          }
          EXPECT_EQ(t.chunkElems % 64, 0u);
          CheckCoverage(t);
        }
      }
    }
  }
}

// Every core gets within 10 % of the mean number of pieces when there are enough pieces.
TEST(GroupNormGradTiling, CoresBalancedForModelShapes) {
  for (const Shape& s : ManyShapes()) {
    GroupNormGradTiling t = Tile(s.n, s.c, s.hw, s.g, kDtypeFloat16);
    uint64_t pieces = s.n * s.g * t.groupSlots;
    if (pieces < 10 * t.blockDim) continue;
    std::vector<uint64_t> perCore(t.blockDim, t.wholeGroupsPerCore * t.groupSlots);
    if (t.mode == kGngChannelSlab) {
      for (uint64_t k = 0; k < t.blockDim; ++k) {
        perCore[k] = s.n * (t.paramChannelsPerCore + (k < t.paramChannelsRemainder ? 1 : 0));
      }
    }
    if (t.mode == kGngSampleRows) {
      for (uint64_t k = 0; k < t.blockDim; ++k) {
        const uint64_t pn = k / t.sampleRows.groupSplit;
        const uint64_t rows = s.n / t.sampleRows.sampleSplit + (pn < s.n % t.sampleRows.sampleSplit ? 1 : 0);
        perCore[k] = rows * t.sampleRows.groups * t.channelsPerGroup;
      }
    }
    uint64_t groups = s.n * s.g;
    if (t.mode == kGngRereadGroups && t.rereadLayout == kGngRereadRunsSplitPhase) {
      const uint64_t pieces = groups * t.groupSlots;  // an even share of the pieces
      for (uint64_t k = 0; k < t.blockDim; ++k) perCore[k] = pieces / t.blockDim + (k < pieces % t.blockDim ? 1 : 0);
    } else if (t.mode == kGngRereadGroups) {  // whole groups: a run of n * g, or group k of every n
      for (uint64_t k = 0; k < t.blockDim; ++k) {
        perCore[k] = t.groupSlots * (t.rereadLayout == kGngRereadOwner ? s.n
                                                          : groups / t.blockDim + (k < groups % t.blockDim ? 1 : 0));
      }
    }
    for (uint64_t w0 = t.wholeGroupsPerCore * t.blockDim;
         t.mode != kGngChannelSlab && t.mode != kGngSampleRows && t.mode != kGngRereadGroups && w0 < groups;
         w0 += t.waveGroups) {
      uint64_t wp = std::min<uint64_t>(t.waveGroups, groups - w0) * t.groupSlots;
      for (uint64_t k = 0; k < t.blockDim; ++k) perCore[k] += wp / t.blockDim + (k < wp % t.blockDim ? 1 : 0);
    }
    double mean = 0;
    for (uint64_t v : perCore) mean += static_cast<double>(v) / t.blockDim;
    uint64_t most = *std::max_element(perCore.begin(), perCore.end());
    if (t.mode == kGngRereadGroups) {
      // Whole groups per core: at most one group apart. The tiling takes this mode only where
      // its modeled time, busiest core included, beats the balanced split waves.
      EXPECT_LE(most - *std::min_element(perCore.begin(), perCore.end()), t.groupSlots);
      continue;
    }
    EXPECT_GE(mean / most, 0.9) << s.n << "x" << s.c << "x" << s.hw << " g=" << s.g;
  }
}

}  // namespace

// Ascend 950 reports the 248 KiB below the devkit's TMP_UB_OFFSET as its UB: the tilings plan in all
// of it, where A2's 192 KiB lose the toolchain's top 8 KiB (docs/soc-profiles.md, "Ascend 950").
TEST(GroupNormGradTiling, UsableUbIsWhatThePlatformLeavesPerArchitecture) {
  fe::PlatFormInfos a950(sim::FindSoc("ascend950"));
  const SocFeatures s950 = normgrad::SocFeaturesOf(&a950);
  EXPECT_EQ(s950.vectorCores, 72u);
  EXPECT_EQ(s950.ubReservedBytes, 0u);
  EXPECT_EQ(normgrad::UsableUbBytes(s950), 253952u);
  EXPECT_EQ(normgrad::GngUbBudget(s950), 253952u - 256);
  fe::PlatFormInfos a2(sim::FindSoc("ascend910b"));
  const SocFeatures sA2 = normgrad::SocFeaturesOf(&a2);
  EXPECT_EQ(normgrad::UsableUbBytes(sA2), 196608u - 8192);
  fe::PlatFormInfos training(sim::FindSoc("ascend910"));
  EXPECT_EQ(normgrad::UsableUbBytes(normgrad::SocFeaturesOf(&training)), 262144u - 8192);
}
