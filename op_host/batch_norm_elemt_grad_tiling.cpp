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
//   [20, 128] fp32: 30 KiB of traffic is worth 30 cores (1 KiB per core at least) -> kBnElemtChannelSlabs
//     with 15 channel groups of 9 channels x 2 batch groups of 10 rows (30 cores).
#include "batch_norm_elemt_grad_tiling.h"

#include <algorithm>

#include "batch_norm_elemt_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

// Less traffic per core than this does not pay: a core's fixed cost (its statistics loads, about
// ten DMA issues and the pipeline fill, ~0.15 us in the cost model) then outweighs the port time
// it saves. [20, 128] fp32 on A2, modeled: 1 core (16 KiB rule) 5.78 us, 3 cores 5.37, 7 cores
// 5.27, 30 cores (1 KiB) 5.18, 43 cores (512 B) 5.20.
constexpr int64_t kMinCoreBytes = 1024;

// One line per mode, in order of preference: the first that takes the request plans it.
constexpr BnElemtCandidate kCandidates[] = {
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
  BnElemtPlanInput in{&p, {}, 0, 0};
  FillCommon(p, &in.common);
  const int64_t numel = p.n * p.c * p.hw;
  const int64_t traffic = numel * (KernelDtypeBytes(p.dyDtype) + KernelDtypeBytes(p.xDtype) +
                                   KernelDtypeBytes(p.dxDtype));
  in.cores = std::max<int64_t>(1, std::min<int64_t>(soc.vectorCores, traffic / kMinCoreBytes));
  in.budget = static_cast<int64_t>(soc.ubBytes) - kRuntimeReservedUbBytes;
  for (BnElemtCandidate candidate : kCandidates) {
    if (candidate(in, t)) return true;
  }
  *why = "no BatchNormElemtGrad mode takes this request";  // row scalars takes every shape
  return false;
}

}  // namespace normgrad
