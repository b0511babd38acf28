// The ACL umbrella header user programs include, as with CANN (acl_base.h + acl_rt.h).
// Tensors and arrays for aclnn calls are declared in aclnn/acl_meta.h, as in CANN.
#pragma once
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
