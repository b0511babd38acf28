// The aclnn APIs refuse arguments that are no longer what the caller made them: a tensor or array
// destroyed before the call, a handle of another kind, and a tensor whose storage was freed
// (aclrtFree), whether or not the address was handed out again since. The first phase checks every
// argument; the execute phase checks every tensor's storage again before anything runs. Each is an
// error status with a message naming the argument, never a crash or a write to memory that is no
// longer the tensor's. On 82d494d a destroyed input, gamma or outputMask let std::bad_alloc or
// std::bad_array_new_length out of aclnnGroupNormBackwardGetWorkspaceSize (an abort from C), and a
// freed-and-reallocated gradInput was written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ascendc/core.h"
#include "../acl_messages.h"
#include "group_norm_call.h"

namespace {

using schema_test::GroupNormCall;
using schema_test::ZeroTensor;

constexpr aclnnStatus kInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID

using acl_test::Hex;
using acl_test::Msg;

// Destroys a ZeroTensor's handle now (its destructor then only frees the memory) and returns it.
aclTensor* DestroyNow(ZeroTensor& z) {
  aclTensor* t = z.tensor;
  EXPECT_EQ(aclDestroyTensor(t), 0);
  z.tensor = nullptr;
  return t;
}

// A float32 tensor of `shape` over host memory registered as one device allocation, which the test
// can unregister (what aclrtFree does) and register again at the same address (what an allocator
// handing the freed block out again does), so that reuse of the address is certain in every build.
// The memory holds 7s, so a write to it shows.
class ReusableBlockTensor {
 public:
  explicit ReusableBlockTensor(std::vector<int64_t> shape) : shape_(shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data_.assign(static_cast<size_t>(n), 7.0f);
    sim::gm::Register(data_.data(), Bytes());
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                             shape.size(), data_.data());
    EXPECT_NE(tensor, nullptr) << Msg();
  }
  ~ReusableBlockTensor() {
    aclDestroyTensor(tensor);
    sim::gm::Unregister(data_.data());
  }
  void Free() { sim::gm::Unregister(data_.data()); }
  void FreeAndReallocate() {
    sim::gm::Unregister(data_.data());
    sim::gm::Register(data_.data(), Bytes());
  }
  bool Untouched() const {
    for (float v : data_) {
      if (v != 7.0f) return false;
    }
    return true;
  }
  const void* data() const { return data_.data(); }
  aclTensor* tensor = nullptr;

 private:
  uint64_t Bytes() const { return data_.size() * sizeof(float); }
  std::vector<int64_t> shape_;
  std::vector<float> data_;
};

// Puts `replacement` in place of z's tensor in a call, for the scope.
class Substitute {
 public:
  Substitute(ZeroTensor& z, aclTensor* replacement) : z_(z), own_(z.tensor) { z.tensor = replacement; }
  ~Substitute() { z_.tensor = own_; }
  Substitute(const Substitute&) = delete;
  Substitute& operator=(const Substitute&) = delete;

 private:
  ZeroTensor& z_;
  aclTensor* own_;
};

class AclnnMisuse : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
};

TEST_F(AclnnMisuse, GroupNormRefusesADestroyedInputGammaOrOutputMask) {
  {
    GroupNormCall call;
    aclTensor* x = DestroyNow(call.x);
    call.x.tensor = x;  // the stale handle, as the caller still holds it
    aclOpExecutor* exec = nullptr;
    EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
    EXPECT_EQ(Msg(), "aclnnGroupNormBackward: input (aclTensor " + Hex(x) +
                         ") was destroyed (aclDestroyTensor) before this call");
    EXPECT_EQ(exec, nullptr);
    call.x.tensor = nullptr;
  }
  {
    GroupNormCall call;
    aclTensor* gamma = DestroyNow(call.gamma);
    call.gamma.tensor = gamma;
    aclOpExecutor* exec = nullptr;
    EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
    EXPECT_EQ(Msg(), "aclnnGroupNormBackward: gamma (aclTensor " + Hex(gamma) +
                         ") was destroyed (aclDestroyTensor) before this call");
    call.gamma.tensor = nullptr;
  }
  {
    GroupNormCall call;
    ASSERT_EQ(aclDestroyBoolArray(call.maskArr), 0);
    aclOpExecutor* exec = nullptr;
    EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
    EXPECT_EQ(Msg(), "aclnnGroupNormBackward: outputMask (aclBoolArray " + Hex(call.maskArr) +
                         ") was destroyed (aclDestroyBoolArray) before this call");
    call.maskArr = nullptr;
  }
}

TEST_F(AclnnMisuse, LayerNormRefusesADestroyedNormalizedShapeAndATensorPassedAsOne) {
  ZeroTensor dy{{2, 8}, ACL_FLOAT}, x{{2, 8}, ACL_FLOAT}, mean{{2, 1}, ACL_FLOAT}, rstd{{2, 1}, ACL_FLOAT};
  ZeroTensor dx{{2, 8}, ACL_FLOAT};
  int64_t dims[] = {8};
  bool maskData[] = {true, false, false};
  aclIntArray* shape = aclCreateIntArray(dims, 1);
  aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  auto call = [&](const aclIntArray* normalizedShape) {
    return aclnnLayerNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, normalizedShape, mean.tensor, rstd.tensor,
                                                  nullptr, nullptr, mask, dx.tensor, nullptr, nullptr, &ws, &exec);
  };
  // A C caller can pass a tensor where an array is read.
  EXPECT_EQ(call(reinterpret_cast<const aclIntArray*>(x.tensor)), kInvalid);
  EXPECT_EQ(Msg(), "aclnnLayerNormBackward: normalizedShape (" + Hex(x.tensor) +
                       ") is an aclTensor, not an aclIntArray");
  ASSERT_EQ(aclDestroyIntArray(shape), 0);
  EXPECT_EQ(call(shape), kInvalid);
  EXPECT_EQ(Msg(), "aclnnLayerNormBackward: normalizedShape (aclIntArray " + Hex(shape) +
                       ") was destroyed (aclDestroyIntArray) before this call");
  aclDestroyBoolArray(mask);
}

