// Shape and data-type inference of GroupNormGrad: dx has dy's shape, dgamma and dbeta are [C]; dy
// and x must agree and be (N, C, *) with 2 to 8 dims, mean and rstd hold N * num_groups values,
// gamma (when given) C, and num_groups must divide C. Every output takes dy's data type.
#include <string>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "group_norm_grad_host.h"
#include "host_failure.h"
#include "shape_text.h"

namespace ge {
namespace {

constexpr const char* kOp = "GroupNormGrad";
enum Input : size_t { kDy = 0, kMean = 1, kRstd = 2, kX = 3, kGamma = 4 };

}  // namespace

ge::graphStatus InferShapeGroupNormGrad(gert::InferShapeContext* context) {
  const gert::Shape* dy = context->GetRequiredInputShape(kDy);
  const gert::Shape* x = context->GetRequiredInputShape(kX);
  const gert::Shape* mean = context->GetRequiredInputShape(kMean);
  const gert::Shape* rstd = context->GetRequiredInputShape(kRstd);
  const gert::Shape* gamma = context->GetOptionalInputShape(kGamma);
  const int64_t* groups = context->GetAttrs() == nullptr ? nullptr : context->GetAttrs()->GetInt(0);
  if (dy == nullptr || x == nullptr || mean == nullptr || rstd == nullptr || groups == nullptr) {
    return normgrad::HostFailure(kOp, "an input shape or num_groups is missing");
  }
  using normgrad::ShapeText;
  if (dy->GetDimNum() < 2 || dy->GetDimNum() > 8) {
    return normgrad::HostFailure(kOp, "dy has shape " + ShapeText(*dy) + ", expected 2 to 8 dims (N, C, *)");
  }
  if (*x != *dy) return normgrad::HostFailure(kOp, "x has shape " + ShapeText(*x) + ", expected dy's " + ShapeText(*dy));
  const int64_t n = dy->GetDim(0);
  const int64_t c = dy->GetDim(1);
  if (*groups <= 0 || c % *groups != 0) {
    return normgrad::HostFailure(kOp, "num_groups is " + std::to_string(*groups) +
                                          ", expected > 0 and dividing C = " + std::to_string(c));
  }
  const gert::Shape* stats[] = {mean, rstd};
  const char* names[] = {"mean", "rstd"};
  for (int i = 0; i < 2; ++i) {
    if (stats[i]->GetShapeSize() != n * *groups) {
      return normgrad::HostFailure(kOp, std::string(names[i]) + " has shape " + ShapeText(*stats[i]) +
                                            ", expected N * num_groups = " + std::to_string(n * *groups) +
                                            " elements");
    }
  }
  if (gamma != nullptr && (gamma->GetDimNum() != 1 || gamma->GetDim(0) != c)) {
    return normgrad::HostFailure(kOp, "gamma has shape " + ShapeText(*gamma) + ", expected [C] = [" +
                                          std::to_string(c) + "]");
  }
  *context->GetOutputShape(0) = *dy;
  for (size_t out = 1; out <= 2; ++out) {
    gert::Shape* param = context->GetOutputShape(out);
    param->SetDimNum(0);
    param->AppendDim(c);
  }
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeGroupNormGrad(gert::InferDataTypeContext* context) {
  const ge::DataType dtype = context->GetRequiredInputDataType(kDy);
  for (size_t out = 0; out < 3; ++out) {
    if (context->SetOutputDataType(out, dtype) != ge::GRAPH_SUCCESS) {
      return normgrad::HostFailure(kOp, "cannot set the data type of output " + std::to_string(out));
    }
  }
  return ge::GRAPH_SUCCESS;
}

}  // namespace ge
