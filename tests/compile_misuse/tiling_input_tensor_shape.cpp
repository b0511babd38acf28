// gert::TilingContext has GetInputShape / GetRequiredInputShape, no GetInputTensorShape.
// expect-error: has no member named .*GetInputTensorShape
#include "exe_graph/runtime/tiling_context.h"

const gert::StorageShape* Shape0(gert::TilingContext* context) { return context->GetInputTensorShape(0); }
