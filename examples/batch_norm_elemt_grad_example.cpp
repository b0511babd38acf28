// aclnnBatchNormElemtBackward called the way the interface's reference example
// (batch_norm_elemt_backward_reference_example.cpp) does, on a case small enough to
// check by hand: weight null (ones), an int32 counter of two ranks, two channels that exercise
// each term of the formula. Prints gradInput and returns 1 if it differs from the expectation.
//
//   input [2, 2, 3], gradOut = 1, counter = {3, 5} -> total = 8
//   channel 0: mean 0, invstd 2, sumDy 8 (meanDy 1), sumDyXmu 4 (meanDyXmu 0.5)
//              dx = (1 - 1 - x * 4 * 0.5) * 2 = -4 x
//   channel 1: mean 1, invstd 1, sumDy 0, sumDyXmu 0 -> dx = gradOut = 1
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

namespace {

template <typename T>
aclTensor* DeviceTensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType dtype, void** dev) {
  const size_t bytes = host.size() * sizeof(T);
  if (aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
  aclrtMemcpy(*dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
  return aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                         shape.size(), *dev);
}

}  // namespace

int main() {
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
    std::printf("ACL initialisation failed\n");
    return 1;
  }
  const std::vector<int64_t> shape = {2, 2, 3}, channels = {2}, ranks = {2};
  const std::vector<float> x = {0.0f, 0.25f, 0.5f, 7.0f, 8.0f, 9.0f, 0.75f, 1.0f, -1.5f, 1.0f, 2.0f, 3.0f};
  const std::vector<float> dy(12, 1.0f), dx(12, 0.0f);
  void* mem[9] = {};
  aclTensor* gradOut = DeviceTensor(dy, shape, ACL_FLOAT, &mem[0]);
  aclTensor* input = DeviceTensor(x, shape, ACL_FLOAT, &mem[1]);
  aclTensor* mean = DeviceTensor(std::vector<float>{0.0f, 1.0f}, channels, ACL_FLOAT, &mem[2]);
  aclTensor* invstd = DeviceTensor(std::vector<float>{2.0f, 1.0f}, channels, ACL_FLOAT, &mem[3]);
  aclTensor* sumDy = DeviceTensor(std::vector<float>{8.0f, 0.0f}, channels, ACL_FLOAT, &mem[4]);
  aclTensor* sumDyXmu = DeviceTensor(std::vector<float>{4.0f, 0.0f}, channels, ACL_FLOAT, &mem[5]);
  aclTensor* counter = DeviceTensor(std::vector<int32_t>{3, 5}, ranks, ACL_INT32, &mem[6]);
  aclTensor* gradInput = DeviceTensor(dx, shape, ACL_FLOAT, &mem[7]);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus ret = aclnnBatchNormElemtBackwardGetWorkspaceSize(gradOut, input, mean, invstd, nullptr, sumDy, sumDyXmu,
                                                                counter, gradInput, &workspaceSize, &executor);
  if (ret != ACL_SUCCESS) {
    std::printf("aclnnBatchNormElemtBackwardGetWorkspaceSize failed: %d %s\n", ret, aclGetRecentErrMsg());
    return 1;
  }
  if (workspaceSize > 0) aclrtMalloc(&mem[8], workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
  ret = aclnnBatchNormElemtBackward(mem[8], workspaceSize, executor, stream);
  if (ret != ACL_SUCCESS || aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    std::printf("aclnnBatchNormElemtBackward failed: %d %s\n", ret, aclGetRecentErrMsg());
    return 1;
  }
  std::vector<float> result(12);
  aclrtMemcpy(result.data(), 12 * sizeof(float), mem[7], 12 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);

  int mismatches = 0;
  for (int i = 0; i < 12; ++i) {
    const bool channel0 = (i / 3) % 2 == 0;
    const float want = channel0 ? -4.0f * x[i] : 1.0f;  // every value is exact in fp32
    std::printf("gradInput[%d] = %f (expected %f)\n", i, result[i], want);
    if (result[i] != want) ++mismatches;
  }
  for (aclTensor* t : {gradOut, input, mean, invstd, sumDy, sumDyXmu, counter, gradInput}) aclDestroyTensor(t);
  for (void* p : mem) {
    if (p != nullptr) aclrtFree(p);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("%s\n", mismatches == 0 ? "OK" : "MISMATCH");
  return mismatches == 0 ? 0 : 1;
}
