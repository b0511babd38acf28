// Misuse of aclTensor/aclIntArray/aclBoolArray handles is an error status naming the handle, never
// a crash (simhost/acl_handles.h): destroying twice, using a destroyed handle, passing a handle of
// another kind or a pointer that never was a handle. On 82d494d a second aclDestroyTensor aborted
// ("free(): double free detected") and a second aclDestroyBoolArray/IntArray crashed (SIGSEGV).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "../acl_messages.h"
#include "normgrad_sim.h"

namespace {

constexpr aclnnStatus kInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID

using acl_test::Hex;
using acl_test::Msg;

struct DeviceTensor {
  void* addr = nullptr;
  aclTensor* t = nullptr;
  DeviceTensor() {
    int64_t shape[] = {4}, strides[] = {1};
    EXPECT_EQ(aclrtMalloc(&addr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    t = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, addr);
    EXPECT_NE(t, nullptr) << Msg();
  }
  ~DeviceTensor() { aclrtFree(addr); }
};

TEST(AclHandles, DestroyingATensorTwiceIsAnErrorNamingIt) {
  DeviceTensor d;
  ASSERT_EQ(aclDestroyTensor(d.t), 0);
  EXPECT_EQ(aclDestroyTensor(d.t), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyTensor: tensor (aclTensor " + Hex(d.t) +
                       ") was destroyed (aclDestroyTensor) before this call");
  EXPECT_EQ(aclDestroyTensor(nullptr), 0);  // null is allowed, as in CANN
}

TEST(AclHandles, DestroyingAnArrayTwiceIsAnErrorNamingIt) {
  int64_t ints[] = {1, 2};
  bool flags[] = {true};
  aclIntArray* ia = aclCreateIntArray(ints, 2);
  aclBoolArray* ba = aclCreateBoolArray(flags, 1);
  ASSERT_EQ(aclDestroyIntArray(ia), 0);
  EXPECT_EQ(aclDestroyIntArray(ia), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyIntArray: array (aclIntArray " + Hex(ia) +
                       ") was destroyed (aclDestroyIntArray) before this call");
  ASSERT_EQ(aclDestroyBoolArray(ba), 0);
  EXPECT_EQ(aclDestroyBoolArray(ba), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyBoolArray: array (aclBoolArray " + Hex(ba) +
                       ") was destroyed (aclDestroyBoolArray) before this call");
}

TEST(AclHandles, AccessorsRefuseADestroyedTensor) {
  DeviceTensor d;
  ASSERT_EQ(aclDestroyTensor(d.t), 0);
  int64_t* dims = nullptr;
  uint64_t n = 0;
  EXPECT_EQ(aclGetViewShape(d.t, &dims, &n), kInvalid);
  EXPECT_EQ(dims, nullptr);
  EXPECT_EQ(Msg(), "aclGetViewShape: tensor (aclTensor " + Hex(d.t) +
                       ") was destroyed (aclDestroyTensor) before this call");
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(d.t, &dtype), kInvalid);
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(d.t, &addr), kInvalid);
  EXPECT_EQ(addr, nullptr);
}

TEST(AclHandles, AHandleOfAnotherKindIsRefusedNamingBothKinds) {
  DeviceTensor d;
  bool flags[] = {true, false, true};
  aclBoolArray* ba = aclCreateBoolArray(flags, 3);
  // A C caller can pass any handle anywhere with a cast.
  EXPECT_EQ(aclDestroyIntArray(reinterpret_cast<const aclIntArray*>(ba)), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyIntArray: array (" + Hex(ba) + ") is an aclBoolArray, not an aclIntArray");
  uint64_t size = 0;
  EXPECT_EQ(aclGetBoolArraySize(ba, &size), 0);  // still alive
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclGetBoolArraySize(reinterpret_cast<const aclBoolArray*>(d.t), &size), kInvalid);
  EXPECT_EQ(Msg(), "aclGetBoolArraySize: array (" + Hex(d.t) + ") is an aclTensor, not an aclBoolArray");
  ASSERT_EQ(aclDestroyBoolArray(ba), 0);
  EXPECT_EQ(aclDestroyTensor(reinterpret_cast<const aclTensor*>(ba)), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyTensor: tensor (" + Hex(ba) + ") is a destroyed aclBoolArray, not an aclTensor");
  EXPECT_EQ(aclDestroyTensor(d.t), 0);
}

TEST(AclHandles, APointerThatNeverWasAHandleIsRefused) {
  float notATensor[4] = {};
  const auto* t = reinterpret_cast<const aclTensor*>(notATensor);
  EXPECT_EQ(aclDestroyTensor(t), kInvalid);
  EXPECT_EQ(Msg(), "aclDestroyTensor: tensor (" + Hex(t) + ") is not an aclTensor made by aclCreateTensor");
  int64_t offset = -1;
  EXPECT_EQ(aclGetViewOffset(t, &offset), kInvalid);
  EXPECT_EQ(offset, -1);
}

// A destroyed handle stays recognized however many objects are made after it: handles are never
// reused, so a stale one can never reach a later object (which freed-and-reused memory would).
TEST(AclHandles, HandlesAreNeverReused) {
  DeviceTensor first;
  ASSERT_EQ(aclDestroyTensor(first.t), 0);
  std::set<const void*> seen = {first.t};
  int64_t shape[] = {4}, strides[] = {1};
  for (int i = 0; i < 1000; ++i) {
    aclTensor* t = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, first.addr);
    ASSERT_NE(t, nullptr) << Msg();
    EXPECT_TRUE(seen.insert(t).second) << "handle " << t << " was handed out twice";
    ASSERT_EQ(aclDestroyTensor(t), 0);
  }
  EXPECT_EQ(aclDestroyTensor(first.t), kInvalid);
  EXPECT_NE(Msg().find("was destroyed (aclDestroyTensor)"), std::string::npos) << Msg();
}

}  // namespace
