// BatchNormElemtGrad's row-scalar candidate, which takes every shape: the flat range is split
// across cores in 512-byte-aligned chunks and every tile lies inside one row, so its coefficients
// are 4 scalars (op_kernel/batch_norm_elemt_grad_row_scalars.h).
#include <algorithm>

#include "batch_norm_elemt_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr int64_t kChunkAlignBytes = 512;  // GM bandwidth drops ~30 % below 512-byte alignment

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

bool BnElemtPlanRowScalars(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t) {
  *t = in.common;
  t->mode = kBnElemtRowScalars;
  PlanRowScalars(*in.problem, in.cores, in.budget, t);
  return true;
}

}  // namespace normgrad
