// Misuses the C API the way buggy host code does, and shows that the simulator reports each misuse
// as an error status with a message naming the object, where a device (and CANN, which leaves these
// undefined) would crash or silently corrupt memory:
//   1. aclDestroyTensor, aclDestroyIntArray, aclDestroyBoolArray twice on the same handle;
//   2. aclnnGroupNormBackwardGetWorkspaceSize after input, gamma or outputMask was destroyed;
//   3. gradInput's storage freed with aclrtFree and a block of the same size allocated (at the same
//      address when the allocator hands the freed block out again) and filled: GetWorkspaceSize
//      refuses gradInput, and the new block keeps its contents;
//   4. the same between the two phases: the execute phase refuses to run.
// Uses only the C API (acl/acl.h, aclnnop/*.h) and links libnormgrad, as a user's program does.
// Prints every status and message; exits 1 if any misuse is not reported as expected.
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"

namespace {

int g_failures = 0;

// Prints what the call returned and checks the status and that the message holds `fragment`.
void Expect(const char* what, int status, int expectedStatus, const char* fragment) {
  const char* msg = aclGetRecentErrMsg();
  bool ok = status == expectedStatus && std::strstr(msg, fragment) != nullptr;
  std::printf("%-58s -> %d  %s%s\n", what, status, status != 0 ? msg : "", ok ? "" : "   UNEXPECTED");
  if (!ok) {
    std::printf("    expected status %d and a message holding \"%s\"\n", expectedStatus, fragment);
    ++g_failures;
  }
}

// A contiguous float32 device tensor of `shape`, every element `value`; destroyed with its memory
// (a second destroy of a tensor the program destroyed already is an error, and harmless).
struct Tensor {
  void* addr = nullptr;
  aclTensor* t = nullptr;
  size_t bytes = 0;
  Tensor(const std::vector<int64_t>& shape, float value) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    bytes = static_cast<size_t>(n) * sizeof(float);
    std::vector<float> host(static_cast<size_t>(n), value);
    aclrtMalloc(&addr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(addr, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    t = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                        shape.size(), addr);
  }
  ~Tensor() {
    aclDestroyTensor(t);
    aclrtFree(addr);
  }
};

constexpr int64_t kN = 2, kC = 4, kHxW = 3, kGroup = 2;

struct Call {
  Tensor dy{{kN, kC, kHxW}, 1}, x{{kN, kC, kHxW}, 0.5f}, mean{{kN, kGroup}, 0}, rstd{{kN, kGroup}, 1};
  Tensor gamma{{kC}, 1}, dx{{kN, kC, kHxW}, 0}, dgamma{{kC}, 0}, dbeta{{kC}, 0};
  bool maskData[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ~Call() { aclDestroyBoolArray(mask); }
  int Prepare() {
    return aclnnGroupNormBackwardGetWorkspaceSize(dy.t, x.t, mean.t, rstd.t, gamma.t, kN, kC, kHxW, kGroup, mask,
                                                  dx.t, dgamma.t, dbeta.t, &workspaceSize, &executor);
  }
};

// Frees dx's storage, allocates a block of the same size and fills it with 7s; returns the block
// (which dx then frees at the end, as its memory).
void* ReplaceStorage(Tensor& dx) {
  aclrtFree(dx.addr);
  void* block = nullptr;
  aclrtMalloc(&block, dx.bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::printf("gradInput's storage %p freed; the new block of %zu bytes is at %p%s\n", dx.addr, dx.bytes, block,
              block == dx.addr ? " (the same address)" : "");
  std::vector<float> sevens(dx.bytes / sizeof(float), 7.0f);
  aclrtMemcpy(block, dx.bytes, sevens.data(), dx.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  dx.addr = block;
  return block;
}

// The new block still holds its 7s: nothing wrote it.
void ExpectUntouched(void* block, size_t bytes) {
  std::vector<float> back(bytes / sizeof(float), 0.0f);
  aclrtMemcpy(back.data(), bytes, block, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  int changed = 0;
  for (float v : back) changed += v != 7.0f;
  std::printf("the new block after the call: %d of %zu elements changed\n", changed, back.size());
  if (changed != 0) ++g_failures;
}

}  // namespace

int main() {
  aclInit(nullptr);
  aclrtSetDevice(0);
  const int kInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID

  // 1. Double destruction.
  {
    Tensor t({4}, 0);
    int64_t dims[] = {2, 3};
    bool flags[] = {true, false};
    aclIntArray* ints = aclCreateIntArray(dims, 2);
    aclBoolArray* bools = aclCreateBoolArray(flags, 2);
    Expect("aclDestroyTensor(t)", aclDestroyTensor(t.t), 0, "");
    Expect("aclDestroyTensor(t) again", aclDestroyTensor(t.t), kInvalid, "was destroyed (aclDestroyTensor)");
    Expect("aclDestroyIntArray(a)", aclDestroyIntArray(ints), 0, "");
    Expect("aclDestroyIntArray(a) again", aclDestroyIntArray(ints), kInvalid, "was destroyed (aclDestroyIntArray)");
    Expect("aclDestroyBoolArray(b)", aclDestroyBoolArray(bools), 0, "");
    Expect("aclDestroyBoolArray(b) again", aclDestroyBoolArray(bools), kInvalid,
           "was destroyed (aclDestroyBoolArray)");
  }

  // 2. Arguments destroyed before the call.
  {
    Call call;
    aclDestroyTensor(call.x.t);
    Expect("GetWorkspaceSize after aclDestroyTensor(input)", call.Prepare(), kInvalid,
           "aclnnGroupNormBackward: input (aclTensor");
  }
  {
    Call call;
    aclDestroyTensor(call.gamma.t);
    Expect("GetWorkspaceSize after aclDestroyTensor(gamma)", call.Prepare(), kInvalid,
           "aclnnGroupNormBackward: gamma (aclTensor");
  }
  {
    Call call;
    aclDestroyBoolArray(call.mask);
    Expect("GetWorkspaceSize after aclDestroyBoolArray(outputMask)", call.Prepare(), kInvalid,
           "aclnnGroupNormBackward: outputMask (aclBoolArray");
  }

  // 3. gradInput's storage freed and reallocated before GetWorkspaceSize.
  {
    Call call;
    void* block = ReplaceStorage(call.dx);
    Expect("GetWorkspaceSize with gradInput's storage freed", call.Prepare(), kInvalid,
           "gradInput's storage");
    ExpectUntouched(block, call.dx.bytes);
  }

  // 4. The same between the two phases.
  {
    Call call;
    Expect("GetWorkspaceSize", call.Prepare(), 0, "");
    void* workspace = nullptr;
    if (call.workspaceSize > 0) aclrtMalloc(&workspace, call.workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    void* block = ReplaceStorage(call.dx);
    Expect("aclnnGroupNormBackward with gradInput's storage freed",
           aclnnGroupNormBackward(workspace, call.workspaceSize, call.executor, nullptr), kInvalid,
           "(aclrtFree) after aclCreateTensor");
    ExpectUntouched(block, call.dx.bytes);
    if (workspace != nullptr) aclrtFree(workspace);
  }

  std::printf("%s\n", g_failures == 0 ? "every misuse was reported" : "some misuse was NOT reported");
  aclrtResetDevice(0);
  aclFinalize();
  return g_failures == 0 ? 0 : 1;
}
