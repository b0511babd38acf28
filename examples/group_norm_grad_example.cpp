// Calls aclnnGroupNormBackward the way CANN's aclnn examples do (two phases, device memory through
// aclrtMalloc/aclrtMemcpy), prints the results and checks them against values worked out by hand.
//
// N = 1, C = 2, HxW = 2, group = 1: x = [-1, 1 | -1, 1] has mean 0 and rstd 1 (eps 0), so x̂ = x.
// dy = [1, 0 | 0, 0], gamma = [2, 0.5]:
//   db = [1, 0], ds = [-1, 0]; sum(gamma*db) = 2, sum(gamma*ds) = -2; M = 4
//   c2 = (2*0 + 2) * 1 / 4 = 0.5, c3 = -0.5 * 0 - 2 * 1 / 4 = -0.5
//   dx = gamma*dy + 0.5*x - 0.5 = [1, 0 | -1, 0];  dgamma = ds - mean*db = [-1, 0];  dbeta = [1, 0]
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  return size;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

int CreateAclTensor(const std::vector<float>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(float);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

int ReadBack(const char* name, void* deviceAddr, const std::vector<float>& expected) {
  std::vector<float> host(expected.size(), 0.0f);
  size_t bytes = host.size() * sizeof(float);
  auto ret = aclrtMemcpy(host.data(), bytes, deviceAddr, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy %s from device to host failed. ERROR: %d\n", name, ret); return 1);
  int bad = 0;
  for (size_t i = 0; i < host.size(); i++) {
    bool ok = std::fabs(host[i] - expected[i]) <= 1e-6f;  // every value is exact in fp32
    LOG_PRINT("%s[%zu] = %g (expected %g)%s\n", name, i, host[i], expected[i], ok ? "" : "  MISMATCH");
    bad += ok ? 0 : 1;
  }
  return bad;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  const int64_t N = 1, C = 2, HxW = 2, group = 1;
  std::vector<int64_t> xShape = {N, C, HxW}, statShape = {N, group}, gammaShape = {C};
  std::vector<float> dyHost = {1, 0, 0, 0}, xHost = {-1, 1, -1, 1}, meanHost = {0}, rstdHost = {1};
  std::vector<float> gammaHost = {2, 0.5f}, zeros4 = {0, 0, 0, 0}, zeros2 = {0, 0};
  void *dyAddr = nullptr, *xAddr = nullptr, *meanAddr = nullptr, *rstdAddr = nullptr, *gammaAddr = nullptr;
  void *dxAddr = nullptr, *dgammaAddr = nullptr, *dbetaAddr = nullptr;
  aclTensor *dy = nullptr, *x = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr;
  aclTensor *dx = nullptr, *dgamma = nullptr, *dbeta = nullptr;
  ret = CreateAclTensor(dyHost, xShape, &dyAddr, aclDataType::ACL_FLOAT, &dy);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(xHost, xShape, &xAddr, aclDataType::ACL_FLOAT, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(meanHost, statShape, &meanAddr, aclDataType::ACL_FLOAT, &mean);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(rstdHost, statShape, &rstdAddr, aclDataType::ACL_FLOAT, &rstd);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gammaHost, gammaShape, &gammaAddr, aclDataType::ACL_FLOAT, &gamma);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(zeros4, xShape, &dxAddr, aclDataType::ACL_FLOAT, &dx);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(zeros2, gammaShape, &dgammaAddr, aclDataType::ACL_FLOAT, &dgamma);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(zeros2, gammaShape, &dbetaAddr, aclDataType::ACL_FLOAT, &dbeta);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  bool maskData[3] = {true, true, true};
  aclBoolArray* outputMask = aclCreateBoolArray(maskData, 3);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, N, C, HxW, group, outputMask, dx, dgamma,
                                               dbeta, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnGroupNormBackwardGetWorkspaceSize failed. ERROR: %d %s\n", ret, aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnGroupNormBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGroupNormBackward failed. ERROR: %d %s\n", ret, aclGetRecentErrMsg());
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  int bad = ReadBack("gradInput", dxAddr, {1, 0, -1, 0});
  bad += ReadBack("gradGammaOut", dgammaAddr, {-1, 0});
  bad += ReadBack("gradBetaOut", dbetaAddr, {1, 0});

  aclDestroyTensor(dy);
  aclDestroyTensor(x);
  aclDestroyTensor(mean);
  aclDestroyTensor(rstd);
  aclDestroyTensor(gamma);
  aclDestroyTensor(dx);
  aclDestroyTensor(dgamma);
  aclDestroyTensor(dbeta);
  aclDestroyBoolArray(outputMask);
  for (void* p : {dyAddr, xAddr, meanAddr, rstdAddr, gammaAddr, dxAddr, dgammaAddr, dbetaAddr}) aclrtFree(p);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT("%s\n", bad == 0 ? "group_norm_grad_example: all results match" : "group_norm_grad_example: MISMATCH");
  return bad == 0 ? 0 : 1;
}
