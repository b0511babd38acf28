// Shape and data-type inference of LayerNormGradV3: pd_x has dy's shape, pd_gamma and pd_beta the
// normalized (trailing) dims of dy. x must equal dy; rstd and mean hold one value per row (the
// leading dims); gamma, when given, is the normalized dims. Without gamma the normalized dims are
// the shortest suffix of dy holding numel(dy) / numel(rstd) elements. pd_x takes dy's data type,
// pd_gamma/pd_beta gamma's (dy's without gamma).
#include <string>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "host_failure.h"
#include "layer_norm_grad_host.h"
#include "shape_text.h"

namespace ge {
namespace {

constexpr const char* kOp = "LayerNormGradV3";
enum Input : size_t { kDy = 0, kX = 1, kRstd = 2, kMean = 3, kGamma = 4 };

int64_t Product(const gert::Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s.GetDim(i);
  return p;
}

}  // namespace

ge::graphStatus InferShapeLayerNormGradV3(gert::InferShapeContext* context) {
  const gert::Shape* dy = context->GetRequiredInputShape(kDy);
  const gert::Shape* x = context->GetRequiredInputShape(kX);
  const gert::Shape* rstd = context->GetRequiredInputShape(kRstd);
  const gert::Shape* mean = context->GetRequiredInputShape(kMean);
  const gert::Shape* gamma = context->GetOptionalInputShape(kGamma);
  if (dy == nullptr || x == nullptr || rstd == nullptr || mean == nullptr) {
    return normgrad::HostFailure(kOp, "an input shape is missing");
  }
  using normgrad::ShapeText;
  if (*x != *dy) return normgrad::HostFailure(kOp, "x has shape " + ShapeText(*x) + ", expected dy's " + ShapeText(*dy));
  const size_t rank = dy->GetDimNum();
  size_t lead = 0;  // dims of dy before the normalized ones
  if (gamma != nullptr) {
    if (gamma->GetDimNum() == 0 || gamma->GetDimNum() > rank) {
      return normgrad::HostFailure(kOp, "gamma has shape " + ShapeText(*gamma) + ", expected 1 to " +
                                            std::to_string(rank) + " dims");
    }
    lead = rank - gamma->GetDimNum();
    for (size_t i = 0; i < gamma->GetDimNum(); ++i) {
      if (dy->GetDim(lead + i) != gamma->GetDim(i)) {
        return normgrad::HostFailure(kOp, "gamma has shape " + ShapeText(*gamma) +
                                              ", expected the trailing dims of dy " + ShapeText(*dy));
      }
    }
  } else {
    lead = rank;
    while (lead > 0 && Product(*dy, 0, lead) != rstd->GetShapeSize()) --lead;
    if (lead == rank && rank > 0) --lead;  // at least one normalized dim
  }
  const int64_t rows = Product(*dy, 0, lead);
  const gert::Shape* stats[] = {rstd, mean};
  const char* names[] = {"rstd", "mean"};
  for (int i = 0; i < 2; ++i) {
    if (stats[i]->GetShapeSize() != rows) {
      return normgrad::HostFailure(kOp, std::string(names[i]) + " has shape " + ShapeText(*stats[i]) +
                                            ", expected " + std::to_string(rows) + " elements");
    }
  }
  *context->GetOutputShape(0) = *dy;
  for (size_t out = 1; out <= 2; ++out) {
    gert::Shape* param = context->GetOutputShape(out);
    param->SetDimNum(0);
    for (size_t i = lead; i < rank; ++i) param->AppendDim(dy->GetDim(i));
  }
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeLayerNormGradV3(gert::InferDataTypeContext* context) {
  const ge::DataType data = context->GetRequiredInputDataType(kDy);
  const ge::DataType gamma = context->GetOptionalInputDataType(kGamma);
  const ge::DataType param = gamma == ge::DT_UNDEFINED ? data : gamma;
  const ge::DataType types[] = {data, param, param};
  for (size_t out = 0; out < 3; ++out) {
    if (context->SetOutputDataType(out, types[out]) != ge::GRAPH_SUCCESS) {
      return normgrad::HostFailure(kOp, "cannot set the data type of output " + std::to_string(out));
    }
  }
  return ge::GRAPH_SUCCESS;
}

}  // namespace ge
