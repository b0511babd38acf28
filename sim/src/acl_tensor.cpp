// aclTensor, aclIntArray and aclBoolArray: creation with the checks CANN makes (and one more:
// the storage must be device memory), destruction, and the accessors of acl_meta.h.
#include <cstring>
#include <string>

#include "acl_checks.h"
#include "aclnn/acl_objects.h"

namespace {

constexpr aclnnStatus kNullptr = 161001;  // ACLNN_ERR_PARAM_NULLPTR
constexpr aclnnStatus kOk = 0;

using normgrad_sim::AclFail;

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
int64_t LastIndex(const aclTensor& t) {
  int64_t last = t.offset;
  for (size_t i = 0; i < t.viewDims.size(); ++i) {
    int64_t step;
    if (__builtin_mul_overflow(t.viewDims[i] - 1, t.strides[i], &step)) return -1;
    if (__builtin_add_overflow(last, step, &last)) return -1;
  }
  return last;
}

bool CheckTensor(const aclTensor& t) {
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
  if (storageBytes > 0 && !normgrad_sim::InDeviceMemory(t.data, storageBytes)) {
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

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                           uint64_t storageDimsNum, void* tensorData) {
  const char* api = "aclCreateTensor";
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
  aclTensor t;
  t.viewDims.assign(viewDims, viewDims + viewDimsNum);
  t.strides.assign(stride, stride + viewDimsNum);
  t.offset = offset;
  t.dataType = dataType;
  t.format = format;
  t.storageDims.assign(storageDims, storageDims + storageDimsNum);
  t.data = tensorData;
  if (!CheckTensor(t)) return nullptr;
  return new aclTensor(std::move(t));
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;  // null is allowed, as in CANN
  return kOk;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    NullArg("aclCreateIntArray", "value");
    return nullptr;
  }
  auto* a = new aclIntArray;
  a->values.assign(value, value + size);
  return a;
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return kOk;
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    NullArg("aclCreateBoolArray", "value");
    return nullptr;
  }
  auto* a = new aclBoolArray;
  a->values.assign(value, value + size);
  return a;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return kOk;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (tensor == nullptr) return NullArg("aclGetViewShape", "tensor");
  return CopyDims("aclGetViewShape", tensor->viewDims, viewDims, viewDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  if (tensor == nullptr) return NullArg("aclGetViewStrides", "tensor");
  return CopyDims("aclGetViewStrides", tensor->strides, stridesValue, stridesNum);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  if (tensor == nullptr) return NullArg("aclGetStorageShape", "tensor");
  return CopyDims("aclGetStorageShape", tensor->storageDims, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr || offset == nullptr) return NullArg("aclGetViewOffset", tensor == nullptr ? "tensor" : "offset");
  *offset = tensor->offset;
  return kOk;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr || format == nullptr) return NullArg("aclGetFormat", tensor == nullptr ? "tensor" : "format");
  *format = tensor->format;
  return kOk;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr || dataType == nullptr) {
    return NullArg("aclGetDataType", tensor == nullptr ? "tensor" : "dataType");
  }
  *dataType = tensor->dataType;
  return kOk;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  if (tensor == nullptr || addr == nullptr) return NullArg("aclGetRawTensorAddr", tensor == nullptr ? "tensor" : "addr");
  *addr = tensor->data;
  return kOk;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) return NullArg("aclGetIntArraySize", array == nullptr ? "array" : "size");
  *size = array->values.size();
  return kOk;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) return NullArg("aclGetBoolArraySize", array == nullptr ? "array" : "size");
  *size = array->values.size();
  return kOk;
}

}  // extern "C"
