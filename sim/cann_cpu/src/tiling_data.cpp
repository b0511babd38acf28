// InitTilingData<T>: what GET_TILING_DATA_WITH_STRUCT calls to read the tiling struct from GM. CANN's op
// build generates it per operator (a byte copy); here it is one template, instantiated for each of the
// project's tiling structs (the kernels reference exactly these).
#include <cstdint>
#include <cstring>

#include "batch_norm_elemt_grad_tiling.h"
#include "group_norm_grad_tiling.h"
#include "layer_norm_grad_tiling.h"

template <class T>
void InitTilingData(const uint8_t* p_tilingdata, T* tilingdata) {
  std::memcpy(static_cast<void*>(tilingdata), p_tilingdata, sizeof(T));
}

template void InitTilingData<normgrad::BatchNormElemtGradTiling>(const uint8_t*, normgrad::BatchNormElemtGradTiling*);
template void InitTilingData<normgrad::GroupNormGradTiling>(const uint8_t*, normgrad::GroupNormGradTiling*);
template void InitTilingData<normgrad::LayerNormGradTiling>(const uint8_t*, normgrad::LayerNormGradTiling*);
