// ACL runtime subset: device, stream, device memory and copies, with CANN's signatures.
// Device memory is 512-byte aligned host memory registered with the simulator's GM registry
// (exactly the requested bytes, so a kernel reading past a tensor's end is caught).
// Work runs synchronously: a stream is only a handle, and a launch has finished on return.
#pragma once
// The standard headers CANN's acl_rt.h includes, so clients relying on them compile unchanged.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4,  // direction inferred from the addresses
} aclrtMemcpyKind;

// aclInit(configPath): configPath may be nullptr. A second aclInit without aclFinalize returns
// ACL_ERROR_REPEAT_INITIALIZE. Memory and tensor calls also work without aclInit (the simulator
// always has device 0), so library users and tests need no setup.
aclError aclInit(const char* configPath);
aclError aclFinalize(void);

// The simulator has one device, id 0.
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t* deviceId);

aclError aclrtCreateStream(aclrtStream* stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);

// size must be > 0 (as in CANN). *devPtr is 512-byte aligned.
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
typedef enum {
  ACL_HOST_REGISTER_MAPPED = 0,
  ACL_HOST_REGISTER_IOMEMORY = 0x04,
  ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;
// Maps size bytes of host memory at ptr for the device: *devPtr is ptr itself (the simulator's
// device memory is host memory), readable by kernels without a copy; with
// ACL_HOST_REGISTER_READONLY a kernel write into it is an error. The range must not meet device
// memory or another registration; aclrtHostUnregister(ptr) ends it (aclrtFree refuses it).
aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr);
aclError aclrtHostUnregister(void* ptr);
// Host memory for staging (plain aligned memory, not device memory).
aclError aclrtMallocHost(void** hostPtr, size_t size);
aclError aclrtFreeHost(void* hostPtr);

// count <= destMax; device sides must lie inside one device allocation, host sides outside all.
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind);
// Sets count bytes of device memory to (uint8_t)value; count <= maxCount.
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);

#ifdef __cplusplus
}  // extern "C"
#endif
