// LayerNorm backward tiling: shape -> tiling fields on typical shapes, and invariants over many
// shapes (UB budget, every row and column covered exactly once, workspace layout).
#include <gtest/gtest.h>

#include <vector>

#include "chips_under_test.h"
#include "layer_norm_grad_tiling.h"

namespace {

using namespace normgrad;  // NOLINT: the tiling vocabulary under test

const SocFeatures kA2 = MakeSocFeatures(48, 192 * 1024, false);
// Atlas training series (ascend910): no hard SyncAll, no Brcb, no DataCopyPad.
const SocFeatures kTraining = MakeSocFeatures(32, 256 * 1024, true);

LayerNormGradTilingInput Input(uint64_t m, uint64_t d, KernelDtype dtype,
                               KernelDtype weight = kDtypeFloat32, bool dx = true, bool dg = true,
                               bool db = true) {
  return {m, d, dtype, kDtypeFloat32, weight, true, dx, dg, db};
}

LayerNormGradTiling Tile(const LayerNormGradTilingInput& in, const SocFeatures& soc = kA2) {
  LayerNormGradTilingResult r = LayerNormGradComputeTiling(in, soc);
  EXPECT_TRUE(r.ok) << r.error;
  return r.tiling;
}

TEST(LayerNormGradTiling, LanguageModelRowsStayWholeOnEveryCore) {
  LayerNormGradTiling t = Tile(Input(8192, 4096, kDtypeBfloat16));
  EXPECT_EQ(t.mode, kLnWholeRows);
  EXPECT_EQ(t.colSplit, 1u);
  EXPECT_EQ(t.rowRanges, 48u);
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.sliceCols, 4096u);
  EXPECT_EQ(t.gammaResident, 1u);
  EXPECT_EQ(t.accResident, 1u);
  EXPECT_EQ(t.bufferNum, 2u);
  EXPECT_EQ(t.chunkCols, 4096u);
  EXPECT_EQ(t.batchesPerRange * t.rowsPerBatch >= 171u, true);
  EXPECT_EQ(t.partialStride, 4096u);
  EXPECT_EQ(t.workspaceBytes, 48u * 2 * 4096 * 4);  // no exchange, one partial row pair per core
}

