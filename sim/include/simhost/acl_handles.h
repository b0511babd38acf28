// The simulator's aclTensor, aclIntArray and aclBoolArray (opaque in aclnn/acl_meta.h) behind
// checked handles, so that misuse of the C API is an error status instead of a crash, as
// msSanitizer's memcheck reports it on a device:
//  - A handle is no pointer to the object but an address in a reserved, inaccessible range of the
//    process (PROT_NONE), one per object ever created, never reused: a destroyed handle is known
//    as destroyed for the rest of the process (never mistaken for a later object), a handle of
//    another kind is known as such, and anything else is refused. Only live objects take memory.
//  - A tensor records the serial number of the device allocation holding its storage
//    (sim::gm::Register), so a block freed by aclrtFree, or freed and handed out again at the same
//    address, is told apart from the block the tensor was made on.
// Only simulator glue (sim/src, op_host/op_api/aclnn_common.cpp) includes this header.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace normgrad_sim {

// What aclCreateTensor recorded.
struct TensorInfo {
  std::vector<int64_t> viewDims;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements
  aclDataType dataType = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storageDims;
  void* data = nullptr;        // storage element 0
  uint64_t storageSerial = 0;  // the allocation holding the storage (sim::gm serial); 0: empty storage
};

// New handles; nullptr (with the reason recorded for aclGetRecentErrMsg(), naming api) when the
// handle range of the kind is used up.
aclTensor* AddTensor(const char* api, TensorInfo info);
aclIntArray* AddIntArray(const char* api, std::vector<int64_t> values);
aclBoolArray* AddBoolArray(const char* api, std::vector<bool> values);

// "" and the object's contents in *out when the handle is a live object of its kind; else why not,
// as a phrase to follow the argument's name: "(aclTensor 0x...) was destroyed (aclDestroyTensor)
// before this call", "(0x...) is an aclBoolArray, not an aclTensor", "is null", ...
std::string FindTensor(const aclTensor* handle, TensorInfo* out);
std::string FindIntArray(const aclIntArray* handle, std::vector<int64_t>* out);
std::string FindBoolArray(const aclBoolArray* handle, std::vector<bool>* out);

// Destroys a live handle: "" on success, else why not (as Find*). nullptr is allowed ("", as in CANN).
std::string RemoveTensor(const aclTensor* handle);
std::string RemoveIntArray(const aclIntArray* handle);
std::string RemoveBoolArray(const aclBoolArray* handle);

// "" while the storage at data is still the allocation with this serial (or serial is 0: empty
// storage); else a phrase to follow "<name>'s": "storage 0x... was freed (aclrtFree) after
// aclCreateTensor", "... and its address handed out again by a later allocation".
std::string StorageProblem(const void* data, uint64_t serial);

}  // namespace normgrad_sim
