// The ACL runtime on the CPU: init/finalize, device 0, stream handles, device memory as
// registered host memory, copies and memset with CANN's argument checks, the recent error text.
// Every extern "C" function runs through CBoundary (simhost/c_boundary.h): no exception leaves it.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "acl/acl.h"
#include "acl_checks.h"
#include "ascendc/core.h"
#include "normgrad_sim.h"
#include "simhost/c_boundary.h"

namespace {

constexpr size_t kDeviceAlign = 512;  // CANN aligns device allocations to at least 512 bytes

// The text aclGetRecentErrMsg() returns: a fixed buffer, so that recording a failure (an
// out-of-memory one included) allocates nothing and cannot throw.
constexpr size_t kRecentErrBytes = 2048;
thread_local char t_recentErr[kRecentErrBytes] = "";

std::mutex g_mutex;
bool g_initialized = false;
std::map<void*, size_t> g_deviceAllocs;  // aclrtMalloc base -> requested bytes
std::map<void*, uint64_t> g_hostRegistered;  // aclrtHostRegister base -> bytes
std::set<void*> g_hostAllocs;
std::set<aclrtStream> g_streams;

size_t RoundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Freed device blocks kept for reuse by an aclrtMalloc of the same rounded size: a fresh
// block costs a page fault and a zeroed page per 4 KiB (or 2 MiB) on first touch, which for
// the large cases cost more host time than the kernel. A kept block is unregistered like a
// freed one (a kernel access to it still fails) and is poisoned again when reused.
// Under AddressSanitizer nothing is kept, so host-side use after free is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kKeptBytesMax = 0;
#else
constexpr size_t kKeptBytesMax = size_t{1} << 30;
#endif
std::deque<std::pair<size_t, void*>> g_kept;  // (rounded bytes, block), oldest first
size_t g_keptBytes = 0;

void* TakeKept(size_t rounded) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto it = g_kept.begin(); it != g_kept.end(); ++it) {
    if (it->first == rounded) {
      void* p = it->second;
      g_keptBytes -= rounded;
      g_kept.erase(it);
      return p;
    }
  }
  return nullptr;
}

void KeepOrFree(void* p, size_t rounded) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (rounded > kKeptBytesMax) {
    std::free(p);
    return;
  }
  try {
    g_kept.emplace_back(rounded, p);
  } catch (...) {  // no room to keep it: free it
    std::free(p);
    return;
  }
  g_keptBytes += rounded;
  while (g_keptBytes > kKeptBytesMax) {
    g_keptBytes -= g_kept.front().first;
    std::free(g_kept.front().second);
    g_kept.pop_front();
  }
}

const char* KindName(int kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
  }
  return "unknown";
}

// Checks one side of a copy: device memory must be one allocation, host memory none.
// `what` names the side ("dst", "src", "devPtr"), of the copy kind when one is given (kind >= 0).
aclError CheckSide(const char* api, const char* what, int kind, const void* p, size_t bytes,
                   bool device) {
  const char* of = kind >= 0 ? " of " : "";
  const char* kindName = kind >= 0 ? KindName(kind) : "";
  if (device && !normgrad_sim::InDeviceMemory(p, bytes)) {
    return normgrad_sim::AclFail(ACL_ERROR_INVALID_PARAM, api, "%s%s%s %p + %zu bytes is not inside one device allocation",
                                 what, of, kindName, p, bytes);
  }
  if (!device && normgrad_sim::InDeviceMemory(p, 1)) {
    return normgrad_sim::AclFail(ACL_ERROR_INVALID_PARAM, api, "%s%s%s %p is device memory, but the copy kind says host",
                                 what, of, kindName, p);
  }
  return ACL_SUCCESS;
}

}  // namespace

namespace normgrad_sim {

aclError AclFail(aclError code, const char* api, const char* fmt, ...) {
  int n = std::snprintf(t_recentErr, kRecentErrBytes, "%s: ", api);
  if (n >= 0 && static_cast<size_t>(n) < kRecentErrBytes) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_recentErr + n, kRecentErrBytes - n, fmt, ap);
    va_end(ap);
  }
  return code;
}

uint64_t AllocationSerial(const void* p, uint64_t bytes) {
  uintptr_t base = 0;
  uint64_t size = 0, serial = 0;
  if (p == nullptr || !sim::gm::FindAllocation(p, &base, &size, &serial)) return 0;
  const uint64_t at = reinterpret_cast<uintptr_t>(p) - base;
  return at <= size && std::max<uint64_t>(bytes, 1) <= size - at ? serial : 0;
}

bool InDeviceMemory(const void* p, uint64_t bytes) { return AllocationSerial(p, bytes) != 0; }

}  // namespace normgrad_sim

void sim::host::RecordCBoundaryFailure(const char* api, const char* kind, const char* what) noexcept {
  if (what == nullptr) {
    std::snprintf(t_recentErr, kRecentErrBytes, "%s: %s", api, kind);
  } else {
    std::snprintf(t_recentErr, kRecentErrBytes, "%s: %s: %s", api, kind, what);
  }
}

