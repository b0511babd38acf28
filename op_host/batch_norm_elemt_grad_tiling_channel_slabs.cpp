// BatchNormElemtGrad's channel-slab candidate: for short rows (small hw, [N, C] inputs) of one
// element width, each core owns a block of channels x batches and keeps its channels'
// coefficients, expanded along a slab row, resident (op_kernel/batch_norm_elemt_grad_channel_slabs.h).
#include <algorithm>

#include "batch_norm_elemt_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

// Below this row length the per-row scalar ops of kBnElemtRowScalars (about 8 instructions of
// 10 issue cycles per tile) cost more than the 16-bit HBM time of the row (~0.36 cycles/element).
constexpr int64_t kShortRowElems = 512;
constexpr int64_t kStatBytesPerChannel = 5 * 4;  // mean, invstd, weight, sumDy, sumDyXmu
constexpr uint32_t kMaxBlockCount = 4095;        // DataCopyPad blockCount limit
constexpr int64_t kRereadPermille = 45;          // statistics read again, per mille of the data

// Channel groups x batch groups with the smallest per-core work (data plus the stats each core
// reads), then the fewest cores. Returns false when no block's slab row fits in the UB.
bool PlanChannelSlabs(const BatchNormElemtGradProblem& p, int64_t cores, int64_t budget, bool statsInUb,
                      BatchNormElemtGradTiling* t) {
  const int64_t elemBytes = KernelDtypeBytes(p.dyDtype);
  const int64_t blockElems = 32 / elemBytes;
  const int64_t perElem = BnElemtUbBytesPerElem(*t);  // statsInUb still 0: bytes per tile element
  const int64_t trafficPerElem = 3 * elemBytes;
  int64_t bestCost = -1;
  for (int64_t channelGroups = 1; channelGroups <= std::min(p.c, cores); ++channelGroups) {
    const int64_t channels = CeilDiv(p.c, channelGroups);
    const int64_t pitch = AlignUp(channels * p.hw, blockElems);
    const int64_t statBytes =
        statsInUb ? static_cast<int64_t>(BnElemtStatSlotBytes(channels, p.counterNumel) * kBnElemtStatSlots) : 0;
    if (pitch * perElem + statBytes > budget) continue;
    for (int64_t batchGroups = 1; batchGroups <= std::min(p.n, cores / channelGroups); ++batchGroups) {
      const int64_t batches = CeilDiv(p.n, batchGroups);
      const int64_t cost = channels * batches * p.hw * trafficPerElem + channels * kStatBytesPerChannel;
      const int64_t used = CeilDiv(p.c, channels) * CeilDiv(p.n, batches);
      // Every batch group after the first reads the statistics again: kept within 4.5 % of
      // dy + x + dx (the traffic target is 1.05 x the minimum).
      const int64_t rereads = (CeilDiv(p.n, batches) - 1) * p.c * kStatBytesPerChannel;
      if (rereads * 1000 > p.n * p.c * p.hw * trafficPerElem * kRereadPermille) continue;
      if (bestCost >= 0 && (cost > bestCost || (cost == bestCost && used >= t->blockDim))) continue;
      bestCost = cost;
      t->blockDim = static_cast<uint32_t>(used);
      t->channelSlabs.channelsPerCore = static_cast<uint32_t>(channels);
      t->channelSlabs.batchesPerCore = static_cast<uint32_t>(batches);
      t->channelSlabs.batchGroups = static_cast<uint32_t>(CeilDiv(p.n, batches));
      t->channelSlabs.rowPitch = static_cast<uint32_t>(pitch);
      const int64_t rows = std::min<int64_t>({batches, (budget - statBytes) / (pitch * perElem), kMaxBlockCount});
      t->channelSlabs.rowsPerTile = static_cast<uint32_t>(rows);
    }
  }
  t->channelSlabs.statsInUb = statsInUb ? 1 : 0;
  return bestCost >= 0;
}

}  // namespace

bool BnElemtPlanChannelSlabs(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t) {
  const BatchNormElemtGradProblem& p = *in.problem;
  const bool sameWidth = KernelDtypeBytes(p.dyDtype) == KernelDtypeBytes(p.xDtype) &&
                         KernelDtypeBytes(p.xDtype) == KernelDtypeBytes(p.dxDtype);
  if (p.hw >= kShortRowElems || !sameWidth) return false;
  *t = in.common;
  t->mode = kBnElemtChannelSlabs;
  // The statistics and the counter copied into the UB with one DataCopyPad each (exact bytes):
  // no 64-byte data-cache lines per core, so the slabs may use the cores the traffic pays for.
  const bool statsInUb = p.counterNumel <= kBnElemtUbCounterMax;
  return PlanChannelSlabs(p, statsInUb ? in.slabCores : in.cores, in.budget, statsInUb, t);
}

}  // namespace normgrad
