// Host tiling of BatchNormElemtGrad: (shape, dtypes, chip) -> BatchNormElemtGradTiling. Pure C++.
//
// Worked examples on ascend910b (48 cores, 192 KiB UB, 184 KiB budget):
//   [32, 256, 56, 56] fp16 (ResNet-50 stage 1): hw = 3136 is a long row -> kBnElemtRowScalars,
//     chunks of 535,296 elements (a multiple of 256 = 512 B), 48 cores, the last one 531,200
//     elements; tiles of at most 9,216 elements (20 UB bytes per element).
//   [32, 2048, 7, 7] fp16 (ResNet-50 stage 4): hw = 49 is short -> kBnElemtChannelSlabs, 48 channel
//     groups of 43 channels x 1 batch group of 32; a slab row is 43 * 49 = 2,107 elements, pitch
//     2,112; 2 rows per tile (36 UB bytes per element); the last core owns 27 channels.
//   [20, 128] fp32: 30 KiB of traffic is worth 1 core (16 KiB per core at least) -> kBnElemtChannelSlabs
//     with one group of all 128 channels, one 128-element row per batch, 20 rows per tile.
#include "batch_norm_elemt_grad_tiling.h"
#include "tiling_math.h"

#include <algorithm>

namespace normgrad {
namespace {

constexpr int64_t kChunkAlignBytes = 512;        // GM bandwidth drops ~30 % below 512-byte alignment
constexpr int64_t kMinCoreBytes = 16 * 1024;     // less work per core than this costs more in launch
// Below this row length the per-row scalar ops of kBnElemtRowScalars (about 8 instructions of
// 10 issue cycles per tile) cost more than the 16-bit HBM time of the row (~0.36 cycles/element).
constexpr int64_t kShortRowElems = 512;
constexpr int64_t kStatBytesPerChannel = 5 * 4;  // mean, invstd, weight, sumDy, sumDyXmu
constexpr uint32_t kMaxBlockCount = 4095;        // DataCopyPad blockCount limit

bool UsesBf16(const BatchNormElemtGradProblem& p) {
  bool any = p.dyDtype == kDtypeBfloat16 || p.xDtype == kDtypeBfloat16 || p.dxDtype == kDtypeBfloat16;
  for (uint32_t d : p.statDtype) any = any || d == kDtypeBfloat16;
  return any;
}

void FillCommon(const BatchNormElemtGradProblem& p, BatchNormElemtGradTiling* t) {
  *t = BatchNormElemtGradTiling{};
  t->dyDtype = p.dyDtype;
  t->xDtype = p.xDtype;
  t->dxDtype = p.dxDtype;
  t->counterDtype = p.counterDtype;
  std::copy(p.statDtype, p.statDtype + kBnStatCount, t->statDtype);
  t->hasWeight = p.hasWeight ? 1 : 0;
  t->n = p.n;
  t->c = p.c;
  t->hw = p.hw;
  t->counterNumel = p.counterNumel;
}

// Channel groups x batch groups with the smallest per-core work (data plus the stats each core
// reads), then the fewest cores. Returns false when no block's slab row fits in the UB.
bool PlanChannelSlabs(const BatchNormElemtGradProblem& p, int64_t cores, int64_t budget,
                      BatchNormElemtGradTiling* t) {
  const int64_t elemBytes = KernelDtypeBytes(p.dyDtype);
  const int64_t blockElems = 32 / elemBytes;
  const int64_t perElem = BnElemtUbBytesPerElem(*t);
  const int64_t trafficPerElem = 3 * elemBytes;
  int64_t bestCost = -1;
  for (int64_t channelGroups = 1; channelGroups <= std::min(p.c, cores); ++channelGroups) {
    const int64_t channels = CeilDiv(p.c, channelGroups);
    const int64_t pitch = AlignUp(channels * p.hw, blockElems);
    if (pitch * perElem > budget) continue;
    for (int64_t batchGroups = 1; batchGroups <= std::min(p.n, cores / channelGroups); ++batchGroups) {
      const int64_t batches = CeilDiv(p.n, batchGroups);
      const int64_t cost = channels * batches * p.hw * trafficPerElem + channels * kStatBytesPerChannel;
      const int64_t used = CeilDiv(p.c, channels) * CeilDiv(p.n, batches);
      if (bestCost >= 0 && (cost > bestCost || (cost == bestCost && used >= t->blockDim))) continue;
      bestCost = cost;
      t->blockDim = static_cast<uint32_t>(used);
      t->channelSlabs.channelsPerCore = static_cast<uint32_t>(channels);
      t->channelSlabs.batchesPerCore = static_cast<uint32_t>(batches);
      t->channelSlabs.batchGroups = static_cast<uint32_t>(CeilDiv(p.n, batches));
      t->channelSlabs.rowPitch = static_cast<uint32_t>(pitch);
      const int64_t rows = std::min<int64_t>({batches, budget / (pitch * perElem), kMaxBlockCount});
      t->channelSlabs.rowsPerTile = static_cast<uint32_t>(rows);
    }
  }
  return bestCost >= 0;
}

void PlanRowScalars(const BatchNormElemtGradProblem& p, int64_t cores, int64_t budget, BatchNormElemtGradTiling* t) {
  const int64_t minElemBytes = std::min({KernelDtypeBytes(p.dyDtype), KernelDtypeBytes(p.xDtype),
                                         KernelDtypeBytes(p.dxDtype)});
  const int64_t alignElems = kChunkAlignBytes / minElemBytes;
  const int64_t numel = p.n * p.c * p.hw;
  const int64_t chunk = AlignUp(CeilDiv(numel, cores), alignElems);
  t->blockDim = static_cast<uint32_t>(CeilDiv(numel, chunk));
  t->rowScalars.chunkElems = chunk;
  const int64_t tile = budget / BnElemtUbBytesPerElem(*t) / alignElems * alignElems;
  t->rowScalars.tileElems = static_cast<uint32_t>(std::min(tile, chunk));
}

}  // namespace

bool BatchNormElemtGradTilingFor(const BatchNormElemtGradProblem& p, const SocFeatures& soc,
                                 BatchNormElemtGradTiling* t, const char** why) {
  if (!soc.hasDataCopyPad) {
    *why = "the kernel needs DataCopyPad for rows that are not whole 32-byte blocks; this SoC has none";
    return false;
  }
  if (!soc.hasBf16 && UsesBf16(p)) {
    *why = "this SoC has no bfloat16";
    return false;
  }
  FillCommon(p, t);
  const int64_t numel = p.n * p.c * p.hw;
  const int64_t traffic = numel * (KernelDtypeBytes(p.dyDtype) + KernelDtypeBytes(p.xDtype) +
                                   KernelDtypeBytes(p.dxDtype));
  const int64_t cores = std::max<int64_t>(1, std::min<int64_t>(soc.vectorCores, traffic / kMinCoreBytes));
  const int64_t budget = static_cast<int64_t>(soc.ubBytes) - kRuntimeReservedUbBytes;
  const bool sameWidth = KernelDtypeBytes(p.dyDtype) == KernelDtypeBytes(p.xDtype) &&
                         KernelDtypeBytes(p.xDtype) == KernelDtypeBytes(p.dxDtype);
  if (p.hw < kShortRowElems && sameWidth) {
    t->mode = kBnElemtChannelSlabs;
    if (PlanChannelSlabs(p, cores, budget, t)) return true;
    FillCommon(p, t);
  }
  t->mode = kBnElemtRowScalars;
  PlanRowScalars(p, cores, budget, t);
  return true;
}

}  // namespace normgrad
