// Shape inference of SyncBatchNormBackwardElemt: grad_input has grad_output's shape; save_input must
// match it and every per-channel input must be [C] or grad_output's shape (C = dim 1).
#include <stdexcept>
#include <string>

#include "register/op_def_registry.h"
#include "shape_string.h"

namespace ops {
using normgrad::ShapeString;

Shapes SyncBatchNormBackwardElemtInferShape(const Shapes& inputs, const Attrs&) {
  static const char* const kNames[] = {"grad_output", "save_input", "mean", "invstd", "weight", "mean_dy",
                                       "mean_dy_xmu"};
  if (inputs.size() != 7) {
    throw std::invalid_argument("SyncBatchNormBackwardElemt: " + std::to_string(inputs.size()) +
                                " input shapes, expected 7");
  }
  const std::vector<int64_t>& dy = inputs[0];
  if (dy.size() < 2 || dy.size() > 8) {
    throw std::invalid_argument("SyncBatchNormBackwardElemt: grad_output has shape " + ShapeString(dy) +
                                ", expected 2 to 8 dimensions");
  }
  if (inputs[1] != dy) {
    throw std::invalid_argument("SyncBatchNormBackwardElemt: save_input has shape " + ShapeString(inputs[1]) +
                                ", expected grad_output's " + ShapeString(dy));
  }
  const std::vector<int64_t> channels = {dy[1]};
  for (size_t i = 2; i < inputs.size(); ++i) {
    if (inputs[i] != channels && inputs[i] != dy) {
      throw std::invalid_argument(std::string("SyncBatchNormBackwardElemt: ") + kNames[i] + " has shape " +
                                  ShapeString(inputs[i]) + ", expected " + ShapeString(channels) + " or " +
                                  ShapeString(dy));
    }
  }
  return {dy};
}

static const int g_syncBatchNormBackwardElemtInferShape [[maybe_unused]] =
    RegisterInferShape("SyncBatchNormBackwardElemt", SyncBatchNormBackwardElemtInferShape);

}  // namespace ops
