// The ACL runtime subset (device memory, copies in all four directions, tensors with strides,
// offsets and storage checks, arrays, accessors, error codes with messages for bad arguments) and
// the aclnn executor built on it (gather/scatter of strided views, workspace, kernel launches).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_common.h"
#include "ascendc/launch.h"
#include "kernel_operator.h"
#include "normgrad_sim.h"

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

// ---- the aclnn executor (op_host/op_api/aclnn_common.h) ----

namespace {

struct DeviceTensor {
  DeviceBuffer buf;
  aclTensor* t = nullptr;
  DeviceTensor(std::vector<float> storage, std::vector<int64_t> storageDims, std::vector<int64_t> view,
               std::vector<int64_t> strides, int64_t offset)
      : buf(storage.size() * sizeof(float)) {
    aclrtMemcpy(buf.p, storage.size() * 4, storage.data(), storage.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    t = aclCreateTensor(view.data(), view.size(), ACL_FLOAT, strides.data(), offset, ACL_FORMAT_ND, storageDims.data(),
                        storageDims.size(), buf.p);
    EXPECT_NE(t, nullptr) << Msg();
  }
  ~DeviceTensor() { aclDestroyTensor(t); }
  std::vector<float> Storage(size_t n) const {
    std::vector<float> v(n);
    aclrtMemcpy(v.data(), n * 4, buf.p, n * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    return v;
  }
};

// The description the aclnn layer makes of t (which must be a live tensor on live storage).
normgrad::TensorDesc Desc(const aclTensor* t, const char* name = "t") {
  normgrad::TensorDesc d;
  EXPECT_EQ(normgrad::Describe("aclnnTest", name, t, &d), ACL_SUCCESS) << Msg();
  return d;
}

struct ScaleTiling {
  float bias;
  uint32_t count;
};

// out[i] = in[i] * 2 + bias for i = core, core + blockDim, ...; every GM access is range-checked,
// the bias is read from the device copy of the tiling; core 0 reports the first word of scratch
// and of its kernel workspace (both must have been zeroed).
normgrad::KernelThunk ScaleThunk(uint32_t* scratchWord, uint32_t* kernelWsWord) {
  return [scratchWord, kernelWsWord](uint8_t* const* args, uint8_t* workspace, uint8_t* tiling) {
    AscendC::GlobalTensor<float> in, out, t;
    AscendC::GlobalTensor<uint32_t> scratch, kws;
    in.SetGlobalBuffer(reinterpret_cast<float*>(args[0]));
    out.SetGlobalBuffer(reinterpret_cast<float*>(args[1]));
    scratch.SetGlobalBuffer(reinterpret_cast<uint32_t*>(args[2]));
    t.SetGlobalBuffer(reinterpret_cast<float*>(tiling));
    kws.SetGlobalBuffer(reinterpret_cast<uint32_t*>(workspace));
    float bias = t.GetValue(0);
    uint32_t count = static_cast<uint32_t>(reinterpret_cast<const ScaleTiling*>(tiling)->count);
    for (uint32_t i = AscendC::GetBlockIdx(); i < count; i += AscendC::GetBlockNum()) {
      out.SetValue(i, in.GetValue(i) * 2 + bias);
    }
    if (AscendC::GetBlockIdx() == 0) {
      *scratchWord = scratch.GetValue(0);
      *kernelWsWord = kws.GetValue(0);
    }
  };
}

TEST(AclnnExecutor, DescribeFlagsContiguity) {
  DeviceTensor a({0, 1, 2, 3, 4, 5}, {2, 3}, {2, 3}, {3, 1}, 0);
  normgrad::TensorDesc d = Desc(a.t);
  EXPECT_TRUE(d.contiguous);
  EXPECT_EQ(d.numel, 6);
  EXPECT_EQ(d.data, a.buf.p);
  DeviceTensor b({0, 1, 2, 3, 4, 5}, {2, 3}, {3, 2}, {1, 3}, 0);  // transposed
  EXPECT_FALSE(Desc(b.t).contiguous);
  DeviceTensor c({0, 1, 2, 3, 4, 5}, {6}, {1, 3}, {99, 1}, 0);  // size-1 dim: its stride is irrelevant
  EXPECT_TRUE(Desc(c.t).contiguous);
  DeviceTensor e({0, 1, 2, 3, 4, 5}, {6}, {3}, {1}, 2);  // offset
  EXPECT_FALSE(Desc(e.t).contiguous);
  EXPECT_EQ(normgrad::ShapeString({2, 320, 64, 64}), "[2, 320, 64, 64]");
  EXPECT_EQ(normgrad::ShapeString({}), "[]");
  EXPECT_STREQ(normgrad::DtypeName(ACL_BF16), "bfloat16");
  EXPECT_EQ(normgrad::DtypeBytes(ACL_FLOAT16), 2u);
  EXPECT_EQ(normgrad::DtypeBytes(ACL_STRING), 0u);
}

TEST(AclnnExecutor, ArrayValues) {
  int64_t ints[] = {4, -2};
  bool mask[] = {false, true, true};
  aclIntArray* ia = aclCreateIntArray(ints, 2);
  aclBoolArray* ba = aclCreateBoolArray(mask, 3);
  std::vector<int64_t> intValues;
  std::vector<bool> boolValues;
  ASSERT_EQ(normgrad::IntArrayValues("aclnnTest", "ints", ia, &intValues), ACL_SUCCESS);
  ASSERT_EQ(normgrad::BoolArrayValues("aclnnTest", "mask", ba, &boolValues), ACL_SUCCESS);
  EXPECT_EQ(intValues, (std::vector<int64_t>{4, -2}));
  EXPECT_EQ(boolValues, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(normgrad::IntArrayValues("aclnnTest", "ints", nullptr, &intValues), normgrad::kStatusNullptr);
  EXPECT_EQ(Msg(), "aclnnTest: ints is null");
  aclDestroyIntArray(ia);
  aclDestroyBoolArray(ba);
}

// Builds: gather a transposed, offset input; zeroed scratch; one kernel; scatter a transposed output.
aclOpExecutor* ScaleExecutor(const DeviceTensor& in, const DeviceTensor& out, uint32_t* scratchWord,
                             uint32_t* kernelWsWord) {
  auto* exec = new aclOpExecutor;
  exec->api = "aclnnTestScale";
  normgrad::TensorDesc inDesc = Desc(in.t, "in");
  normgrad::TensorDesc outDesc = Desc(out.t, "out");
  normgrad::DevPtr inPtr = exec->ContiguousInput(inDesc);
  normgrad::DevPtr outPtr = exec->ContiguousOutput(outDesc);
  normgrad::DevPtr scratch = exec->ReserveWorkspace(64, true);
  ScaleTiling tiling{0.5f, static_cast<uint32_t>(inDesc.numel)};
  exec->AddKernel("test_scale", 3, &tiling, sizeof(tiling), {inPtr, outPtr, scratch}, 96,
                  ScaleThunk(scratchWord, kernelWsWord));
  return exec;
}

TEST(AclnnExecutor, StridedViewsRoundTripExactly) {
  // Input: a 3x4 view with strides (1, 6) at offset 1 of a 4x6 storage, i.e. a transposed slice.
  std::vector<float> inStorage(24);
  for (int i = 0; i < 24; ++i) inStorage[i] = static_cast<float>(i * 3 - 20);
  DeviceTensor in(inStorage, {4, 6}, {3, 4}, {1, 6}, 1);
  // Output: a 3x4 view with strides (1, 3) of a 4x3 storage (the transpose of a contiguous 4x3).
  DeviceTensor out(std::vector<float>(12, -1.0f), {4, 3}, {3, 4}, {1, 3}, 0);
  uint32_t scratchWord = 0xdeadbeef, kernelWsWord = 0xdeadbeef;
  aclOpExecutor* exec = ScaleExecutor(in, out, &scratchWord, &kernelWsWord);
  // Gathered input 48 B and output 48 B round up to 512 each, scratch 512, kernel workspace 512.
  ASSERT_EQ(exec->WorkspaceBytes(), 4u * 512);
  DeviceBuffer ws(exec->WorkspaceBytes());  // aclrtMalloc fills it with 0xff
  ASSERT_EQ(normgrad::RunExecutor("aclnnTestScale", ws.p, exec->WorkspaceBytes(), exec, nullptr), ACL_SUCCESS) << Msg();
  std::vector<float> got = out.Storage(12);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      float x = inStorage[1 + r * 1 + c * 6];
      EXPECT_EQ(got[r * 1 + c * 3], x * 2 + 0.5f) << "r " << r << " c " << c;
    }
  }
  EXPECT_EQ(in.Storage(24), inStorage);  // inputs untouched
  EXPECT_EQ(scratchWord, 0u);
  EXPECT_EQ(kernelWsWord, 0u);
  ASSERT_EQ(sim::RunLog().size(), 1u);
  EXPECT_EQ(sim::RunLog()[0].kernel, "test_scale");
  EXPECT_EQ(sim::RunLog()[0].blockDim, 3);
}

TEST(AclnnExecutor, ContiguousTensorsAreUsedInPlace) {
  DeviceTensor in({1, 2, 3, 4}, {4}, {4}, {1}, 0);
  DeviceTensor out({0, 0, 0, 0}, {4}, {4}, {1}, 0);
  uint32_t scratchWord = 1, kernelWsWord = 1;
  aclOpExecutor* exec = ScaleExecutor(in, out, &scratchWord, &kernelWsWord);
  EXPECT_EQ(exec->WorkspaceBytes(), 2u * 512);  // scratch and kernel workspace only
  DeviceBuffer ws(exec->WorkspaceBytes());
  ASSERT_EQ(normgrad::RunExecutor("aclnnTestScale", ws.p, exec->WorkspaceBytes(), exec, nullptr), ACL_SUCCESS) << Msg();
  EXPECT_EQ(out.Storage(4), (std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f}));
}

TEST(AclnnExecutor, WorkspaceAndExecutorErrors) {
  DeviceTensor in({1, 2, 3, 4}, {4}, {4}, {1}, 0);
  DeviceTensor out({0, 0, 0, 0}, {4}, {4}, {1}, 0);
  uint32_t a = 0, b = 0;
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestScale", nullptr, 0, nullptr, nullptr), normgrad::kStatusNullptr);
  EXPECT_EQ(Msg(),
            "aclnnTestScale: executor is null; call aclnnTestScaleGetWorkspaceSize first and pass the executor it "
            "returned");
  DeviceBuffer ws(1024);
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestScale", ws.p, 512, ScaleExecutor(in, out, &a, &b), nullptr),
            normgrad::kStatusInvalid);
  EXPECT_EQ(Msg(), "aclnnTestScale: workspaceSize is 512 bytes, but GetWorkspaceSize asked for 1024");
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestScale", nullptr, 1024, ScaleExecutor(in, out, &a, &b), nullptr),
            normgrad::kStatusNullptr);
  std::vector<uint8_t> host(1024);
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestScale", host.data(), 1024, ScaleExecutor(in, out, &a, &b), nullptr),
            normgrad::kStatusInvalid);
  EXPECT_NE(Msg().find("is not inside one device allocation"), std::string::npos);
  EXPECT_EQ(out.Storage(4), (std::vector<float>{0, 0, 0, 0}));  // nothing ran
}

