// Shape inference of GroupNormGrad: dx has dy's shape, dgamma and dbeta gamma's. dy and x must
// agree and be (N, C, *) with 2 to 8 dims, mean and rstd hold N * num_groups values, gamma C, and
// num_groups must divide C.
#include <stdexcept>
#include <string>

#include "group_norm_grad_proto.h"  // the graph prototype this infers for
#include "register/op_def_registry.h"
#include "shape_string.h"

namespace ops {
namespace {

using normgrad::ShapeString;

int64_t Numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument("GroupNormGrad: " + what); }

}  // namespace

// Inputs in prototype order: dy, mean, rstd, x, gamma.
Shapes GroupNormGradInferShape(const Shapes& inputs, const Attrs& attrs) {
  if (inputs.size() != 5) Reject(std::to_string(inputs.size()) + " input shapes, expected 5");
  const std::vector<int64_t>& dy = inputs[0];
  const std::vector<int64_t>& x = inputs[3];
  const std::vector<int64_t>& gamma = inputs[4];
  if (dy.size() < 2 || dy.size() > 8) Reject("dy has shape " + ShapeString(dy) + ", expected 2 to 8 dims (N, C, *)");
  if (x != dy) Reject("x has shape " + ShapeString(x) + ", expected dy's " + ShapeString(dy));
  auto it = attrs.find("num_groups");
  if (it == attrs.end() || !std::holds_alternative<int64_t>(it->second)) Reject("num_groups (Int) is missing");
  const int64_t groups = std::get<int64_t>(it->second);
  const int64_t n = dy[0];
  const int64_t c = dy[1];
  if (groups <= 0 || c % groups != 0) {
    Reject("num_groups is " + std::to_string(groups) + ", expected > 0 and dividing C = " + std::to_string(c));
  }
  const char* stats[] = {"mean", "rstd"};
  for (int i = 0; i < 2; ++i) {
    if (Numel(inputs[1 + i]) != n * groups) {
      Reject(std::string(stats[i]) + " has shape " + ShapeString(inputs[1 + i]) + ", expected N * num_groups = " +
             std::to_string(n * groups) + " elements");
    }
  }
  if (gamma.size() != 1 || gamma[0] != c) Reject("gamma has shape " + ShapeString(gamma) + ", expected [C] = [" +
                                                 std::to_string(c) + "]");
  return {dy, gamma, gamma};
}

}  // namespace ops
