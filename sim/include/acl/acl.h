// The ACL umbrella header user programs include, as with CANN (acl_rt.h, which includes
// acl_base.h; CANN's model and single-op headers are not simulated).
// Tensors and arrays for aclnn calls are declared in aclnn/acl_meta.h, as in CANN.
#pragma once
#include "acl/acl_rt.h"