TEST(LayerNormGradTiling, WholeTensorNormalisationSplitsTheRowOverAllCores) {
  LayerNormGradTiling t = Tile(Input(1, 1000000, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_EQ(t.rowRanges, 1u);
  // (Nearly) every core: 46 slices of 21760 model 0.01 us under 48 of 20864.
  EXPECT_GE(t.colSplit, 46u);
  EXPECT_LE(t.colSplit, 48u);
  EXPECT_EQ(t.sliceCols, ((1000000 + t.colSplit - 1) / t.colSplit + 63) / 64 * 64);  // rounded up to 64
  EXPECT_EQ(t.rowsPerBatch, 1u);
  EXPECT_EQ(t.batchesPerRange, 1u);
  EXPECT_EQ(t.accResident, 0u);  // a single batch: dgamma/dbeta go straight to the outputs
  EXPECT_EQ(t.gammaResident, 0u);
}

TEST(LayerNormGradTiling, FewTokensSplitRowsInsteadOfIdlingCores) {
  LayerNormGradTiling t = Tile(Input(7, 16384, kDtypeBfloat16, kDtypeBfloat16));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_EQ(t.rowRanges, 1u);  // 7 rows: per-range partials would cost more than the data
  // At least 16 slices (22 of 768 columns: the model's pick; the row-sum exchange caps more).
  EXPECT_GE(t.colSplit, 16u);
  EXPECT_LE(t.sliceCols, 1024u);
  EXPECT_GE(uint64_t(t.colSplit) * t.sliceCols, 16384u);
  EXPECT_EQ(t.rowsPerBatch, 7u);
  EXPECT_EQ(t.batchesPerRange, 1u);
}

TEST(LayerNormGradTiling, SlicesNarrowerThan1024ColumnsCompeteOnTheModel) {
  // 16 x 32768 fp32 (3 trailing dims of 8 x 64 x 64): one batch of 16 rows either way, so more
  // slices only shorten each core's work: 43 slices of 768 (10.2 us on the simulator) beat 32 of
  // 1024 (10.8 us). Slices stay at least 256 columns while anything wider fits.
  LayerNormGradTiling t = Tile(Input(16, 32768, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_GT(t.colSplit, 32u);
  EXPECT_LT(t.sliceCols, 1024u);
  EXPECT_GE(t.sliceCols, 256u);
  EXPECT_EQ(t.batchesPerRange, 1u);
}

TEST(LayerNormGradTiling, RowsLongerThanOneUnifiedBufferAreSplit) {
  LayerNormGradTiling t = Tile(Input(8192, 16384, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_GE(t.colSplit, 2u);
  EXPECT_EQ(t.accResident, 1u);
}

TEST(LayerNormGradTiling, TinyProblemRunsOnOneCore) {
  LayerNormGradTiling t = Tile(Input(3, 1, kDtypeFloat16, kDtypeFloat16));
  EXPECT_EQ(t.blockDim, 1u);
  EXPECT_EQ(t.sliceStride, 16u);
  EXPECT_EQ(t.workspaceBytes, 0u);
}

TEST(LayerNormGradTiling, MaskedOutputsTakeNoUnifiedBuffer) {
  LayerNormGradTiling all = Tile(Input(4096, 1024, kDtypeFloat16));
  LayerNormGradTiling dbetaOnly = Tile(Input(4096, 1024, kDtypeFloat16, kDtypeFloat32, false, false, true));
  EXPECT_LT(LayerNormGradMainUbBytes(Tile(Input(4096, 1024, kDtypeFloat16, kDtypeFloat32, false, false, true))),
            LayerNormGradMainUbBytes(all) + 1);
  // dbeta alone needs neither x nor the row sums: the same batch costs far less UB.
  LayerNormGradTiling same = dbetaOnly;
  same.rowsPerBatch = all.rowsPerBatch;
  same.chunkCols = all.chunkCols;
  same.bufferNum = all.bufferNum;
  EXPECT_LT(LayerNormGradMainUbBytes(same) * 2, LayerNormGradMainUbBytes(all));
}

TEST(LayerNormGradTiling, TooManyRowsTooLongForEveryModeAreRejectedWithTheNumbers) {
  // Two passes keep every row's sums per core: 20000 rows of 600 000 fp32 (48 GB) do not fit.
  LayerNormGradTilingResult r = LayerNormGradComputeTiling(Input(20000, 600000, kDtypeFloat32), kA2);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("M = 20000 rows of D = 600000 elements"), std::string::npos) << r.error;
  // The training series has no two-pass mode: rows beyond its cores' UB are rejected.
  r = LayerNormGradComputeTiling(Input(8, 1000000, kDtypeFloat32), kTraining);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no two-pass mode"), std::string::npos) << r.error;
}

TEST(LayerNormGradTiling, RowsBeyondResidencyStreamTwiceOverColumnSlices) {
  // 8 x 524288 fp32: no range of cores holds a row with gamma and the dgamma/dbeta sums of its
  // slice, so every core streams its slice of all rows twice; whole-tensor rows past 1.08 M too.
  for (const LayerNormGradTilingInput& in : {Input(8, 524288, kDtypeFloat32), Input(1, 4000000, kDtypeFloat32),
                                             Input(100, 600000, kDtypeBfloat16)}) {
    LayerNormGradTiling t = Tile(in);
    EXPECT_EQ(t.mode, kLnTwoPass);
    EXPECT_EQ(t.rowRanges, 1u);
    EXPECT_EQ(t.blockDim, 48u);
    EXPECT_LE(t.rowsPerBatch, kLnTwoPassMaxBatch);
    EXPECT_GE(t.chunkCols, 512u);
    EXPECT_EQ(t.workspaceBytes % 512, 0u);
    EXPECT_GE(t.workspaceBytes, 48ull * 2 * ((in.rows + 7) / 8 * 8) * 4);
  }
  // Resident modes still win where they fit.
  EXPECT_NE(Tile(Input(8, 262144, kDtypeFloat32)).mode, kLnTwoPass);
}

TEST(LayerNormGradTiling, TrainingSeriesSplitsRowsWithSoftSyncAll) {
  LayerNormGradTiling t = Tile(Input(1, 100000, kDtypeFloat32), kTraining);
  EXPECT_GT(t.colSplit, 1u);
  EXPECT_LE(t.blockDim, 32u);
  EXPECT_EQ(t.blockCopy, 1u);
  EXPECT_EQ(t.softSync, 1u);
  EXPECT_EQ(t.rowSlices.exchangeSync, kLnExchangeSyncAll);  // no hardware flags on the training series
  EXPECT_NE(t.mode, kLnShortRows);
  // The soft SyncAll flags (32 bytes per core) sit behind the exchange, inside the workspace.
  EXPECT_GE(t.syncOffset, t.exchangeOffset + 2ull * t.blockDim * 2 * ((t.rowsPerBatch + 7) / 8 * 8) * 4);
  EXPECT_GE(t.workspaceBytes, t.syncOffset + 32ull * t.blockDim);
  LayerNormGradTiling a2 = Tile(Input(1, 100000, kDtypeFloat32));
  EXPECT_EQ(a2.blockCopy, 0u);
  EXPECT_EQ(a2.softSync, 0u);
  EXPECT_EQ(a2.rowSlices.exchangeSync, kLnExchangeSplitFlag);
}

TEST(LayerNormGradTiling, TrainingSeriesAvoidsNarrowChunksOfLongRows) {
  // 12288 fp32 whole rows fit 256 KiB one row at a time; the chunks must not shrink to a few
  // repeats (192 columns cost about 20 instruction issues per 3 repeats): whole rows in chunks of
  // at least 512 columns, or slices of several rows, whichever models faster.
  LayerNormGradTiling t = Tile(Input(2048, 12288, kDtypeFloat32), kTraining);
  EXPECT_GE(t.chunkCols, 512u);
  EXPECT_TRUE(t.colSplit == 1 || t.rowsPerBatch >= 2u);
}

TEST(LayerNormGradTiling, TrainingSeriesRowsBelowOneBlockStartEachCoreOnABlock) {
  // 7 fp32 = 28 bytes and 15 fp16 = 30 bytes: dx rows cannot be written by whole blocks per row,
  // so each core takes a multiple of one block's worth of rows (8 fp32, 16 fp16).
  LayerNormGradTiling f32 = Tile(Input(52800, 7, kDtypeFloat32), kTraining);
  EXPECT_EQ(f32.denseRows, 1u);
  EXPECT_EQ(f32.denseRangeRows, 1656u);  // 52800 / 32 = 1650 rounded up to 8
  EXPECT_EQ(f32.blockDim, 32u);
  LayerNormGradTiling f16 = Tile(Input(5000, 15, kDtypeFloat16, kDtypeFloat16), kTraining);
  EXPECT_EQ(f16.denseRows, 1u);
  EXPECT_EQ(f16.denseRangeRows % 16, 0u);
  // 9 rows of D = 1 fp32: one range of 8 and a last row of 4 bytes: merged into one range.
  EXPECT_EQ(Tile(Input(9, 1, kDtypeFloat32), kTraining).blockDim, 1u);
  LayerNormGradTiling eight = Tile(Input(5000, 8, kDtypeFloat32), kTraining);  // one whole block
  EXPECT_EQ(eight.denseRows, 0u);
  EXPECT_EQ(eight.blockDim, 32u);
  EXPECT_EQ(Tile(Input(5000, 7, kDtypeFloat32)).denseRows, 0u);  // A2 has DataCopyPad
}

// Every invariant the kernel relies on, for one tiling. mayNotFit: the shape may be refused for
// not fitting the cores' UB (the rows must fit all cores together, or their sums one core in two
// passes): on 1 or 7 cores the longest rows here do not. Returns whether a tiling was checked.
bool CheckInvariants(const LayerNormGradTilingInput& in, const SocFeatures& soc, bool mayNotFit = false) {
  SCOPED_TRACE(testing::Message() << "M=" << in.rows << " D=" << in.cols << " dtype=" << in.dtype
                                  << " mask=" << in.needDx << in.needDgamma << in.needDbeta);
  LayerNormGradTilingResult r = LayerNormGradComputeTiling(in, soc);
  if (!r.ok && mayNotFit && r.error.find("do not fit in the Unified Buffers of") != std::string::npos) return false;
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return false;
  const LayerNormGradTiling& t = r.tiling;
  const uint32_t budget = LayerNormGradUbBudget(soc);
  EXPECT_LE(t.mainUbBytes, budget);
  EXPECT_EQ(t.mainUbBytes, LayerNormGradMainUbBytes(t));
  if (t.rowRanges > 1 && (in.needDgamma || in.needDbeta)) {
    EXPECT_LE(LayerNormGradReduceUbBytes(t), budget);
  }
  EXPECT_EQ(t.blockDim, t.rowRanges * t.colSplit);
  EXPECT_GE(t.blockDim, 1u);
  EXPECT_LE(t.blockDim, soc.vectorCores);
  if (t.mode == kLnTwoPass) {  // every core a column slice of all rows, streamed twice
    EXPECT_TRUE(soc.hasDataCopyPad && soc.hasHardSyncAll);
    EXPECT_EQ(t.rowRanges, 1u);
    EXPECT_LE(t.rowsPerBatch, kLnTwoPassMaxBatch);
    EXPECT_TRUE(t.rowsPerBatch % 8 == 0 || t.rowsPerBatch == in.rows);
    EXPECT_EQ(t.chunkCols % 64, 0u);
    EXPECT_LE(t.chunkCols, t.sliceCols);
    EXPECT_GE(uint64_t(t.colSplit) * t.sliceCols, in.cols);
    EXPECT_LT(uint64_t(t.colSplit - 1) * t.sliceCols, in.cols);
    EXPECT_EQ(t.workspaceBytes > 0, in.needDx);
    return true;
  }
  if (t.colSplit == 1) {
    EXPECT_TRUE(t.mode == kLnWholeRows || t.mode == kLnShortRows) << t.mode;
  } else {
    EXPECT_EQ(t.mode, kLnRowSlices);
  }
  // Columns: k slices of sliceCols cover D, the last one non-empty.
  EXPECT_GE(uint64_t(t.colSplit) * t.sliceCols, in.cols);
  EXPECT_LT(uint64_t(t.colSplit - 1) * t.sliceCols, in.cols);
  EXPECT_EQ(t.sliceStride % 16, 0u);
  EXPECT_GE(t.sliceStride, t.sliceCols);
  EXPECT_EQ(t.chunkCols % 16, 0u);
  EXPECT_GE(t.chunkCols, 16u);
  EXPECT_LE(t.chunkCols, t.sliceStride);
  // Rows: the balanced split gives every range at most batchesPerRange batches, and the ranges
  // together cover M exactly once.
  uint64_t covered = 0;
  for (uint32_t g = 0; g < t.rowRanges; ++g) {
    uint64_t rowsOfRange = in.rows / t.rowRanges + (g < in.rows % t.rowRanges ? 1 : 0);
    if (t.denseRows) {  // whole blocks of dx per range; the last range takes the rest
      const uint64_t pb = 32 / KernelDtypeBytes(in.dtype);
      EXPECT_EQ(t.denseRangeRows % pb, 0u);
      rowsOfRange = g + 1 == t.rowRanges ? in.rows - uint64_t(g) * t.denseRangeRows : t.denseRangeRows;
      if (t.rowRanges > 1) {
        EXPECT_GE(rowsOfRange * in.cols, pb);
      }
    }
    EXPECT_GE(rowsOfRange, 1u);
    EXPECT_LE(rowsOfRange, uint64_t(t.batchesPerRange) * t.rowsPerBatch);
    covered += rowsOfRange;
  }
  EXPECT_EQ(covered, in.rows);
  EXPECT_LE(t.rowsPerBatch, 4095u);
  if ((in.needDgamma || in.needDbeta) && !t.accResident) {
    EXPECT_EQ(t.batchesPerRange, 1u);
  }
  // Workspace regions do not overlap and are present only when used.
  bool exchange = in.needDx && t.colSplit > 1;
  bool partials = (in.needDgamma || in.needDbeta) && t.rowRanges > 1;
  EXPECT_EQ(t.partialOffset > 0, exchange);
  uint64_t partialBytes = partials ? uint64_t(t.rowRanges) * 2 * t.partialStride * 4 : 0;
  EXPECT_GE(t.workspaceBytes, t.partialOffset + partialBytes);
  if (!exchange && !partials) {
    EXPECT_EQ(t.workspaceBytes, 0u);
  }
  if (partials) {
    EXPECT_GE(uint64_t(t.reduce.cols) * t.blockDim, in.cols);
    EXPECT_LE(t.reduce.chunkCols, t.reduce.cols);
  }
  EXPECT_EQ(t.blockCopy, soc.hasDataCopyPad ? 0u : 1u);
  EXPECT_EQ(t.softSync, soc.hasHardSyncAll ? 0u : 1u);
  // The row-sum exchange waits on the split-phase hardware flags wherever they exist.
  const bool rowSliceExchange = exchange && t.mode == kLnRowSlices;
  EXPECT_EQ(t.rowSlices.exchangeSync,
            rowSliceExchange && soc.hasHardSyncAll ? kLnExchangeSplitFlag : kLnExchangeSyncAll);
  // dgamma/dbeta after the flag's set: only with the flag, chunked slices (fp32: gamma resident, to
  // form g again) and a parameter gradient, and never more chunks than the slice has.
  if (t.rowSlices.paramsAfterSet > 0) {
    EXPECT_EQ(t.rowSlices.exchangeSync, kLnExchangeSplitFlag);
    if (in.dtype == kDtypeFloat32 && in.hasWeight) {
      EXPECT_EQ(t.gammaResident, 1u);
    }
    EXPECT_TRUE(in.needDgamma || in.needDbeta);
    EXPECT_LT(t.chunkCols, t.sliceCols);
    EXPECT_LE(t.rowSlices.paramsAfterSet, (t.sliceCols + t.chunkCols - 1) / t.chunkCols);
  }
  // Stage 2 waits on the split-phase flag wherever the hardware flags exist, except in TwoPass.
  EXPECT_EQ(t.reduce.splitPhase, partials && soc.hasHardSyncAll && t.mode != kLnTwoPass ? 1u : 0u);
  if (t.softSync && (exchange || partials)) {
    EXPECT_GE(t.syncOffset, t.partialOffset + partialBytes);
    EXPECT_GE(t.workspaceBytes, t.syncOffset + 32ull * t.blockDim);
  }
  if (t.blockCopy) {
    // Whole-block writes end in the block ending at a chunk's end: every chunk of every slice
    // (the last slice may be shorter) is at least 16 columns, or the rows are below one block
    // and one core packs them.
    const uint32_t pb = 32 / KernelDtypeBytes(in.dtype);
    EXPECT_EQ(t.denseRows, in.cols < pb ? 1u : 0u);
    const uint64_t last = in.cols - uint64_t(t.colSplit - 1) * t.sliceCols;
    for (uint64_t w : {uint64_t(t.sliceCols), last}) {
      if (w < t.chunkCols) continue;
      EXPECT_FALSE(w % t.chunkCols > 0 && w % t.chunkCols < 16) << "slice " << w << " chunk " << t.chunkCols;
    }
    if (t.colSplit > 1) {
      EXPECT_GE(last, 16u);
    }
    EXPECT_NE(t.mode, kLnShortRows);
  }
  return true;
}

// Below this many cores the longest rows of the test (25088 x 131073) may not fit on the
// architectures with DataCopyPad: the 8-core Ascend950PR_950z and the capped 1 and 7 (docs/layer_norm_grad.md, "Limits").
constexpr uint32_t kFewestCoresForEveryRow = 8;

// The invariants over rows x cols x dtypes x output masks on every chip of one architecture
// (chips_under_test.h), with rows around each core count (one more or fewer than the cores leaves
// a remainder). A family's default chip gets every mask, with and without a weight; the other
// core counts all three outputs with a weight (the splits are what differs), to keep the test's
// time down. On 1 and 7 cores the longest rows may be refused for not fitting, and so may rows over
// kInferenceSeriesMaxCols on the inference series' 8 and 10 cores, which have no two-pass mode
// (docs/layer_norm_grad.md, "Atlas inference series": about 98 K fp32 columns fit 8 cores at M >= 2).
constexpr uint64_t kInferenceSeriesMaxCols = 65536;  // every row up to this length fits 8 cores
constexpr uint32_t kFewestTrainingCores = 30;

void CheckOnEveryChip(bool blockCopyArch, const std::vector<uint64_t>& rows, const std::vector<uint64_t>& cols,
                      const std::vector<KernelDtype>& dtypes) {
  const bool masks[][3] = {{true, true, true}, {true, false, false}, {false, true, false},
                           {false, false, true}, {false, true, true}, {true, true, false}};
  for (const normgrad_test::ChipUnderTest& chip : normgrad_test::ChipsOfEveryCoreCount()) {
    if (chip.soc.blockCopyArch != blockCopyArch) continue;
    SCOPED_TRACE(chip.label);
    std::vector<uint64_t> around = rows;
    for (uint64_t m : {uint64_t(chip.soc.vectorCores) - 1, uint64_t(chip.soc.vectorCores) + 1}) {
      if (m >= 1) around.push_back(m);
    }
    around.push_back(chip.soc.vectorCores);
    const size_t maskCount = chip.familyDefault ? 6 : 1;
    const bool fewCores = blockCopyArch && chip.soc.vectorCores < kFewestTrainingCores;
    for (uint64_t m : around) {
      for (uint64_t d : cols) {
        const bool mayNotFit = chip.capped || (fewCores && d > kInferenceSeriesMaxCols) ||
                               (!blockCopyArch && chip.soc.vectorCores <= kFewestCoresForEveryRow);
        for (KernelDtype dt : dtypes) {
          for (size_t k = 0; k < maskCount; ++k) {
            LayerNormGradTilingInput in = Input(m, d, dt, dt, masks[k][0], masks[k][1], masks[k][2]);
            CheckInvariants(in, chip.soc, mayNotFit);
            if (!chip.familyDefault) continue;
            in.hasWeight = false;
            if (blockCopyArch) in.weightDtype = kDtypeFloat32;
            CheckInvariants(in, chip.soc, mayNotFit);
          }
        }
      }
    }
  }
}

TEST(LayerNormGradTiling, InvariantsHoldOverShapesDtypesAndMasks) {
  CheckOnEveryChip(false, {1, 2, 7, 197, 2048, 8192, 25088},
                   {1, 7, 64, 96, 255, 257, 768, 1024, 4096, 5120, 12288, 16384, 131073},
                   {kDtypeFloat32, kDtypeFloat16, kDtypeBfloat16});
}

TEST(LayerNormGradTiling, TrainingAndInferenceSeriesInvariantsHoldOverShapesAndMasks) {
  CheckOnEveryChip(true, {1, 2, 7, 197, 2048, 25088},
                   {1, 7, 8, 9, 15, 16, 17, 64, 96, 255, 257, 768, 4096, 12288, 65536, 131073, 262144},
                   {kDtypeFloat32, kDtypeFloat16});
}

TEST(LayerNormGradTiling, EveryRowLengthAroundPowersOfTwoGetsATiling) {
  // Slices rounded up to 64 columns can cover a row in fewer slices than asked for: 65536 in 48
  // slices of 1408 leaves the 48th empty, and 8 x 65536 once got no tiling at all. Beyond about
  // 2^18.7 fp32 columns rows stream twice (TwoPass).
  for (uint64_t p = 1; p <= (1ull << 21); p *= 2) {
    for (uint64_t d : {p - 1, p, p + 1}) {
      if (d == 0) continue;
      for (uint64_t m : {1ull, 8ull, 100ull}) {
        for (KernelDtype dt : {kDtypeFloat32, kDtypeBfloat16}) {
          SCOPED_TRACE(testing::Message() << m << " x " << d << " dtype " << dt);
          CheckInvariants(Input(m, d, dt), kA2);
        }
      }
    }
  }
}

TEST(LayerNormGradTiling, WholeTensorUpToAMillionElementsFits) {
  for (uint64_t d : {262144ull, 524288ull, 1000000ull, 1048576ull}) {
    CheckInvariants(Input(1, d, kDtypeFloat32), kA2);
    CheckInvariants(Input(1, d, kDtypeBfloat16, kDtypeBfloat16), kA2);
  }
}


TEST(LayerNormGradTiling, ShortRowsRepeatOverRowsOnlyWithBrcbAndManyRowsPerBatch) {
  LayerNormGradTiling swin = Tile(Input(32 * 3136, 96, kDtypeFloat32));
  EXPECT_EQ(swin.mode, kLnShortRows);
  EXPECT_GE(swin.rowsPerBatch, 2u * 2);  // at least two rows per 64-column piece
  SocFeatures noBrcb = kA2;
  noBrcb.hasBrcb = false;
  EXPECT_EQ(Tile(Input(32 * 3136, 96, kDtypeFloat32), noBrcb).mode, kLnWholeRows);
  EXPECT_EQ(Tile(Input(2048, 768, kDtypeBfloat16)).mode, kLnWholeRows);  // 12 pieces, 9 rows per batch
}

TEST(LayerNormGradTiling, SplitRowsTradeSliceWidthForFewerSyncAlls) {
  // 2048 x 12288 fp32: two slices hold one row per batch (86 SyncAlls); three slices of chunked
  // math hold three rows (43).
  LayerNormGradTiling t = Tile(Input(2048, 12288, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_LE(t.batchesPerRange, 43u);
}

TEST(LayerNormGradTiling, PartialCappedWholeRowsLetSplitsUseTheIdleCores) {
  // 2048 bf16 rows: the dgamma/dbeta partials allow 30 whole-row ranges (traffic <= 1.04), which
  // leaves 18 cores idle on vector-bound 8192-column rows; 24 ranges of two slices use all 48.
  LayerNormGradTiling t = Tile(Input(2048, 8192, kDtypeBfloat16));
  EXPECT_EQ(t.blockDim, 48u);
  EXPECT_EQ(t.colSplit, 2u);
  EXPECT_LE(t.rowRanges, 30u);
}

// The partials' 4 % cap leaves 2048 bf16 rows on 30 ranges; vector-bound whole rows (D = 768) take
// one range more while the traffic stays within 1.05 of the minimum with the statistics (32 would
// pass it); HBM-bound ones (D = 4096) keep 30; the training series keeps the cap.
TEST(LayerNormGradTiling, VectorBoundWholeRowsTakeRangesUpToTheTrafficTarget) {
  const LayerNormGradTiling narrow = Tile(Input(2048, 768, kDtypeBfloat16));
  EXPECT_EQ(narrow.mode, kLnWholeRows);
  EXPECT_EQ(narrow.rowRanges, 31u);
  EXPECT_EQ(narrow.blockDim, 31u);
  const double minBytes = 3.0 * 2048 * 768 * 2 + 3.0 * 768 * 4 + 2.0 * 2048 * 4;
  const double extra = 31.0 * 2 * 768 * 4 * 2 + 30.0 * 768 * 4;  // partials written and read, gamma per range
  EXPECT_LE(minBytes + extra, 1.05 * minBytes);
  EXPECT_GT(minBytes + extra + 2 * 768 * 4 * 2 + 768 * 4, 1.05 * minBytes);
  EXPECT_EQ(Tile(Input(2048, 4096, kDtypeBfloat16)).rowRanges, 30u);
  EXPECT_EQ(Tile(Input(2048, 768, kDtypeFloat16), kTraining).rowRanges, 30u);
}

TEST(LayerNormGradTiling, FewLongRowsUseNoMoreSlicesThanTheirRowSumExchangeAllows) {
  // Every core of a split row reads the row sums of all slices (two floats per row, padded to 8
  // rows): 1 x 16384 bf16 in 16 slices moved 6 % over the minimum. Fewer slices keep it under 4.5 %.
  LayerNormGradTiling t = Tile(Input(1, 16384, kDtypeBfloat16));
  const double minBytes = 3.0 * 16384 * 2 + 3.0 * 16384 * 4;  // dy, x, dx; gamma, dgamma, dbeta
  const double exchange = double(t.blockDim) * t.batchesPerRange * 2 * 8 * 4 * (1 + t.colSplit);
  EXPECT_LE(exchange, 0.045 * minBytes);
  EXPECT_GE(t.colSplit, 8u);
  // Many rows per batch amortise it: 7 tokens keep at least 16 slices.
  EXPECT_GE(Tile(Input(7, 16384, kDtypeBfloat16)).colSplit, 16u);
}

TEST(LayerNormGradTiling, OneShortTokenStreamsOnOneCoreInsteadOfExchanging) {
  // 1 x 4096 fp32 moves 48 KiB: one core streams it in about 0.8 us, where four slices pay a 2 us
  // barrier for their row sums. Longer single rows still split: 1 x 16384 fp32 (192 KiB) would
  // take 3.3 us on one core.
  for (KernelDtype dt : {kDtypeFloat32, kDtypeBfloat16}) {
    LayerNormGradTiling t = Tile(Input(1, 4096, dt));
    EXPECT_EQ(t.mode, kLnWholeRows);
    EXPECT_EQ(t.blockDim, 1u);
    EXPECT_EQ(t.colSplit, 1u);
  }
  LayerNormGradTiling t = Tile(Input(1, 16384, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnRowSlices);
  EXPECT_GT(t.colSplit, 1u);
}

TEST(LayerNormGradTiling, SplitRowsSumParametersWhileTheExchangeFlagIsInFlight) {
  // 8192 x 12288 bf16: 3 slices of two 2048-column chunks, 74 batches of 7 rows. Summing dgamma/dbeta
  // of both chunks after the set (7 x 4096 x 6 ops, about 2.2 us) covers the 2 us barrier; fp32
  // (12 slices of two 512-column chunks, 19 rows) likewise.
  for (KernelDtype dt : {kDtypeBfloat16, kDtypeFloat32}) {
    LayerNormGradTiling t = Tile(Input(8192, 12288, dt));
    EXPECT_EQ(t.mode, kLnRowSlices);
    EXPECT_EQ(t.rowSlices.exchangeSync, kLnExchangeSplitFlag);
    EXPECT_LT(t.chunkCols, t.sliceCols);
    EXPECT_EQ(t.rowSlices.paramsAfterSet, (t.sliceCols + t.chunkCols - 1) / t.chunkCols);
  }
  // Not without a parameter gradient, or without hardware flags.
  EXPECT_EQ(Tile(Input(8192, 12288, kDtypeBfloat16, kDtypeFloat32, true, false, false)).rowSlices.paramsAfterSet,
            0u);
  EXPECT_EQ(Tile(Input(8192, 12288, kDtypeFloat16), kTraining).rowSlices.paramsAfterSet, 0u);
}

TEST(LayerNormGradTiling, PartialsArePublishedBeforeTheLastBatchsDx) {
  // 2048 x 768 fp32: whole rows on 48 ranges, 48 partial sets; the stage-2 barrier is split
  // (set after the partials, the last batch's row sums and dx, then the wait).
  LayerNormGradTiling t = Tile(Input(2048, 768, kDtypeFloat32));
  EXPECT_EQ(t.mode, kLnWholeRows);
  EXPECT_EQ(t.rowRanges, 48u);
  EXPECT_EQ(t.reduce.splitPhase, 1u);
  // RowSlices with several ranges too.
  LayerNormGradTiling rs = Tile(Input(8192, 12288, kDtypeFloat32));
  EXPECT_EQ(rs.mode, kLnRowSlices);
  EXPECT_GT(rs.rowRanges, 1u);
  EXPECT_EQ(rs.reduce.splitPhase, 1u);
  // No partials (dx only, or one range), or no hardware flags: no split phase.
  EXPECT_EQ(Tile(Input(2048, 768, kDtypeFloat32, kDtypeFloat32, true, false, false)).reduce.splitPhase, 0u);
  EXPECT_EQ(Tile(Input(1, 768, kDtypeFloat32)).reduce.splitPhase, 0u);
  EXPECT_EQ(Tile(Input(2048, 768, kDtypeFloat16), kTraining).reduce.splitPhase, 0u);
}

}  // namespace
