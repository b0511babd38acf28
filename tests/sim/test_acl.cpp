// The ACL runtime subset: device memory, copies in all four directions, tensors with strides,
// offsets and storage checks, arrays, accessors, and error codes with messages for bad arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace {

std::string Msg() { return aclGetRecentErrMsg(); }

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS); }
  ~DeviceBuffer() { aclrtFree(p); }
};

TEST(Acl, EnumValuesAreCanns) {
  EXPECT_EQ(ACL_SUCCESS, 0);
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, 100000);
  EXPECT_EQ(ACL_DT_UNDEFINED, -1);
  EXPECT_EQ(ACL_FLOAT, 0);
  EXPECT_EQ(ACL_FLOAT16, 1);
  EXPECT_EQ(ACL_INT32, 3);
  EXPECT_EQ(ACL_INT64, 9);
  EXPECT_EQ(ACL_BOOL, 12);
  EXPECT_EQ(ACL_BF16, 27);
  EXPECT_EQ(ACL_FORMAT_NCHW, 0);
  EXPECT_EQ(ACL_FORMAT_ND, 2);
  EXPECT_EQ(ACL_MEMCPY_DEVICE_TO_DEVICE, 3);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
}

TEST(Acl, InitIsOncePerFinalize) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_NE(Msg().find("aclInit"), std::string::npos);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(Acl, DeviceAndStream) {
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(Msg(), "aclrtSetDevice: deviceId 3 does not exist; the simulator has device 0");
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_NE(s, nullptr);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);  // already destroyed
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST(Acl, MallocIsAlignedAndChecked) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);  // double free
  EXPECT_NE(Msg().find("aclrtFree"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Msg(), "aclrtMalloc: size is 0; it must be > 0");
  EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  int host = 0;
  EXPECT_EQ(aclrtFree(&host), ACL_ERROR_INVALID_PARAM);
}

