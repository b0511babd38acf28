// BatchNormElemtGrad's host functions as CANN calls them (OpDef in batch_norm_elemt_grad_def.cpp).
// Inputs by OpDef index: 0 grad_output, 1 save_input, 2 mean, 3 invstd, 4 weight (optional),
// 5 sum_dy, 6 sum_dy_xmu, 7 counter; output 0 grad_input; no attributes.
#pragma once
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace ge {
ge::graphStatus InferShapeBatchNormElemtGrad(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeBatchNormElemtGrad(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingBatchNormElemtGrad(gert::TilingContext* context);
}  // namespace optiling