using normgrad_sim::AclFail;
using sim::host::CBoundary;

namespace {

// aclrtMalloc without the 0xFF fill when `initial` (size bytes) is given: the block starts as a
// copy of it instead (normgradSimMallocFrom), saving a pass over memory that is overwritten anyway.
aclError Malloc(void** devPtr, size_t size, int policy, const void* initial) {
  if (devPtr == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "devPtr is null");
  if (size == 0) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "size is 0; it must be > 0");
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P) {
    return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "policy %d is not an aclrtMemMallocPolicy", policy);
  }
  void* p = TakeKept(RoundUp(size, kDeviceAlign));
  if (p == nullptr) p = std::aligned_alloc(kDeviceAlign, RoundUp(size, kDeviceAlign));
  if (p == nullptr) {
    return AclFail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc", "out of memory allocating %zu bytes", size);
  }
  if (initial != nullptr) {
    std::memcpy(p, initial, size);
  } else {
    // Device memory starts undefined; 0xff bytes read as NaN in every float type, so a kernel
    // that reads memory nobody wrote shows it.
    std::memset(p, 0xff, size);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    g_deviceAllocs[p] = size;
    sim::gm::Register(p, size);
  } catch (...) {  // out of host memory for the bookkeeping: the block is not handed out
    g_deviceAllocs.erase(p);
    std::free(p);
    throw;
  }
  *devPtr = p;
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

const char* aclGetRecentErrMsg(void) { return t_recentErr; }

void normgradSimSetRecentErrMsg(const char* msg) {
  std::snprintf(t_recentErr, kRecentErrBytes, "%s", msg != nullptr ? msg : "");
}

size_t aclDataTypeSize(aclDataType dataType) {
  switch (dataType) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

aclError aclInit(const char* configPath) {
  return CBoundary("aclInit", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_initialized) return AclFail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit", "ACL is already initialized");
    g_initialized = true;
    return ACL_SUCCESS;
  });
}

aclError aclFinalize(void) {
  return CBoundary("aclFinalize", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_initialized) return AclFail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize", "ACL is not initialized");
    g_initialized = false;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (deviceId != 0) {
    return AclFail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice", "deviceId %d does not exist; the simulator has device 0",
                   deviceId);
  }
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId != 0) {
    return AclFail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice",
                   "deviceId %d does not exist; the simulator has device 0", deviceId);
  }
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice", "deviceId is null");
  *deviceId = 0;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  return CBoundary("aclrtCreateStream", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (stream == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream", "stream is null");
    auto handle = std::make_unique<int>(0);  // a unique handle; work runs synchronously
    std::lock_guard<std::mutex> lock(g_mutex);
    g_streams.insert(handle.get());
    *stream = handle.release();
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return CBoundary("aclrtDestroyStream", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_streams.erase(stream) == 0) {
      return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream", "stream %p was not created by aclrtCreateStream",
                     stream);
    }
    delete static_cast<int*>(stream);
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return CBoundary("aclrtSynchronizeStream", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (stream != nullptr && g_streams.count(stream) == 0) {
      return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream",
                     "stream %p was not created by aclrtCreateStream", stream);
    }
    return ACL_SUCCESS;  // every launch completed before its call returned
  });
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const int policyCode = policy;  // any int from C: never read back as the enum (UBSan)
  return CBoundary("aclrtMalloc", ACL_ERROR_RT_MEMORY_ALLOCATION,
                   [&] { return Malloc(devPtr, size, policyCode, nullptr); });
}

int normgradSimMallocFrom(void** devPtr, const void* host, size_t size) {
  const char* api = "normgradSimMallocFrom";
  return CBoundary(api, ACL_ERROR_RT_MEMORY_ALLOCATION, [&]() -> aclError {
    if (host == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, api, "host is null");
    if (normgrad_sim::InDeviceMemory(host, 1)) return AclFail(ACL_ERROR_INVALID_PARAM, api, "host %p is device memory", host);
    return Malloc(devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST, host);
  });
}

aclError aclrtFree(void* devPtr) {
  return CBoundary("aclrtFree", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    size_t size = 0;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      auto it = g_deviceAllocs.find(devPtr);
      if (it == g_deviceAllocs.end()) {
        return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtFree", "%p was not returned by aclrtMalloc (or is freed)", devPtr);
      }
      size = it->second;
      g_deviceAllocs.erase(it);
    }
    sim::gm::Unregister(devPtr);
    KeepOrFree(devPtr, RoundUp(size, kDeviceAlign));
    return ACL_SUCCESS;
  });
}

aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr) {
  return CBoundary("aclrtHostRegister", ACL_ERROR_BAD_ALLOC, [&]() -> aclError {
    const char* api = "aclrtHostRegister";
    if (ptr == nullptr || devPtr == nullptr) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api, "%s is null", ptr == nullptr ? "ptr" : "devPtr");
    }
    if (size == 0) return AclFail(ACL_ERROR_INVALID_PARAM, api, "size is 0; it must be > 0");
    if (type != ACL_HOST_REGISTER_MAPPED && type != ACL_HOST_REGISTER_READONLY) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api, "type %d is not ACL_HOST_REGISTER_MAPPED or _READONLY",
                     static_cast<int>(type));
    }
    uintptr_t base = 0;
    uint64_t bytes = 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
    // Any registered region meeting [ptr, ptr + size): the one holding its last byte or starting inside it.
    bool meets = sim::gm::FindAllocation(reinterpret_cast<const uint8_t*>(ptr) + size - 1, &base, &bytes) &&
                 base + bytes > a;
    std::lock_guard<std::mutex> lock(g_mutex);
    auto overlaps = [&](const void* p, uint64_t n) {
      return reinterpret_cast<uintptr_t>(p) < a + size && a < reinterpret_cast<uintptr_t>(p) + n;
    };
    for (const auto& [p, n] : g_deviceAllocs) meets = meets || overlaps(p, n);
    for (const auto& [p, n] : g_hostRegistered) meets = meets || overlaps(p, n);
    if (meets) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api,
                     "%p + %llu bytes meets device memory or another registration", ptr,
                     static_cast<unsigned long long>(size));
    }
    sim::gm::Register(ptr, size, type == ACL_HOST_REGISTER_READONLY);
    try {
      g_hostRegistered[ptr] = size;
    } catch (...) {  // out of memory: neither registry keeps it
      sim::gm::Unregister(ptr);
      throw;
    }
    *devPtr = ptr;
    return ACL_SUCCESS;
  });
}

aclError aclrtHostUnregister(void* ptr) {
  return CBoundary("aclrtHostUnregister", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_hostRegistered.erase(ptr) == 0) {
      return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister",
                     "%p was not registered by aclrtHostRegister (or is unregistered)", ptr);
    }
    sim::gm::Unregister(ptr);
    return ACL_SUCCESS;
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return CBoundary("aclrtMallocHost", ACL_ERROR_BAD_ALLOC, [&]() -> aclError {
    if (hostPtr == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", "hostPtr is null");
    if (size == 0) return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", "size is 0; it must be > 0");
    void* p = std::aligned_alloc(64, RoundUp(size, 64));
    if (p == nullptr) {
      return AclFail(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost", "out of memory allocating %zu bytes", size);
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    try {
      g_hostAllocs.insert(p);
    } catch (...) {
      std::free(p);
      throw;
    }
    *hostPtr = p;
    return ACL_SUCCESS;
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return CBoundary("aclrtFreeHost", ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_hostAllocs.erase(hostPtr) == 0) {
      return AclFail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", "%p was not returned by aclrtMallocHost", hostPtr);
    }
    std::free(hostPtr);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  const char* api = "aclrtMemcpy";
  const int kindCode = kind;  // any int from C: never read back as the enum (UBSan)
  return CBoundary(api, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (count == 0) return ACL_SUCCESS;
    if (dst == nullptr || src == nullptr) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api, "%s is null", dst == nullptr ? "dst" : "src");
    }
    if (count > destMax) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api, "count %zu bytes exceeds destMax %zu", count, destMax);
    }
    bool dstDevice, srcDevice;
    switch (kindCode) {
      case ACL_MEMCPY_HOST_TO_HOST: dstDevice = false; srcDevice = false; break;
      case ACL_MEMCPY_HOST_TO_DEVICE: dstDevice = true; srcDevice = false; break;
      case ACL_MEMCPY_DEVICE_TO_HOST: dstDevice = false; srcDevice = true; break;
      case ACL_MEMCPY_DEVICE_TO_DEVICE: dstDevice = true; srcDevice = true; break;
      case ACL_MEMCPY_DEFAULT:
        dstDevice = normgrad_sim::InDeviceMemory(dst, 1);
        srcDevice = normgrad_sim::InDeviceMemory(src, 1);
        break;
      default:
        return AclFail(ACL_ERROR_INVALID_PARAM, api, "kind %d is not an aclrtMemcpyKind", kindCode);
    }
    aclError e = CheckSide(api, "dst", kindCode, dst, count, dstDevice);
    if (e == ACL_SUCCESS) e = CheckSide(api, "src", kindCode, src, count, srcDevice);
    if (e != ACL_SUCCESS) return e;
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  const char* api = "aclrtMemset";
  return CBoundary(api, ACL_ERROR_INTERNAL_ERROR, [&]() -> aclError {
    if (count == 0) return ACL_SUCCESS;
    if (devPtr == nullptr) return AclFail(ACL_ERROR_INVALID_PARAM, api, "devPtr is null");
    if (count > maxCount) {
      return AclFail(ACL_ERROR_INVALID_PARAM, api, "count %zu bytes exceeds maxCount %zu", count, maxCount);
    }
    aclError e = CheckSide(api, "devPtr", -1, devPtr, count, true);
    if (e != ACL_SUCCESS) return e;
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
