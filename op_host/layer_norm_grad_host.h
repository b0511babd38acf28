// LayerNormGradV3's host functions as CANN calls them (OpDef in layer_norm_grad_def.cpp).
// Inputs by OpDef index: 0 dy, 1 x, 2 rstd, 3 mean, 4 gamma (optional); outputs 0 pd_x,
// 1 pd_gamma, 2 pd_beta; attribute 0 output_mask (ListBool of 3).
#pragma once
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace ge {
ge::graphStatus InferShapeLayerNormGradV3(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeLayerNormGradV3(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingLayerNormGradV3(gert::TilingContext* context);
}  // namespace optiling
