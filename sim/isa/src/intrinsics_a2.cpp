// The intrinsics for dav-c220 (Atlas A2/A3, __NPU_ARCH__ 2201): the templates of
// intrinsics.h, instantiated for the argument lists our kernels link.
#include "normgrad_isa/intrinsics.h"

#include "instantiations_a2.inc"
