// BatchNormElemtGrad's channel-row candidate (op_kernel/batch_norm_elemt_grad_channel_rows.h): the
// channel slabs' blocks of channels x batches, with every (n, c) row in its own 32-byte-aligned UB
// row and the coefficients Brcb'd to one block per row. It takes a request only where its modeled
// core time (the busier of the vector pipe and the DMA ports) is less than the channel slabs' (the
// slabs expand every coefficient along the slab row: one Duplicate per channel and coefficient,
// 4 x 43 = 172 instructions per core for ResNet-50 stage 4; the rows pay the padding of each row
// to 32 bytes on every repeat and one copy per batch).
#include <algorithm>

#include "batch_norm_elemt_grad_tiling_plan.h"
#include "tiling_cost.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr int64_t kMaxBlockCount = 4095;  // DataCopyPad blockCount limit (one copy per batch of a tile)
constexpr int64_t kRepeatRows = 255;      // rows one level-0 instruction repeats over
constexpr int64_t kMaxRowBlocks = 255;    // repeat stride limit: fp32 blocks per row
// One core's time of a plan in cycles, as the simulator prices it (docs/sim.md; its constants are
// ESTIMATEs there): the vector pipe at one cycle per 256-byte repeat plus kIssueCycles per
// instruction (casts priced as element-wise ops), the DMA ports at kPortBytesPerCycle (32 bytes a
// cycle: kTilingCost.coreDmaBytesPerUs at its clock) plus kDmaIssueCycles per copy; the busiest of
// the three decides.
constexpr int64_t kIssueCycles = static_cast<int64_t>(kTilingCost.vecIssueCycles);
constexpr int64_t kDmaIssueCycles = static_cast<int64_t>(kTilingCost.dmaIssueCycles);
constexpr int64_t kPortBytesPerCycle = 32;
constexpr int64_t kLanes = 64;  // fp32 lanes of one repeat

int64_t Log2Ceil(int64_t v) {
  int64_t n = 0;
  while ((int64_t{1} << n) < v) ++n;
  return n;
}

// Casts per tile: 16-bit dy and x in, dx out.
int64_t CastsPerTile(const BatchNormElemtGradProblem& p) {
  return (KernelDtypeBytes(p.dyDtype) == 2) + (KernelDtypeBytes(p.xDtype) == 2) + (KernelDtypeBytes(p.dxDtype) == 2);
}

// The busiest of vector work and the two DMA ports, for dmaIn / dmaOut copies of one core's block.
int64_t CoreCycles(const BatchNormElemtGradProblem& p, const BatchNormElemtGradTiling& s, int64_t vec, int64_t dmaIn,
                   int64_t dmaOut) {
  const int64_t elems = int64_t{s.channelSlabs.channelsPerCore} * s.channelSlabs.batchesPerCore * p.hw;
  const int64_t in = elems * (KernelDtypeBytes(p.dyDtype) + KernelDtypeBytes(p.xDtype));
  const int64_t out = elems * KernelDtypeBytes(p.dxDtype);
  // The statistics and the counter copied into the UB: one copy each.
  const int64_t statCopies = s.channelSlabs.statsInUb ? kBnStatCount + 1 - (p.hasWeight ? 0 : 1) : 0;
  return std::max({vec, in / kPortBytesPerCycle + (dmaIn + statCopies) * kDmaIssueCycles,
                   out / kPortBytesPerCycle + dmaOut * kDmaIssueCycles});
}

