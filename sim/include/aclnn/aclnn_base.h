// What every aclnnop/*.h header includes, as in CANN: the ACL base types and aclnn metadata.
#pragma once
#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
