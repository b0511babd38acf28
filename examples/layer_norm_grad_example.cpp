// aclnnLayerNormBackward called the way a CANN user does (two phases, device tensors), on a 2 x 4
// problem whose gradients can be checked by hand. Prints the results; returns 1 on a mismatch.
//
// x = [[0 1 2 3], [4 5 6 7]], mean = [1.5, 5.5], rstd = 1, weight = 1, so x-hat = [-1.5 -0.5 0.5 1.5]
// in both rows; dy = [[1 0 0 0], [0 0 0 1]]. Row 0: mean(g) = 0.25, mean(g * x-hat) = -0.375, so
// dx = g - 0.25 + 0.375 x-hat = [0.1875 -0.4375 -0.0625 0.3125]; row 1 mirrors it.
// dweight = sum over rows of dy * x-hat = [-1.5 0 0 1.5]; dbias = [1 0 0 1].
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int CreateAclTensor(const std::vector<float>& host, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclTensor** tensor) {
  size_t size = GetShapeSize(shape) * sizeof(float);
  int ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, host.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                            shape.size(), *deviceAddr);
  return 0;
}

int Compare(const char* name, void* deviceAddr, const std::vector<float>& expected) {
  std::vector<float> got(expected.size());
  aclrtMemcpy(got.data(), got.size() * sizeof(float), deviceAddr, got.size() * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    printf("%s[%zu] is: %f\n", name, i, got[i]);
    if (std::fabs(got[i] - expected[i]) > 1e-6f) {
      printf("  mismatch: expected %f\n", expected[i]);
      bad = 1;
    }
  }
  return bad;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  int ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> xShape = {2, 4}, statShape = {2, 1}, wShape = {4};
  void *dyAddr, *xAddr, *meanAddr, *rstdAddr, *wAddr, *dxAddr, *dwAddr, *dbAddr;
  aclTensor *dy, *x, *mean, *rstd, *weight, *dx, *dw, *db;
  CHECK_RET(CreateAclTensor({1, 0, 0, 0, 0, 0, 0, 1}, xShape, &dyAddr, &dy) == 0, return 1);
  CHECK_RET(CreateAclTensor({0, 1, 2, 3, 4, 5, 6, 7}, xShape, &xAddr, &x) == 0, return 1);
  CHECK_RET(CreateAclTensor({1.5f, 5.5f}, statShape, &meanAddr, &mean) == 0, return 1);
  CHECK_RET(CreateAclTensor({1, 1}, statShape, &rstdAddr, &rstd) == 0, return 1);
  CHECK_RET(CreateAclTensor({1, 1, 1, 1}, wShape, &wAddr, &weight) == 0, return 1);
  CHECK_RET(CreateAclTensor(std::vector<float>(8, 0), xShape, &dxAddr, &dx) == 0, return 1);
  CHECK_RET(CreateAclTensor(std::vector<float>(4, 0), wShape, &dwAddr, &dw) == 0, return 1);
  CHECK_RET(CreateAclTensor(std::vector<float>(4, 0), wShape, &dbAddr, &db) == 0, return 1);
  int64_t normalized[1] = {4};
  bool mask[3] = {true, true, true};
  aclIntArray* normalizedShape = aclCreateIntArray(normalized, 1);
  aclBoolArray* outputMask = aclCreateBoolArray(mask, 3);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnLayerNormBackwardGetWorkspaceSize(dy, x, normalizedShape, mean, rstd, weight, nullptr, outputMask, dx,
                                               dw, db, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclnnLayerNormBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, printf("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnLayerNormBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclnnLayerNormBackward failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, printf("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  int bad = 0;
  bad |= Compare("gradInput", dxAddr, {0.1875f, -0.4375f, -0.0625f, 0.3125f, 0.3125f, -0.0625f, -0.4375f, 0.1875f});
  bad |= Compare("gradWeight", dwAddr, {-1.5f, 0, 0, 1.5f});
  bad |= Compare("gradBias", dbAddr, {1, 0, 0, 1});

  for (aclTensor* t : {dy, x, mean, rstd, weight, dx, dw, db}) aclDestroyTensor(t);
  aclDestroyIntArray(normalizedShape);
  aclDestroyBoolArray(outputMask);
  for (void* p : {dyAddr, xAddr, meanAddr, rstdAddr, wAddr, dxAddr, dwAddr, dbAddr}) aclrtFree(p);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return bad;
}
