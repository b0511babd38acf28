// GroupNormGrad's host functions as CANN calls them (OpDef in group_norm_grad_def.cpp).
// Inputs by OpDef index: 0 dy, 1 mean, 2 rstd, 3 x, 4 gamma (optional); outputs 0 dx, 1 dgamma,
// 2 dbeta; attributes 0 num_groups, 1 data_format, 2 dx_is_require, 3 dgamma_is_require,
// 4 dbeta_is_require.
#pragma once
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace ge {
ge::graphStatus InferShapeGroupNormGrad(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeGroupNormGrad(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingGroupNormGrad(gert::TilingContext* context);
}  // namespace optiling
