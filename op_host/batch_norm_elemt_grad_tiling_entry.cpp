// BatchNormElemtGrad's tiling function as CANN calls it: grad_output viewed as [n, c, hw] (channels
// on dim 1), each input's data type, counter's length, weight present or not, and the chip go to
// the pure tiling (batch_norm_elemt_grad_tiling.cpp); the tiling struct, block dim and workspace
// (the runtime's system part; the kernel needs none of its own) come back. The simulator's
// aclnnBatchNormElemtBackward tiles every launch through it.
#include <string>

#include "batch_norm_elemt_grad_host.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "exe_graph/runtime/tiling_context.h"
#include "host_failure.h"
#include "tiling_launch.h"
#include "kernel_dtype_of.h"
#include "soc_features_of.h"

namespace optiling {
namespace {

constexpr const char* kOp = "BatchNormElemtGrad";

}  // namespace

ge::graphStatus TilingBatchNormElemtGrad(gert::TilingContext* context) {
  const gert::StorageShape* dy = context->GetRequiredInputShape(0);
  const gert::StorageShape* counter = context->GetRequiredInputShape(7);
  if (dy == nullptr || counter == nullptr || context->GetOutputDesc(0) == nullptr) {
    return normgrad::HostFailure(kOp, "grad_output, counter or grad_input is missing");
  }
  const gert::Shape& shape = dy->GetOriginShape();
  if (shape.GetDimNum() < 2) return normgrad::HostFailure(kOp, "grad_output has fewer than 2 dims");
  normgrad::BatchNormElemtGradProblem p;
  p.n = shape.GetDim(0);
  p.c = shape.GetDim(1);
  p.hw = 1;
  for (size_t i = 2; i < shape.GetDimNum(); ++i) p.hw *= shape.GetDim(i);
  if (p.n <= 0 || p.c <= 0 || p.hw <= 0) return normgrad::HostFailure(kOp, "no tiling for an empty input");
  p.counterNumel = counter->GetOriginShape().GetShapeSize();
  p.hasWeight = context->GetOptionalInputDesc(4) != nullptr;
  // Per-channel inputs by OpDef index, in the kernel's statistic order (mean, invstd, weight, sums).
  const size_t statInputs[normgrad::kBnStatCount] = {2, 3, 4, 5, 6};
  bool ok = normgrad::KernelDtypeOf(context->GetRequiredInputDesc(0)->GetDataType(), &p.dyDtype) &&
            normgrad::KernelDtypeOf(context->GetRequiredInputDesc(1)->GetDataType(), &p.xDtype) &&
            normgrad::KernelDtypeOf(context->GetOutputDesc(0)->GetDataType(), &p.dxDtype) &&
            normgrad::KernelDtypeOf(context->GetRequiredInputDesc(7)->GetDataType(), &p.counterDtype);
  for (uint32_t i = 0; ok && i < normgrad::kBnStatCount; ++i) {
    const gert::CompileTimeTensorDesc* d = context->GetOptionalInputDesc(statInputs[i]);
    if (d == nullptr) {
      p.statDtype[i] = normgrad::kDtypeFloat32;  // weight absent: ones, never read
    } else {
      ok = normgrad::KernelDtypeOf(d->GetDataType(), &p.statDtype[i]);
    }
  }
  if (!ok) return normgrad::HostFailure(kOp, "an input has a data type the kernel does not read");

  const normgrad::SocFeatures soc = normgrad::SocFeaturesOf(context->GetPlatformInfo());
  normgrad::BatchNormElemtGradTiling* tiling = context->GetTilingData<normgrad::BatchNormElemtGradTiling>();
  if (tiling == nullptr) return normgrad::HostFailure(kOp, "the tiling data capacity is below the tiling struct");
  *tiling = normgrad::BatchNormElemtGradTiling{};
  const char* why = nullptr;
  if (!normgrad::BatchNormElemtGradTilingFor(p, soc, tiling, &why)) return normgrad::HostFailure(kOp, why);
  return normgrad::SetLaunch(context, kOp, tiling->blockDim, soc.sysWorkspaceBytes, 0);
}

}  // namespace optiling
