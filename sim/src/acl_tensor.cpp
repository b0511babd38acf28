// aclTensor, aclIntArray and aclBoolArray: creation with the checks CANN makes (and one more:
// the storage must be device memory), destruction, and the accessors of acl_meta.h. The objects
// live in the handle table (simhost/acl_handles.h): a destroyed, foreign or wrong-kind handle is
// an error status naming it, never a crash.
#include <cstring>
#include <string>

#include "acl_checks.h"
#include "simhost/acl_handles.h"
#include "simhost/c_boundary.h"

namespace {

constexpr aclnnStatus kNullptr = 161001;  // ACLNN_ERR_PARAM_NULLPTR
constexpr aclnnStatus kInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID
constexpr aclnnStatus kInner = 561000;    // ACLNN_ERR_INNER: an exception stopped at the C boundary
constexpr aclnnStatus kOk = 0;

using normgrad_sim::AclFail;
using normgrad_sim::TensorInfo;
using sim::host::CBoundary;

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// Product of dims, or -1 on overflow past int64.
int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

// Largest storage element index the view touches (view must be non-empty), or -1 on overflow.
int64_t LastIndex(const TensorInfo& t) {
  int64_t last = t.offset;
  for (size_t i = 0; i < t.viewDims.size(); ++i) {
    int64_t step;
    if (__builtin_mul_overflow(t.viewDims[i] - 1, t.strides[i], &step)) return -1;
    if (__builtin_add_overflow(last, step, &last)) return -1;
  }
  return last;
}

// Checks t as aclCreateTensor does and records its storage's allocation serial in t.
bool CheckTensor(TensorInfo& t) {
  const char* api = "aclCreateTensor";
  size_t elemBytes = aclDataTypeSize(t.dataType);
  if (elemBytes == 0) {
    AclFail(ACL_ERROR_INVALID_PARAM, api, "dataType %d has no element size", static_cast<int>(t.dataType));
    return false;
  }
  for (size_t i = 0; i < t.viewDims.size(); ++i) {
    if (t.viewDims[i] < 0 || t.strides[i] < 0) {
      AclFail(ACL_ERROR_INVALID_PARAM, api, "view %s with strides %s has a negative entry at dim %zu",
              Dims(t.viewDims).c_str(), Dims(t.strides).c_str(), i);
      return false;
    }
  }
  for (int64_t d : t.storageDims) {
    if (d < 0) {
      AclFail(ACL_ERROR_INVALID_PARAM, api, "storage shape %s has a negative dim", Dims(t.storageDims).c_str());
      return false;
    }
  }
  if (t.offset < 0) {
    AclFail(ACL_ERROR_INVALID_PARAM, api, "offset %lld is negative", static_cast<long long>(t.offset));
    return false;
  }
  int64_t storageNumel = Numel(t.storageDims);
  int64_t viewNumel = Numel(t.viewDims);
  if (storageNumel < 0 || viewNumel < 0) {
    AclFail(ACL_ERROR_INVALID_PARAM, api, "view %s or storage %s has more than 2^63 elements",
            Dims(t.viewDims).c_str(), Dims(t.storageDims).c_str());
    return false;
  }
  if (viewNumel > 0) {
    int64_t last = LastIndex(t);
    if (last < 0 || last >= storageNumel) {
      AclFail(ACL_ERROR_INVALID_PARAM, api,
              "view %s with strides %s and offset %lld reaches element %lld, outside the storage %s of %lld elements",
              Dims(t.viewDims).c_str(), Dims(t.strides).c_str(), static_cast<long long>(t.offset),
              static_cast<long long>(last), Dims(t.storageDims).c_str(), static_cast<long long>(storageNumel));
      return false;
    }
  }
  uint64_t storageBytes = static_cast<uint64_t>(storageNumel) * elemBytes;
  if (storageBytes > 0 && t.data == nullptr) {
    AclFail(ACL_ERROR_INVALID_PARAM, api, "tensorData is null for a storage of %llu bytes",
            static_cast<unsigned long long>(storageBytes));
    return false;
  }
  t.storageSerial = storageBytes > 0 ? normgrad_sim::AllocationSerial(t.data, storageBytes) : 0;
  if (storageBytes > 0 && t.storageSerial == 0) {
    AclFail(ACL_ERROR_INVALID_PARAM, api,
            "storage %s of %llu bytes at %p is not inside one device allocation (use aclrtMalloc)",
            Dims(t.storageDims).c_str(), static_cast<unsigned long long>(storageBytes), t.data);
    return false;
  }
  return true;
}

aclnnStatus NullArg(const char* api, const char* what) {
  return AclFail(kNullptr, api, "%s is null", what);
}

aclnnStatus CopyDims(const char* api, const std::vector<int64_t>& src, int64_t** dst, uint64_t* n) {
  if (dst == nullptr || n == nullptr) return NullArg(api, dst == nullptr ? "the dims output" : "the count output");
  *dst = new int64_t[src.empty() ? 1 : src.size()];
  if (!src.empty()) std::memcpy(*dst, src.data(), src.size() * sizeof(int64_t));
  *n = src.size();
  return kOk;
}

// kOk with the tensor's record in *info, or the error naming `tensor` (161001 null, 161002 not live).
aclnnStatus Tensor(const char* api, const aclTensor* tensor, TensorInfo* info) {
  if (tensor == nullptr) return NullArg(api, "tensor");
  std::string why = normgrad_sim::FindTensor(tensor, info);
  return why.empty() ? kOk : AclFail(kInvalid, api, "tensor %s", why.c_str());
}

// The accessor `api` of one tensor: reads the record, then out(record) writes the results.
template <typename Out>
aclnnStatus Accessor(const char* api, const aclTensor* tensor, Out out) {
  return CBoundary(api, kInner, [&]() -> aclnnStatus {
    TensorInfo info;
    if (aclnnStatus st = Tensor(api, tensor, &info)) return st;
    return out(info);
  });
}

// The destroy function `api` of one kind: "" from remove is success, else the handle's problem.
template <typename Remove>
aclnnStatus Destroy(const char* api, const char* what, Remove remove) {
  return CBoundary(api, kInner, [&]() -> aclnnStatus {
    std::string why = remove();
    return why.empty() ? kOk : AclFail(kInvalid, api, "%s %s", what, why.c_str());
  });
}

template <typename Values>
aclnnStatus ArraySize(const char* api, const Values& values, const std::string& why, uint64_t* size) {
  if (!why.empty()) return AclFail(kInvalid, api, "array %s", why.c_str());
  *size = values.size();
  return kOk;
}

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                           uint64_t storageDimsNum, void* tensorData) {
  const char* api = "aclCreateTensor";
  // Any int from C: read as the enums only where the old code read the parameters (UBSan).
  const int dataTypeCode = dataType, formatCode = format;
  return CBoundary(api, static_cast<aclTensor*>(nullptr), [&]() -> aclTensor* {
    if (viewDimsNum > 0 && (viewDims == nullptr || stride == nullptr)) {
      NullArg(api, viewDims == nullptr ? "viewDims" : "stride");
      return nullptr;
    }
    if (storageDimsNum > 0 && storageDims == nullptr) {
      NullArg(api, "storageDims");
      return nullptr;
    }
    if (viewDimsNum > 64 || storageDimsNum > 64) {
      AclFail(ACL_ERROR_INVALID_PARAM, api, "viewDimsNum %llu or storageDimsNum %llu is over 64",
              static_cast<unsigned long long>(viewDimsNum), static_cast<unsigned long long>(storageDimsNum));
      return nullptr;
    }
    TensorInfo t;
    t.viewDims.assign(viewDims, viewDims + viewDimsNum);
    t.strides.assign(stride, stride + viewDimsNum);
    t.offset = offset;
    t.dataType = static_cast<aclDataType>(dataTypeCode);
    t.format = static_cast<aclFormat>(formatCode);
    t.storageDims.assign(storageDims, storageDims + storageDimsNum);
    t.data = tensorData;
    if (!CheckTensor(t)) return nullptr;
    return normgrad_sim::AddTensor(api, std::move(t));
  });
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  return Destroy("aclDestroyTensor", "tensor", [&] { return normgrad_sim::RemoveTensor(tensor); });
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  const char* api = "aclCreateIntArray";
  return CBoundary(api, static_cast<aclIntArray*>(nullptr), [&]() -> aclIntArray* {
    if (size > 0 && value == nullptr) {
      NullArg(api, "value");
      return nullptr;
    }
    return normgrad_sim::AddIntArray(api, std::vector<int64_t>(value, value + size));
  });
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return Destroy("aclDestroyIntArray", "array", [&] { return normgrad_sim::RemoveIntArray(array); });
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  const char* api = "aclCreateBoolArray";
  return CBoundary(api, static_cast<aclBoolArray*>(nullptr), [&]() -> aclBoolArray* {
    if (size > 0 && value == nullptr) {
      NullArg(api, "value");
      return nullptr;
    }
    return normgrad_sim::AddBoolArray(api, std::vector<bool>(value, value + size));
  });
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return Destroy("aclDestroyBoolArray", "array", [&] { return normgrad_sim::RemoveBoolArray(array); });
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  const char* api = "aclGetViewShape";
  return Accessor(api, tensor, [&](const TensorInfo& t) { return CopyDims(api, t.viewDims, viewDims, viewDimsNum); });
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  const char* api = "aclGetViewStrides";
  return Accessor(api, tensor, [&](const TensorInfo& t) { return CopyDims(api, t.strides, stridesValue, stridesNum); });
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  const char* api = "aclGetStorageShape";
  return Accessor(api, tensor,
                  [&](const TensorInfo& t) { return CopyDims(api, t.storageDims, storageDims, storageDimsNum); });
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  const char* api = "aclGetViewOffset";
  return Accessor(api, tensor, [&](const TensorInfo& t) {
    if (offset == nullptr) return NullArg(api, "offset");
    *offset = t.offset;
    return kOk;
  });
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  const char* api = "aclGetFormat";
  return Accessor(api, tensor, [&](const TensorInfo& t) {
    if (format == nullptr) return NullArg(api, "format");
    *format = t.format;
    return kOk;
  });
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  const char* api = "aclGetDataType";
  return Accessor(api, tensor, [&](const TensorInfo& t) {
    if (dataType == nullptr) return NullArg(api, "dataType");
    *dataType = t.dataType;
    return kOk;
  });
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  const char* api = "aclGetRawTensorAddr";
  return Accessor(api, tensor, [&](const TensorInfo& t) {
    if (addr == nullptr) return NullArg(api, "addr");
    *addr = t.data;
    return kOk;
  });
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  const char* api = "aclGetIntArraySize";
  return CBoundary(api, kInner, [&]() -> aclnnStatus {
    if (array == nullptr || size == nullptr) return NullArg(api, array == nullptr ? "array" : "size");
    std::vector<int64_t> values;
    std::string why = normgrad_sim::FindIntArray(array, &values);
    return ArraySize(api, values, why, size);
  });
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  const char* api = "aclGetBoolArraySize";
  return CBoundary(api, kInner, [&]() -> aclnnStatus {
    if (array == nullptr || size == nullptr) return NullArg(api, array == nullptr ? "array" : "size");
    std::vector<bool> values;
    std::string why = normgrad_sim::FindBoolArray(array, &values);
    return ArraySize(api, values, why, size);
  });
}

}  // extern "C"
