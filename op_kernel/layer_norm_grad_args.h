// The global-memory tensors of one LayerNorm backward launch, in the order every mode reads them.
#pragma once
#include "kernel_operator.h"

namespace normgrad {

struct LayerNormGradArgs {
  GM_ADDR dy;
  GM_ADDR x;
  GM_ADDR rstd;
  GM_ADDR mean;
  GM_ADDR gamma;
  GM_ADDR dx;
  GM_ADDR dgamma;
  GM_ADDR dbeta;
  GM_ADDR workspace;
};

}  // namespace normgrad
