// GroupNormGrad's tiling function as CANN calls it: reads the shapes, data type, attributes and
// the chip from the context, runs the pure tiling (group_norm_grad_tiling.cpp) and writes the
// tiling struct the kernel reads, the block dim and the workspace (the runtime's system part plus
// the kernel's own). The simulator's aclnnGroupNormBackward tiles every launch through it.
#include <string>

#include "exe_graph/runtime/tiling_context.h"
#include "group_norm_grad_host.h"
#include "group_norm_grad_tiling.h"
#include "host_failure.h"
#include "tiling_launch.h"
#include "kernel_dtype_of.h"
#include "soc_features_of.h"

namespace optiling {
namespace {

constexpr const char* kOp = "GroupNormGrad";

bool BoolAttr(const gert::RuntimeAttrs* attrs, size_t index) {
  const bool* v = attrs->GetBool(index);
  return v == nullptr || *v;
}

}  // namespace

ge::graphStatus TilingGroupNormGrad(gert::TilingContext* context) {
  const gert::StorageShape* dy = context->GetRequiredInputShape(0);
  const gert::CompileTimeTensorDesc* dyDesc = context->GetRequiredInputDesc(0);
  const gert::RuntimeAttrs* attrs = context->GetAttrs();
  if (dy == nullptr || dyDesc == nullptr || attrs == nullptr || attrs->GetInt(0) == nullptr) {
    return normgrad::HostFailure(kOp, "dy, its description or num_groups is missing");
  }
  const gert::Shape& shape = dy->GetOriginShape();
  if (shape.GetDimNum() < 2) return normgrad::HostFailure(kOp, "dy has fewer than 2 dims");
  const normgrad::SocFeatures soc = normgrad::SocFeaturesOf(context->GetPlatformInfo());

  normgrad::GroupNormGradRequest req;
  req.n = shape.GetDim(0);
  req.c = shape.GetDim(1);
  req.hw = 1;
  for (size_t i = 2; i < shape.GetDimNum(); ++i) req.hw *= shape.GetDim(i);
  req.group = *attrs->GetInt(0);
  if (!normgrad::FloatKernelDtypeOf(dyDesc->GetDataType(), soc.hasBf16, &req.dtype)) {
    return normgrad::HostFailure(kOp, "dy's data type is not served on this SoC");
  }
  req.needDx = BoolAttr(attrs, 2);
  req.needDgamma = BoolAttr(attrs, 3);
  req.needDbeta = BoolAttr(attrs, 4);
  req.hasGamma = context->GetOptionalInputShape(4) != nullptr;
  if (req.n <= 0 || req.c <= 0 || req.hw <= 0 || req.group <= 0 || req.c % req.group != 0) {
    return normgrad::HostFailure(kOp, "no tiling for an empty input or num_groups not dividing C");
  }

  normgrad::GroupNormGradTiling* tiling = context->GetTilingData<normgrad::GroupNormGradTiling>();
  if (tiling == nullptr) return normgrad::HostFailure(kOp, "the tiling data capacity is below the tiling struct");
  const std::string why = normgrad::GroupNormGradTilingFor(req, soc, tiling);
  if (!why.empty()) return normgrad::HostFailure(kOp, why);
  return normgrad::SetLaunch(context, kOp, tiling->blockDim, soc.sysWorkspaceBytes, tiling->workspaceBytes);
}

}  // namespace optiling
