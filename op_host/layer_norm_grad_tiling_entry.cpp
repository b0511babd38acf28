// LayerNormGradV3's tiling function as CANN calls it: rows M = numel(rstd), row length
// D = numel(x) / M, the data types of dy, rstd and gamma (pd_gamma's without gamma), output_mask
// and the chip go to the pure tiling (layer_norm_grad_tiling.cpp); the tiling struct, block dim and
// workspace (the runtime's system part plus the kernel's own) come back. The simulator's
// aclnnLayerNormBackward tiles every launch through it.
#include <string>

#include "exe_graph/runtime/tiling_context.h"
#include "host_failure.h"
#include "tiling_launch.h"
#include "kernel_dtype_of.h"
#include "layer_norm_grad_host.h"
#include "layer_norm_grad_tiling.h"
#include "soc_features_of.h"

namespace optiling {
namespace {

constexpr const char* kOp = "LayerNormGradV3";

}  // namespace

ge::graphStatus TilingLayerNormGradV3(gert::TilingContext* context) {
  const gert::StorageShape* x = context->GetRequiredInputShape(1);
  const gert::StorageShape* rstd = context->GetRequiredInputShape(2);
  const gert::CompileTimeTensorDesc* dyDesc = context->GetRequiredInputDesc(0);
  const gert::CompileTimeTensorDesc* rstdDesc = context->GetRequiredInputDesc(2);
  const gert::CompileTimeTensorDesc* gammaDesc = context->GetOptionalInputDesc(4);
  const gert::CompileTimeTensorDesc* dgammaDesc = context->GetOutputDesc(1);
  const gert::RuntimeAttrs* attrs = context->GetAttrs();
  if (x == nullptr || rstd == nullptr || dyDesc == nullptr || rstdDesc == nullptr || dgammaDesc == nullptr ||
      attrs == nullptr) {
    return normgrad::HostFailure(kOp, "an input shape, a description or the attributes are missing");
  }
  const int64_t rows = rstd->GetOriginShape().GetShapeSize();
  const int64_t numel = x->GetOriginShape().GetShapeSize();
  if (rows <= 0 || numel <= 0 || numel % rows != 0) {
    return normgrad::HostFailure(kOp, "x has " + std::to_string(numel) + " elements, not a non-empty multiple of " +
                                          std::to_string(rows) + " rows (numel of rstd)");
  }
  const gert::ContinuousVector* mask = attrs->GetAttrPointer<gert::ContinuousVector>(0);
  if (mask == nullptr || mask->GetSize() != 3) return normgrad::HostFailure(kOp, "output_mask is not 3 booleans");
  const bool* need = static_cast<const bool*>(mask->GetData());
  const normgrad::SocFeatures soc = normgrad::SocFeaturesOf(context->GetPlatformInfo());

  normgrad::LayerNormGradTilingInput in{};
  in.rows = static_cast<uint64_t>(rows);
  in.cols = static_cast<uint64_t>(numel / rows);
  in.hasWeight = gammaDesc != nullptr;
  // Without gamma the parameter dtype is that of an output asked for (an output left out of the mask
  // may stand in for another tensor: the aclnn wrapper passes gradOut there).
  const gert::CompileTimeTensorDesc* dbetaDesc = context->GetOutputDesc(2);
  ge::DataType weightType = dyDesc->GetDataType();
  if (in.hasWeight) {
    weightType = gammaDesc->GetDataType();
  } else if (need[1]) {
    weightType = dgammaDesc->GetDataType();
  } else if (need[2] && dbetaDesc != nullptr) {
    weightType = dbetaDesc->GetDataType();
  }
  if (!normgrad::FloatKernelDtypeOf(dyDesc->GetDataType(), soc.hasBf16, &in.dtype) ||
      !normgrad::FloatKernelDtypeOf(rstdDesc->GetDataType(), soc.hasBf16, &in.statsDtype) ||
      !normgrad::FloatKernelDtypeOf(weightType, soc.hasBf16, &in.weightDtype)) {
    return normgrad::HostFailure(kOp, "a data type is not served on this SoC");
  }
  in.needDx = need[0];
  in.needDgamma = need[1];
  in.needDbeta = need[2];
  if (!in.needDx && !in.needDgamma && !in.needDbeta) return normgrad::HostFailure(kOp, "output_mask asks for nothing");

  const normgrad::LayerNormGradTilingResult result = normgrad::LayerNormGradComputeTiling(in, soc);
  if (!result.ok) return normgrad::HostFailure(kOp, result.error);
  normgrad::LayerNormGradTiling* tiling = context->GetTilingData<normgrad::LayerNormGradTiling>();
  if (tiling == nullptr) return normgrad::HostFailure(kOp, "the tiling data capacity is below the tiling struct");
  *tiling = result.tiling;
  return normgrad::SetLaunch(context, kOp, tiling->blockDim, soc.sysWorkspaceBytes, tiling->workspaceBytes);
}

}  // namespace optiling
