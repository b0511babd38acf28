// Helpers shared by the ACL runtime sources: error recording and device-address checks.
// They allocate nothing.
#pragma once
#include <cstdint>

#include "acl/acl_base.h"

namespace normgrad_sim {

// Records "<api>: <message>" for aclGetRecentErrMsg() and returns code.
aclError AclFail(aclError code, const char* api, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// The serial number (sim::gm) of the registered device allocation (aclrtMalloc, GmAlloc) that
// holds all of [p, p + bytes) (bytes 0 counts as 1), or 0 if none does.
uint64_t AllocationSerial(const void* p, uint64_t bytes);
// True if [p, p + bytes) lies inside one registered device allocation: AllocationSerial != 0.
bool InDeviceMemory(const void* p, uint64_t bytes);

}  // namespace normgrad_sim
