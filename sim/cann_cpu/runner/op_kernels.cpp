// The project's runner table: the op_kernel/*.cpp entries, by their extern "C" names.
#include "kernel_operator.h"
#include "kernel_table.h"

// Weak: a kernel that skips this SoC (its cann-check skip-arch marker) is not linked, and the runner says so
// instead of failing to link.
extern "C" {
__attribute__((weak)) void batch_norm_elemt_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                                 GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
__attribute__((weak)) void group_norm_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                           GM_ADDR, GM_ADDR);
__attribute__((weak)) void layer_norm_grad_v3(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                                              GM_ADDR, GM_ADDR);
}

namespace normgrad::cann {

const std::vector<RunnerKernel>& RunnerKernels() {
  static const std::vector<RunnerKernel> table = {
      {"batch_norm_elemt_grad",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(batch_norm_elemt_grad, n, p, e);
       }},
      {"group_norm_grad",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(group_norm_grad, n, p, e);
       }},
      {"layer_norm_grad_v3",
       [](uint32_t n, const std::vector<uint8_t*>& p, std::string* e) {
         return DispatchKernel(layer_norm_grad_v3, n, p, e);
       }},
  };
  return table;
}

}  // namespace normgrad::cann