TEST_F(AclnnMisuse, BatchNormElemtRefusesADestroyedCounter) {
  ZeroTensor dy{{2, 3, 4}, ACL_FLOAT}, x{{2, 3, 4}, ACL_FLOAT}, dx{{2, 3, 4}, ACL_FLOAT};
  ZeroTensor mean{{3}, ACL_FLOAT}, invstd{{3}, ACL_FLOAT}, sumDy{{3}, ACL_FLOAT}, sumDyXmu{{3}, ACL_FLOAT};
  ZeroTensor counter{{2}, ACL_INT32};
  aclTensor* stale = DestroyNow(counter);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnBatchNormElemtBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, invstd.tensor, nullptr,
                                                        sumDy.tensor, sumDyXmu.tensor, stale, dx.tensor, &ws, &exec),
            kInvalid);
  EXPECT_EQ(Msg(), "aclnnBatchNormElemtBackward: counter (aclTensor " + Hex(stale) +
                       ") was destroyed (aclDestroyTensor) before this call");
}

TEST_F(AclnnMisuse, GetWorkspaceSizeRefusesAnOutputWhoseStorageWasFreed) {
  GroupNormCall call;
  ReusableBlockTensor dx({2, 4, 3});
  Substitute use(call.dx, dx.tensor);
  dx.Free();
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
  EXPECT_EQ(Msg(), "aclnnGroupNormBackward: gradInput's storage " + Hex(dx.data()) +
                       " was freed (aclrtFree) after aclCreateTensor");
}

TEST_F(AclnnMisuse, GetWorkspaceSizeRefusesAnOutputWhoseStorageWasFreedAndReallocated) {
  GroupNormCall call;
  ReusableBlockTensor dx({2, 4, 3});
  Substitute use(call.dx, dx.tensor);
  dx.FreeAndReallocate();  // the address is a live allocation again, but not the tensor's
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
  EXPECT_EQ(Msg(), "aclnnGroupNormBackward: gradInput's storage " + Hex(dx.data()) +
                       " was freed (aclrtFree) after aclCreateTensor, and its address handed out again by a later "
                       "allocation");
}

// Freed between the two phases: the execute phase checks again and runs nothing; the executor is
// spent, as by any execute call.
TEST_F(AclnnMisuse, TheExecutePhaseRefusesATensorWhoseStorageWasFreedSinceTheFirstPhase) {
  GroupNormCall call;
  ReusableBlockTensor dx({2, 4, 3});
  Substitute use(call.dx, dx.tensor);
  aclOpExecutor* exec = call.Prepare();
  ASSERT_NE(exec, nullptr);
  dx.FreeAndReallocate();
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), kInvalid);
  EXPECT_EQ(Msg(), "aclnnGroupNormBackward: gradInput's storage " + Hex(dx.data()) +
                       " was freed (aclrtFree) after aclCreateTensor, and its address handed out again by a later "
                       "allocation (nothing ran)");
  EXPECT_TRUE(dx.Untouched());
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), kInvalid);
  EXPECT_NE(Msg().find("not a live executor"), std::string::npos) << Msg();
}

TEST_F(AclnnMisuse, TheExecutePhaseChecksInputsToo) {
  GroupNormCall call;
  ReusableBlockTensor x({2, 4, 3});
  Substitute use(call.x, x.tensor);
  aclOpExecutor* exec = call.Prepare();
  ASSERT_NE(exec, nullptr);
  x.Free();
  EXPECT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr), kInvalid);
  EXPECT_EQ(Msg(), "aclnnGroupNormBackward: input's storage " + Hex(x.data()) +
                       " was freed (aclrtFree) after aclCreateTensor (nothing ran)");
}

// The reproduction through the runtime alone: aclrtFree, then aclrtMalloc of the same size
// (the same address whenever the allocator hands the freed block out again, as the simulator's
// does outside AddressSanitizer) filled by the caller. The call is refused either way and the new
// block keeps its contents.
TEST_F(AclnnMisuse, AnOutputFreedAndReallocatedThroughTheRuntimeIsNeverWritten) {
  GroupNormCall call;
  const size_t bytes = 2 * 4 * 3 * sizeof(float);
  ASSERT_EQ(aclrtFree(call.dx.data), ACL_SUCCESS);
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<float> sevens(bytes / sizeof(float), 7.0f), back(sevens.size());
  ASSERT_EQ(aclrtMemcpy(block, bytes, sevens.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(call.GetWorkspaceSize(&exec), kInvalid);
  EXPECT_EQ(Msg().rfind("aclnnGroupNormBackward: gradInput's storage " + Hex(call.dx.data) +
                            " was freed (aclrtFree) after aclCreateTensor",
                        0),
            0u)
      << Msg();
  ASSERT_EQ(aclrtMemcpy(back.data(), bytes, block, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, sevens);
  call.dx.data = block;  // freed by ZeroTensor
}

}  // namespace