// Channel slabs (the plan in s): the expansion (a Duplicate zeroing each coefficient row, one per
// channel whose run holds a whole 32-byte block, then log2(rowsPerTile) row copies), then per
// tile five count-form ops and the casts over rowsPerTile slab rows, one copy each way.
int64_t SlabCycles(const BatchNormElemtGradProblem& p, const BatchNormElemtGradTiling& s) {
  const int64_t channels = s.channelSlabs.channelsPerCore, batches = s.channelSlabs.batchesPerCore;
  const int64_t pitch = s.channelSlabs.rowPitch, perTile = s.channelSlabs.rowsPerTile;
  const int64_t tiles = CeilDiv(batches, perTile);
  const int64_t repeats = CeilDiv(perTile * pitch, kLanes);
  const int64_t ops = 5 + CastsPerTile(p);
  int64_t duplicates = 1;
  for (int64_t j = 0; j < channels; ++j) duplicates += AlignUp(j * p.hw, int64_t{8}) < (j + 1) * p.hw / 8 * 8;
  const int64_t expand = kBnElemtCoefRows * (duplicates + Log2Ceil(perTile)) * kIssueCycles +
                         kBnElemtCoefRows * (CeilDiv(pitch, kLanes) + channels * CeilDiv(p.hw, kLanes) +
                                             CeilDiv(pitch * perTile, kLanes));
  return CoreCycles(p, s, expand + tiles * ops * (kIssueCycles + repeats), 2 * tiles, tiles);
}

// The same with channel rows of `pitch` elements, `batchesPerTile` batches a tile: four row ops
// (one instruction per 64-lane piece and 255 rows), one count-form Add and the casts; the
// coefficients take one Brcb and log2(batchesPerTile) block copies each; one copy per batch
// and direction.
int64_t RowCycles(const BatchNormElemtGradProblem& p, const BatchNormElemtGradTiling& s, int64_t pitch,
                  int64_t batchesPerTile) {
  const int64_t channels = s.channelSlabs.channelsPerCore, batches = s.channelSlabs.batchesPerCore;
  const int64_t rows = channels * batchesPerTile;
  const int64_t tiles = CeilDiv(batches, batchesPerTile);
  const int64_t pieces = CeilDiv(p.hw, kLanes);
  const int64_t rowInstr = 4 * pieces * CeilDiv(rows, kRepeatRows);
  const int64_t countOps = 1 + CastsPerTile(p);
  const int64_t perTile = rowInstr * kIssueCycles + 4 * pieces * rows +
                          countOps * (kIssueCycles + CeilDiv(rows * pitch, kLanes));
  const int64_t coef = kBnElemtCoefRows * (1 + Log2Ceil(batchesPerTile)) * kIssueCycles +
                       kBnElemtCoefRows * (CeilDiv(channels, int64_t{8}) + rows / 8);
  return CoreCycles(p, s, coef + tiles * perTile, 2 * batches, batches);
}

}  // namespace

bool BnElemtPlanChannelRows(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t) {
  const BatchNormElemtGradProblem& p = *in.problem;
  BatchNormElemtGradTiling slabs{};
  // The same blocks of channels x batches as the slabs (their search weighs traffic, not vector work).
  if (!in.hasBrcb || !BnElemtPlanChannelSlabs(in, &slabs)) return false;
  const int64_t blockElems = 32 / KernelDtypeBytes(p.dyDtype);
  const int64_t pitch = AlignUp(p.hw, blockElems);
  const int64_t channels = slabs.channelSlabs.channelsPerCore, batches = slabs.channelSlabs.batchesPerCore;
  if (pitch * 4 / 32 > kMaxRowBlocks || channels > kMaxBlockCount) return false;
  BatchNormElemtGradTiling rows = slabs;
  rows.mode = kBnElemtChannelRows;
  rows.channelSlabs.rowPitch = static_cast<uint32_t>(pitch);
  // The most batches a tile holds, at most half a core's (two tiles in flight, so the copies of
  // one overlap the math of the other).
  int64_t fit = 0;
  for (int64_t b = std::max<int64_t>(1, CeilDiv(batches, int64_t{2})); b >= 1; --b) {
    rows.channelSlabs.rowsPerTile = static_cast<uint32_t>(b);
    if (static_cast<int64_t>(BatchNormElemtGradUbBytes(rows)) <= in.budget) {
      fit = b;
      break;
    }
  }
  if (fit == 0 || RowCycles(p, rows, pitch, fit) >= SlabCycles(p, slabs)) return false;
  *t = rows;
  return true;
}

}  // namespace normgrad