TEST(Acl, MemcpyRoundTripsThroughAllFourDirections) {
  std::vector<int32_t> src = {1, -2, 3, -4, 5, -6, 7, -8};
  const size_t bytes = src.size() * sizeof(int32_t);
  DeviceBuffer a(bytes), b(bytes);
  std::vector<int32_t> staged(src.size()), back(src.size());
  ASSERT_EQ(aclrtMemcpy(staged.data(), bytes, src.data(), bytes, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(a.p, bytes, staged.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(b.p, bytes, a.p, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(back.data(), bytes, b.p, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, src);
}

TEST(Acl, MemcpyRejectsBadArguments) {
  DeviceBuffer d(64);
  std::vector<uint8_t> host(128);
  EXPECT_EQ(aclrtMemcpy(d.p, 32, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Msg(), "aclrtMemcpy: count 64 bytes exceeds destMax 32");
  // 128 bytes do not fit in the 64-byte allocation.
  EXPECT_EQ(aclrtMemcpy(d.p, 128, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(Msg().find("not inside one device allocation"), std::string::npos);
  // Swapped direction: the host buffer is not device memory, the device buffer is not host memory.
  EXPECT_EQ(aclrtMemcpy(host.data(), 64, d.p, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host.data(), 64, d.p, 64, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(Msg().find("is device memory"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(nullptr, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(d.p, 64, host.data(), 64, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(d.p, 64, host.data(), 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);  // nothing to copy
}

TEST(Acl, MemsetFillsBytesWithinBounds) {
  DeviceBuffer d(16);
  ASSERT_EQ(aclrtMemset(d.p, 16, 0x5a, 16), ACL_SUCCESS);
  std::vector<uint8_t> back(16);
  ASSERT_EQ(aclrtMemcpy(back.data(), 16, d.p, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, std::vector<uint8_t>(16, 0x5a));
  EXPECT_EQ(aclrtMemset(d.p, 8, 0, 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(d.p, 32, 0, 32), ACL_ERROR_INVALID_PARAM);  // past the 16-byte allocation
  std::vector<uint8_t> host(16);
  EXPECT_EQ(aclrtMemset(host.data(), 16, 0, 16), ACL_ERROR_INVALID_PARAM);
}

TEST(Acl, TensorKeepsViewAndStorage) {
  DeviceBuffer d(4 * 6 * sizeof(float));
  // A transposed 3x4 view of a 4x6 storage, starting at element 1.
  std::vector<int64_t> view = {3, 4}, strides = {1, 6}, storage = {4, 6};
  aclTensor* t = aclCreateTensor(view.data(), 2, ACL_FLOAT, strides.data(), 1, ACL_FORMAT_ND, storage.data(), 2, d.p);
  ASSERT_NE(t, nullptr) << Msg();
  int64_t* dims = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), view);
  delete[] dims;
  ASSERT_EQ(aclGetViewStrides(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), strides);
  delete[] dims;
  ASSERT_EQ(aclGetStorageShape(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), storage);
  delete[] dims;
  int64_t offset = -1;
  EXPECT_EQ(aclGetViewOffset(t, &offset), 0);
  EXPECT_EQ(offset, 1);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  EXPECT_EQ(aclGetFormat(t, &format), 0);
  EXPECT_EQ(format, ACL_FORMAT_ND);
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(t, &dtype), 0);
  EXPECT_EQ(dtype, ACL_FLOAT);
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), 0);
  EXPECT_EQ(addr, d.p);
  EXPECT_EQ(aclGetViewShape(nullptr, &dims, &n), 161001);
  EXPECT_EQ(aclGetViewOffset(t, nullptr), 161001);
  EXPECT_EQ(aclDestroyTensor(t), 0);
}

TEST(Acl, TensorViewMustFitInStorage) {
  DeviceBuffer d(24 * sizeof(float));
  std::vector<int64_t> view = {3, 4}, strides = {1, 6}, storage = {4, 6};
  // Last element touched: offset 4 + 2*1 + 3*6 = 24 = storage numel, one past the end.
  EXPECT_EQ(aclCreateTensor(view.data(), 2, ACL_FLOAT, strides.data(), 4, ACL_FORMAT_ND, storage.data(), 2, d.p),
            nullptr);
  EXPECT_EQ(Msg(),
            "aclCreateTensor: view [3, 4] with strides [1, 6] and offset 4 reaches element 24, outside the storage "
            "[4, 6] of 24 elements");
  // Offset 3 reaches element 23: fits.
  aclTensor* ok = aclCreateTensor(view.data(), 2, ACL_FLOAT, strides.data(), 3, ACL_FORMAT_ND, storage.data(), 2, d.p);
  EXPECT_NE(ok, nullptr) << Msg();
  aclDestroyTensor(ok);
}

TEST(Acl, TensorRejectsBadArguments) {
  DeviceBuffer d(64);
  std::vector<int64_t> shape = {4}, strides = {1}, negative = {-1};
  EXPECT_EQ(aclCreateTensor(negative.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(), 1, d.p),
            nullptr);
  EXPECT_NE(Msg().find("negative"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_FLOAT, negative.data(), 0, ACL_FORMAT_ND, shape.data(), 1, d.p),
            nullptr);
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), -1, ACL_FORMAT_ND, shape.data(), 1, d.p),
            nullptr);
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_DT_UNDEFINED, strides.data(), 0, ACL_FORMAT_ND, shape.data(), 1, d.p),
            nullptr);
  EXPECT_EQ(Msg(), "aclCreateTensor: dataType -1 has no element size");
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape.data(), 1, d.p), nullptr);
  EXPECT_EQ(Msg(), "aclCreateTensor: stride is null");
  // 4 float64 = 32 bytes fit in 64; 16 float32 = 64 fit; 32 float32 = 128 do not.
  std::vector<int64_t> big = {32};
  EXPECT_EQ(aclCreateTensor(big.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, big.data(), 1, d.p), nullptr);
  EXPECT_NE(Msg().find("not inside one device allocation"), std::string::npos);
  std::vector<float> host(4);
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(), 1, host.data()),
            nullptr);
  EXPECT_EQ(aclCreateTensor(shape.data(), 1, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(), 1, nullptr),
            nullptr);
}

TEST(Acl, EmptyAndZeroDimTensors) {
  std::vector<int64_t> empty = {2, 0, 3}, strides = {0, 3, 1};
  aclTensor* t = aclCreateTensor(empty.data(), 3, ACL_FLOAT16, strides.data(), 0, ACL_FORMAT_ND, empty.data(), 3,
                                 nullptr);
  EXPECT_NE(t, nullptr) << Msg();
  aclDestroyTensor(t);
  DeviceBuffer d(4);
  aclTensor* scalar = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, d.p);
  ASSERT_NE(scalar, nullptr) << Msg();
  int64_t* dims = nullptr;
  uint64_t n = 7;
  EXPECT_EQ(aclGetViewShape(scalar, &dims, &n), 0);
  EXPECT_EQ(n, 0u);
  delete[] dims;
  aclDestroyTensor(scalar);
}

TEST(Acl, Arrays) {
  int64_t ints[] = {3, -1, 7};
  aclIntArray* ia = aclCreateIntArray(ints, 3);
  ASSERT_NE(ia, nullptr);
  uint64_t n = 0;
  EXPECT_EQ(aclGetIntArraySize(ia, &n), 0);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(aclDestroyIntArray(ia), 0);
  bool mask[] = {true, false};
  aclBoolArray* ba = aclCreateBoolArray(mask, 2);
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(aclGetBoolArraySize(ba, &n), 0);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(aclDestroyBoolArray(ba), 0);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  EXPECT_EQ(Msg(), "aclCreateIntArray: value is null");
  EXPECT_EQ(aclGetBoolArraySize(nullptr, &n), 161001);
}

}  // namespace
