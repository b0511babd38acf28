// Host tiling of BatchNormElemtGrad: (shape, dtypes, chip) -> BatchNormElemtGradTiling. Pure C++.
// The modes are candidates (batch_norm_elemt_grad_tiling_<mode>.cpp) tried in the order of
// kCandidates; this file holds the list and what every mode shares.
//
// Worked examples on ascend910b (48 cores, 192 KiB UB, 184 KiB budget):
//   [32, 256, 56, 56] fp16 (ResNet-50 stage 1): hw = 3136 is a long row -> kBnElemtRowScalars,
//     chunks of 535,296 elements (a multiple of 256 = 512 B), 48 cores, the last one 531,200
//     elements; tiles of at most 9,216 elements (20 UB bytes per element).
//   [32, 2048, 7, 7] fp16 (ResNet-50 stage 4): hw = 49 is short -> kBnElemtChannelSlabs, 48 channel
//     groups of 43 channels x 1 batch group of 32; a slab row is 43 * 49 = 2,107 elements, pitch
//     2,112; 2 rows per tile (36 UB bytes per element); the last core owns 27 channels.
//   [20, 128] fp32: 30 KiB of traffic, 30 cores' worth of kMinCoreBytes; the slabs copy the
//     statistics into the UB and a second batch group would re-read them all (> 4.5 %): 26 cores
//     -> kBnElemtChannelSlabs with 26 channel groups of 5 channels (the last one 3).
#include "batch_norm_elemt_grad_tiling.h"

#include <algorithm>

#include "batch_norm_elemt_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

// Less traffic per core than this does not pay: a core's fixed cost (its statistics loads, about
// ten DMA issues and the pipeline fill, ~0.15 us in the cost model) then outweighs the port time
// it saves. [20, 128] fp32 on A2, modeled with the statistics read as scalars: 1 core 5.78 us,
// 3 cores 5.37, 7 cores 5.27, 30 cores (1 KiB) 5.18, 43 cores (512 B) 5.20; with the slabs'
// UB copies, 26 cores 5.20.
constexpr int64_t kMinCoreBytes = 1024;
// Where a core reads the statistics and the counter as scalars (row scalars, and channel slabs
// with a counter too long for the UB), at least one 64-byte data cache line each (six lines),
// which count as traffic, the extra cores are capped so that these stay within 4.5 % of
// dy + x + dx (the traffic target is 1.05 x the minimum). Channel slabs normally copy them into
// the UB (exact bytes) and take traffic / kMinCoreBytes cores.
constexpr int64_t kCoreScalarLineBytes = 6 * 64;
constexpr int64_t kCoreLineTrafficPermille = 45;

// One line per mode, in order of preference: the first that takes the request plans it.
constexpr BnElemtCandidate kCandidates[] = {
    BnElemtPlanChannelRows,   // short rows of a few blocks, few batches: row repeats, Brcb'd coefficients
    BnElemtPlanChannelSlabs,  // short rows of one width: coefficient rows resident
    BnElemtPlanRowScalars,    // everything else: flat chunks, scalar coefficients
};

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
  BnElemtPlanInput in{&p, {}, 0, 0, 0, soc.hasBrcb};
  FillCommon(p, &in.common);
  const int64_t numel = p.n * p.c * p.hw;
  const int64_t traffic = numel * (KernelDtypeBytes(p.dyDtype) + KernelDtypeBytes(p.xDtype) +
                                   KernelDtypeBytes(p.dxDtype));
  const int64_t lineCap = 1 + traffic * kCoreLineTrafficPermille / 1000 / kCoreScalarLineBytes;
  in.slabCores = std::max<int64_t>(1, std::min<int64_t>(soc.vectorCores, traffic / kMinCoreBytes));
  in.cores = std::min<int64_t>(in.slabCores, lineCap);
  in.budget = static_cast<int64_t>(UsableUbBytes(soc));
  for (BnElemtCandidate candidate : kCandidates) {
    if (candidate(in, t)) return true;
  }
  *why = "no BatchNormElemtGrad mode takes this request";  // row scalars takes every shape
  return false;
}

}  // namespace normgrad