TEST(AclnnExecutor, KernelFaultBecomesInnerErrorWithSimulatorMessage) {
  DeviceTensor in({1, 2, 3, 4}, {4}, {4}, {1}, 0);
  DeviceTensor out({0, 0, 0, 0}, {4}, {4}, {1}, 0);
  auto* exec = new aclOpExecutor;
  exec->api = "aclnnTestFault";
  normgrad::DevPtr inPtr = exec->ContiguousInput(Desc(in.t));
  int tiling = 0;
  exec->AddKernel("test_fault", 2, &tiling, sizeof(tiling), {inPtr}, 0,
                  [](uint8_t* const* args, uint8_t*, uint8_t*) {
                    AscendC::GlobalTensor<float> g;
                    g.SetGlobalBuffer(reinterpret_cast<float*>(args[0]));
                    g.GetValue(4);  // one past the 4-element allocation
                  });
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestFault", nullptr, 0, exec, nullptr), normgrad::kStatusInner);
  std::string msg = Msg();
  EXPECT_EQ(msg.rfind("aclnnTestFault: kernel test_fault failed on ", 0), 0u) << msg;
  EXPECT_NE(msg.find("GlobalTensor::GetValue"), std::string::npos) << msg;
  EXPECT_NE(msg.find("outside every device allocation"), std::string::npos) << msg;
}

