// The operator types whose kernels the simulator runs (sim/src/opdev_kernels.h).
#include "opdev_kernels.h"

#include <cstdint>
#include <map>

extern "C" {
void group_norm_grad(uint8_t* dy, uint8_t* mean, uint8_t* rstd, uint8_t* x, uint8_t* gamma, uint8_t* dx,
                     uint8_t* dgamma, uint8_t* dbeta, uint8_t* workspace, uint8_t* tiling);
void layer_norm_grad_v3(uint8_t* dy, uint8_t* x, uint8_t* rstd, uint8_t* mean, uint8_t* gamma, uint8_t* dx,
                        uint8_t* dgamma, uint8_t* dbeta, uint8_t* workspace, uint8_t* tiling);
void batch_norm_elemt_grad(uint8_t* dy, uint8_t* x, uint8_t* mean, uint8_t* invstd, uint8_t* weight,
                           uint8_t* sumDy, uint8_t* sumDyXmu, uint8_t* counter, uint8_t* dx, uint8_t* workspace,
                           uint8_t* tiling);
}

namespace normgrad_sim {

const AiCoreKernel* FindAiCoreKernel(const std::string& opType) {
  static const std::map<std::string, AiCoreKernel> kernels = {
      {"GroupNormGrad",
       {"group_norm_grad",
        [](uint8_t* const* p, uint8_t* ws, uint8_t* t) {
          group_norm_grad(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], ws, t);
        }}},
      {"LayerNormGradV3",
       {"layer_norm_grad_v3",
        [](uint8_t* const* p, uint8_t* ws, uint8_t* t) {
          layer_norm_grad_v3(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], ws, t);
        }}},
      {"BatchNormElemtGrad",
       {"batch_norm_elemt_grad",
        [](uint8_t* const* p, uint8_t* ws, uint8_t* t) {
          batch_norm_elemt_grad(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], ws, t);
        }}},
  };
  auto it = kernels.find(opType);
  return it == kernels.end() ? nullptr : &it->second;
}

}  // namespace normgrad_sim
