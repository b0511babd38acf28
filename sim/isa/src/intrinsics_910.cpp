// The intrinsics for dav-c100 (Atlas training series, __NPU_ARCH__ 1001): the templates of
// intrinsics.h, instantiated for the argument lists our kernels link.
#include "normgrad_isa/intrinsics.h"

#include "instantiations_910.inc"
