// What every aclnnop/*.h header includes, as in CANN: the ACL base types and aclnn metadata.
#pragma once
// The standard headers CANN's aclnn_base.h includes; acl_base.h comes through acl_meta.h.
#include <cstdint>
#include <cstdlib>

#include "aclnn/acl_meta.h"
