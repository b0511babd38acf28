// Shape and data-type inference of BatchNormElemtGrad: grad_input has grad_output's shape and data
// type. save_input must match grad_output (2 to 8 dims, channels on dim 1); every per-channel input
// is [C] or grad_output's shape (a pre-broadcast one); counter is 1-D.
#include <string>

#include "batch_norm_elemt_grad_host.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "host_failure.h"
#include "shape_text.h"

namespace ge {
namespace {
constexpr const char* kOp = "BatchNormElemtGrad";
}  // namespace

ge::graphStatus InferShapeBatchNormElemtGrad(gert::InferShapeContext* context) {
  static const char* const kNames[] = {"grad_output", "save_input", "mean", "invstd", "weight", "sum_dy",
                                       "sum_dy_xmu"};
  const gert::Shape* dy = context->GetRequiredInputShape(0);
  const gert::Shape* x = context->GetRequiredInputShape(1);
  const gert::Shape* counter = context->GetRequiredInputShape(7);
  if (dy == nullptr || x == nullptr || counter == nullptr) return normgrad::HostFailure(kOp, "an input shape is missing");
  using normgrad::ShapeText;
  if (dy->GetDimNum() < 2 || dy->GetDimNum() > 8) {
    return normgrad::HostFailure(kOp, "grad_output has shape " + ShapeText(*dy) + ", expected 2 to 8 dimensions");
  }
  if (*x != *dy) {
    return normgrad::HostFailure(kOp, "save_input has shape " + ShapeText(*x) + ", expected grad_output's " +
                                          ShapeText(*dy));
  }
  const gert::Shape channels = {dy->GetDim(1)};
  for (size_t i = 2; i < 7; ++i) {
    const gert::Shape* s = i == 4 ? context->GetOptionalInputShape(i) : context->GetRequiredInputShape(i);
    if (s == nullptr && i == 4) continue;
    if (s == nullptr || (*s != channels && *s != *dy)) {
      return normgrad::HostFailure(kOp, std::string(kNames[i]) + " has shape " +
                                            (s == nullptr ? std::string("(none)") : ShapeText(*s)) + ", expected " +
                                            ShapeText(channels) + " or " + ShapeText(*dy));
    }
  }
  if (counter->GetDimNum() != 1) {
    return normgrad::HostFailure(kOp, "counter has shape " + ShapeText(*counter) + ", expected one dimension");
  }
  *context->GetOutputShape(0) = *dy;
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeBatchNormElemtGrad(gert::InferDataTypeContext* context) {
  return context->SetOutputDataType(0, context->GetRequiredInputDataType(0)) == ge::GRAPH_SUCCESS
             ? ge::GRAPH_SUCCESS
             : normgrad::HostFailure(kOp, "cannot set the data type of grad_input");
}

}  // namespace ge
