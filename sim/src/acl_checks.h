// Helpers shared by the ACL runtime sources: error recording and device-address checks.
#pragma once
#include <cstdint>

#include "acl/acl_base.h"

namespace normgrad_sim {

// Records "<api>: <message>" for aclGetRecentErrMsg() and returns code.
aclError AclFail(aclError code, const char* api, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// True if [p, p + bytes) lies inside one registered device allocation (aclrtMalloc, GmAlloc).
bool InDeviceMemory(const void* p, uint64_t bytes);

}  // namespace normgrad_sim
