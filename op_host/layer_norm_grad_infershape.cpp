// Shape inference of LayerNormGradV3: pd_x has dy's shape, pd_gamma and pd_beta gamma's; x must
// equal dy, gamma must be dy's trailing dims, and rstd/mean must hold one value per leading row.
#include <stdexcept>
#include <string>

#include "register/op_def_registry.h"
#include "shape_string.h"

namespace ops {
namespace {

using normgrad::ShapeString;

int64_t Numel(const std::vector<int64_t>& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= s[i];
  return n;
}

void Reject(const std::string& what) { throw std::invalid_argument("LayerNormGradV3: " + what); }

}  // namespace

Shapes LayerNormGradV3InferShape(const Shapes& inputs, const Attrs&) {
  if (inputs.size() != 5) Reject(std::to_string(inputs.size()) + " input shapes, expected 5");
  const std::vector<int64_t>& dy = inputs[0];
  const std::vector<int64_t>& gamma = inputs[4];
  if (inputs[1] != dy) Reject("x has shape " + ShapeString(inputs[1]) + ", expected dy's " + ShapeString(dy));
  if (gamma.empty() || gamma.size() > dy.size()) {
    Reject("gamma has shape " + ShapeString(gamma) + ", expected 1 to " + std::to_string(dy.size()) + " dims");
  }
  const size_t lead = dy.size() - gamma.size();
  for (size_t i = 0; i < gamma.size(); ++i) {
    if (dy[lead + i] != gamma[i]) {
      Reject("gamma has shape " + ShapeString(gamma) + ", expected the trailing dims of dy " + ShapeString(dy));
    }
  }
  const int64_t rows = Numel(dy, 0, lead);
  const char* names[2] = {"rstd", "mean"};
  for (int i = 0; i < 2; ++i) {
    if (Numel(inputs[2 + i], 0, inputs[2 + i].size()) != rows) {
      Reject(std::string(names[i]) + " has shape " + ShapeString(inputs[2 + i]) + ", expected " +
             std::to_string(rows) + " elements");
    }
  }
  return {dy, gamma, gamma};
}

}  // namespace ops