TEST(AclnnExecutor, RunLogHoldsOnlyTheLatestCall) {
  DeviceTensor in({1, 2, 3, 4}, {4}, {4}, {1}, 0);
  DeviceTensor out({0, 0, 0, 0}, {4}, {4}, {1}, 0);
  uint32_t a = 0, b = 0;
  for (int call = 0; call < 2; ++call) {
    aclOpExecutor* exec = ScaleExecutor(in, out, &a, &b);
    ScaleTiling tiling{0.5f, 4};
    exec->AddKernel("test_scale_again", 1, &tiling, sizeof(tiling), {}, 0,
                    [](uint8_t* const*, uint8_t*, uint8_t*) {});
    DeviceBuffer ws(exec->WorkspaceBytes());
    ASSERT_EQ(normgrad::RunExecutor("aclnnTestScale", ws.p, exec->WorkspaceBytes(), exec, nullptr), ACL_SUCCESS);
    ASSERT_EQ(sim::RunLog().size(), 2u);
    EXPECT_EQ(sim::RunLog()[1].kernel, "test_scale_again");
  }
}

}  // namespace

TEST(Acl, MallocFromCopiesTheHostBytesAndAFreedBlockIsPoisonedAgainWhenReused) {
  std::vector<float> host = {1.0f, 2.0f, 3.0f, 4.0f};
  void* dev = nullptr;
  ASSERT_EQ(normgradSimMallocFrom(&dev, host.data(), 16), ACL_SUCCESS);
  std::vector<float> back(4);
  ASSERT_EQ(aclrtMemcpy(back.data(), 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);
  ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
  void* again = nullptr;
  ASSERT_EQ(aclrtMalloc(&again, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);  // may be the kept block
  std::vector<uint8_t> bytes(16);
  ASSERT_EQ(aclrtMemcpy(bytes.data(), 16, again, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (uint8_t b : bytes) EXPECT_EQ(b, 0xFF);
  EXPECT_EQ(aclrtFree(again), ACL_SUCCESS);
  EXPECT_NE(normgradSimMallocFrom(&dev, nullptr, 16), ACL_SUCCESS);
  EXPECT_NE(normgradSimMallocFrom(&dev, host.data(), 0), ACL_SUCCESS);
}

TEST(Acl, HostRegisterMapsHostMemoryInPlaceReadOnly) {
  std::vector<float> host = {1, 2, 3, 4};
  void* dev = nullptr;
  ASSERT_EQ(aclrtHostRegister(host.data(), 16, ACL_HOST_REGISTER_READONLY, &dev), ACL_SUCCESS);
  EXPECT_EQ(dev, host.data());
  void* again = nullptr;  // an overlapping second registration is refused
  EXPECT_EQ(aclrtHostRegister(host.data() + 1, 8, ACL_HOST_REGISTER_MAPPED, &again), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(Msg().find("meets device memory or another registration"), std::string::npos) << Msg();
  EXPECT_EQ(aclrtFree(dev), ACL_ERROR_INVALID_PARAM);  // not aclrtMalloc's
  auto* exec = new aclOpExecutor;
  exec->api = "aclnnTestReadOnly";
  int tiling = 0;
  float read = 0;
  exec->AddKernel("test_read_only", 1, &tiling, sizeof(tiling), {normgrad::DevPtr{dev, -1}}, 0,
                  [&read](uint8_t* const* args, uint8_t*, uint8_t*) {
                    AscendC::GlobalTensor<float> g;
                    g.SetGlobalBuffer(reinterpret_cast<float*>(args[0]));
                    read = g.GetValue(3);
                    g.SetValue(0, 9.0f);  // an input is never written
                  });
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestReadOnly", nullptr, 0, exec, nullptr), normgrad::kStatusInner);
  EXPECT_NE(Msg().find("into a read-only input"), std::string::npos) << Msg();
  EXPECT_EQ(read, 4.0f);
  EXPECT_EQ(host[0], 1.0f);
  EXPECT_EQ(aclrtHostUnregister(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtHostUnregister(dev), ACL_ERROR_INVALID_PARAM);
}

TEST(AclnnExecutor, BroadcastInputIsAViewRegionReadAsItsImage) {
  // A [3, 4] view of a 4-element storage with stride 0 on dim 0: no workspace, and the kernel
  // reads the 12-element image (DataCopy goes through the same gm::Read: tests/python/test_memory.py).
  DeviceTensor in({1, 2, 3, 4}, {4}, {3, 4}, {0, 1}, 0);
  auto* exec = new aclOpExecutor;
  exec->api = "aclnnTestView";
  normgrad::TensorDesc desc;
  ASSERT_EQ(normgrad::Describe("aclnnTestView", "in", in.t, &desc), ACL_SUCCESS) << Msg();
  normgrad::DevPtr view = exec->ContiguousInput(desc);
  EXPECT_EQ(exec->WorkspaceBytes(), 0u);
  ASSERT_NE(view.direct, nullptr);
  int tiling = 0;
  std::vector<float> got;
  exec->AddKernel("test_view", 1, &tiling, sizeof(tiling), {view}, 0,
                  [&got](uint8_t* const* args, uint8_t*, uint8_t*) {
                    AscendC::GlobalTensor<float> g;
                    g.SetGlobalBuffer(reinterpret_cast<float*>(args[0]));
                    for (int i = 0; i < 12; ++i) got.push_back(g.GetValue(i));
                  });
  EXPECT_EQ(normgrad::RunExecutor("aclnnTestView", nullptr, 0, exec, nullptr), ACL_SUCCESS) << Msg();
  EXPECT_EQ(got, (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
}
