// aclnn metadata objects with CANN's signatures: aclTensor (view over device storage),
// aclIntArray, aclBoolArray, their accessors, and the opaque executor handle.
#pragma once
// The standard headers CANN's acl_meta.h includes.
#include <cstdint>
#include <cstdlib>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

typedef struct aclTensor aclTensor;
typedef struct aclIntArray aclIntArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclOpExecutor aclOpExecutor;  // defined in op_host/op_api/aclnn_common.h

// A tensor is a view (viewDims, stride, offset; all in elements) over storage (storageDims
// elements at tensorData). Returns nullptr, with aclGetRecentErrMsg() set, when a dim or stride
// is negative, dataType has no element size, the view reaches outside the storage, or the
// storage is not inside one device allocation. tensorData may be nullptr only for an empty storage.
aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                           uint64_t storageDimsNum, void* tensorData);
// The handles are checked (docs/sim.md, "Misuse of the C API"): destroying one twice, or passing a
// destroyed handle, one of another kind or a pointer that never was a handle to any function here
// or to an aclnn API, is 161002 naming it, never a crash. Destroying NULL is 0, as in CANN.
aclnnStatus aclDestroyTensor(const aclTensor* tensor);

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
aclnnStatus aclDestroyIntArray(const aclIntArray* array);
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);

// Shape accessors allocate *viewDims / *stride / *storageDims with new[]; the caller delete[]s
// them (CANN's contract). Each returns 0, 161001 for a null argument or 161002 for a tensor or array
// that is not live.
aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum);
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum);
aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset);
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum);
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format);
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);
aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr);
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size);
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size);

#ifdef __cplusplus
}  // extern "C"
#endif
