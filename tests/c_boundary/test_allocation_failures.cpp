// No C++ exception crosses the library's C boundary (simhost/c_boundary.h). This test binary
// replaces operator new so that the k-th allocation of the calling thread throws std::bad_alloc,
// and calls every extern "C" entry point of the library with k = 0, 1, 2, ... until a call makes
// fewer than k + 1 allocations: every allocation a call makes fails once. Each such call must
// return (an escaping exception fails the test here, and aborts a C caller), either succeeding
// (the library coped) or with its error value and "out of host memory" / "bad_alloc" in
// aclGetRecentErrMsg(). Under the sanitizer build LeakSanitizer also checks that no failure leaks.
// It is its own executable because the replaced operator new is process-wide.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "../ops/group_norm_call.h"
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "normgrad_sim.h"

// The replacements below pair new with free() by design; GCC's check assumes the library's pairs.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

thread_local long t_failAt = -1;  // the allocation (counted from arming) that throws; -1: none
thread_local long t_count = 0;
thread_local bool t_failed = false;

}  // namespace

// Only the plain forms: operator new[] and the sized delete reach these, and the aligned and nothrow
// forms (not replaced) pair with their own deletes, with and without AddressSanitizer.
void* operator new(std::size_t n) {
  if (t_failAt >= 0 && t_count++ == t_failAt) {
    t_failed = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

// Runs call() with allocation k of this thread failing; *failed says whether it was reached.
template <typename F>
auto WithAllocationFailing(long k, bool* failed, F call) {
  t_count = 0;
  t_failed = false;
  t_failAt = k;
  auto result = call();
  t_failAt = -1;
  *failed = t_failed;
  return result;
}

// For k = 0, 1, ...: setup() (normal allocation), then call() with allocation k failing, then
// check(result, failed) and cleanup(result); until a call does not reach allocation k. Returns how
// many allocations the call makes.
template <typename Setup, typename Call, typename Check, typename Cleanup>
long EveryAllocationFails(Setup setup, Call call, Check check, Cleanup cleanup) {
  for (long k = 0; k < 100000; ++k) {
    setup();
    bool failed = false;
    auto result = WithAllocationFailing(k, &failed, call);
    check(result, failed);
    cleanup(result);
    if (!failed) return k;
  }
  ADD_FAILURE() << "the call never completed without reaching the failing allocation";
  return -1;
}

// The message of a call that failed because an allocation did (it may name the API or a function it
// called, such as aclrtMalloc inside the self-check).
void ExpectOutOfMemoryMessage(const char* api) {
  std::string msg = aclGetRecentErrMsg();
  EXPECT_TRUE(msg.find("out of host memory") != std::string::npos || msg.find("bad_alloc") != std::string::npos)
      << msg;
}

// An int-returning C function whose success is 0: after a failing allocation it returns 0 or
// an error with the message.
template <typename Call>
long EveryAllocationFailsStatus(const char* api, Call call) {
  auto noop = [] {};
  return EveryAllocationFails(
      noop, call,
      [&](int status, bool failed) {
        if (failed && status != 0) ExpectOutOfMemoryMessage(api);
        if (!failed) {
          EXPECT_EQ(status, 0) << aclGetRecentErrMsg();
        }
      },
      [](int) {});
}

// An aclCreate* function: after a failing allocation it returns a handle or null with the message.
template <typename Create, typename Handle>
void EveryAllocationFailsCreate(const char* api, Create create, aclnnStatus (*destroy)(const Handle*)) {
  EveryAllocationFails(
      [] {}, create,
      [&](Handle* h, bool failed) {
        if (h == nullptr) ExpectOutOfMemoryMessage(api);
        if (!failed) {
          EXPECT_NE(h, nullptr);
        }
      },
      [&](Handle* h) { destroy(h); });
}

class AllocationFailures : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    aclInit(nullptr);
    aclrtSetDevice(0);
  }
};

TEST_F(AllocationFailures, TensorsAndArrays) {
  void* storage = nullptr;
  ASSERT_EQ(aclrtMalloc(&storage, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  int64_t shape[] = {4, 4}, strides[] = {4, 1};
  EveryAllocationFailsCreate(
      "aclCreateTensor", [&] { return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, storage); },
      aclDestroyTensor);
  int64_t ints[] = {1, 2, 3};
  EveryAllocationFailsCreate("aclCreateIntArray", [&] { return aclCreateIntArray(ints, 3); }, aclDestroyIntArray);
  bool flags[] = {true, false};
  EveryAllocationFailsCreate("aclCreateBoolArray", [&] { return aclCreateBoolArray(flags, 2); }, aclDestroyBoolArray);

  aclTensor* t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, storage);
  aclIntArray* ia = aclCreateIntArray(ints, 3);
  aclBoolArray* ba = aclCreateBoolArray(flags, 2);
  int64_t* dims = nullptr;
  uint64_t n = 0;
  EveryAllocationFailsStatus("aclGetViewShape", [&] {
    int st = aclGetViewShape(t, &dims, &n);
    if (st == 0) delete[] dims;
    return st;
  });
  EveryAllocationFailsStatus("aclGetViewStrides", [&] {
    int st = aclGetViewStrides(t, &dims, &n);
    if (st == 0) delete[] dims;
    return st;
  });
  EveryAllocationFailsStatus("aclGetStorageShape", [&] {
    int st = aclGetStorageShape(t, &dims, &n);
    if (st == 0) delete[] dims;
    return st;
  });
  int64_t offset = 0;
  aclFormat format;
  aclDataType dtype;
  void* addr = nullptr;
  EveryAllocationFailsStatus("aclGetViewOffset", [&] { return aclGetViewOffset(t, &offset); });
  EveryAllocationFailsStatus("aclGetFormat", [&] { return aclGetFormat(t, &format); });
  EveryAllocationFailsStatus("aclGetDataType", [&] { return aclGetDataType(t, &dtype); });
  EveryAllocationFailsStatus("aclGetRawTensorAddr", [&] { return aclGetRawTensorAddr(t, &addr); });
  EveryAllocationFailsStatus("aclGetIntArraySize", [&] { return aclGetIntArraySize(ia, &n); });
  EveryAllocationFailsStatus("aclGetBoolArraySize", [&] { return aclGetBoolArraySize(ba, &n); });
  // The error paths allocate their messages' text too: a destroyed handle, destroyed again.
  ASSERT_EQ(aclDestroyTensor(t), 0);
  ASSERT_EQ(aclDestroyIntArray(ia), 0);
  ASSERT_EQ(aclDestroyBoolArray(ba), 0);
  for (int i = 0; i < 2; ++i) {
    bool failed = false;
    int st = WithAllocationFailing(i, &failed, [&] { return aclDestroyTensor(t); });
    EXPECT_NE(st, 0);  // 161002, or 561000 when the message's text could not be allocated
    st = WithAllocationFailing(i, &failed, [&] { return aclDestroyIntArray(ia); });
    EXPECT_NE(st, 0);
    st = WithAllocationFailing(i, &failed, [&] { return aclDestroyBoolArray(ba); });
    EXPECT_NE(st, 0);
  }
  aclrtFree(storage);
}

TEST_F(AllocationFailures, Runtime) {
  EveryAllocationFailsStatus("aclFinalize", [] {
    int st = aclFinalize();
    aclInit(nullptr);
    return st;
  });
  void* p = nullptr;
  EveryAllocationFails(
      [] {}, [&] { return aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("aclrtMalloc");
        if (!failed) {
          EXPECT_EQ(st, 0);
        }
      },
      [&](int st) {
        if (st == 0) {
          EXPECT_EQ(aclrtFree(p), 0);
        }
      });
  EveryAllocationFails(
      [&] { ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), 0); }, [&] { return aclrtFree(p); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("aclrtFree");
      },
      [&](int st) {
        if (st != 0) aclrtFree(p);
      });
  std::vector<float> host(25, 1.0f);
  EveryAllocationFails(
      [] {}, [&] { return normgradSimMallocFrom(&p, host.data(), 100); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("normgradSimMallocFrom");
      },
      [&](int st) {
        if (st == 0) aclrtFree(p);
      });
  ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  EveryAllocationFailsStatus("aclrtMemcpy", [&] { return aclrtMemcpy(p, 100, host.data(), 100, ACL_MEMCPY_DEFAULT); });
  EveryAllocationFailsStatus("aclrtMemset", [&] { return aclrtMemset(p, 100, 0, 100); });
  // An error path: a host pointer given as device memory.
  for (int i = 0; i < 3; ++i) {
    bool failed = false;
    int st = WithAllocationFailing(i, &failed, [&] {
      return aclrtMemcpy(host.data(), 100, p, 100, ACL_MEMCPY_HOST_TO_DEVICE);
    });
    EXPECT_EQ(st, ACL_ERROR_INVALID_PARAM);
  }
  aclrtFree(p);
  EveryAllocationFails(
      [] {}, [&] { return aclrtMallocHost(&p, 100); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("aclrtMallocHost");
      },
      [&](int st) {
        if (st == 0) aclrtFreeHost(p);
      });
  void* dev = nullptr;
  EveryAllocationFails(
      [] {}, [&] { return aclrtHostRegister(host.data(), 100, ACL_HOST_REGISTER_READONLY, &dev); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("aclrtHostRegister");
      },
      [&](int st) {
        if (st == 0) {
          EXPECT_EQ(aclrtHostUnregister(host.data()), 0);
        }
      });
  aclrtStream s = nullptr;
  EveryAllocationFails(
      [] {}, [&] { return aclrtCreateStream(&s); },
      [](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage("aclrtCreateStream");
      },
      [&](int st) {
        if (st == 0) {
          EXPECT_EQ(aclrtSynchronizeStream(s), 0);
          aclrtDestroyStream(s);
        }
      });
}

TEST_F(AllocationFailures, SimulatorApi) {
  EveryAllocationFailsStatus("normgradSimSetSoc", [] { return normgradSimSetSoc("ascend910b"); });
  EveryAllocationFailsStatus("normgradSimSetThreadSoc", [] { return normgradSimSetThreadSoc(nullptr); });
  EveryAllocationFailsStatus("normgradSimSetCostOverrides", [] {
    int st = normgradSimSetCostOverrides("launch_us=3");
    normgradSimSetCostOverrides("");
    return st;
  });
  EveryAllocationFailsStatus("normgradSimSelfCheck", [] {
    char msg[256];
    return normgradSimSelfCheck(msg, sizeof(msg));
  });
  using JsonFn = const char* (*)();
  const struct {
    const char* api;
    JsonFn fn;
  } strings[] = {{"normgradSimGetSoc", normgradSimGetSoc},
                 {"normgradSimSocsJson", normgradSimSocsJson},
                 {"normgradSimLastRunJson", normgradSimLastRunJson},
                 {"normgradGraphOpsJson", normgradGraphOpsJson},
                 {"normgradOpDefsJson", normgradOpDefsJson}};
  for (const auto& s : strings) {
    EveryAllocationFailsStatus(s.api, [&] { return s.fn() != nullptr ? 0 : 1; });
  }
}

// Both phases of an operator, every allocation of each failing in turn. prepare(&exec) is the
// first phase, execute(exec) the second (its workspace allocated by the caller).
template <typename Prepare, typename Execute>
void BothPhases(const char* prepareApi, const char* executeApi, Prepare prepare, Execute execute) {
  aclOpExecutor* exec = nullptr;
  EveryAllocationFails(
      [] {}, [&] { return prepare(&exec); },
      [&](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage(prepareApi);
        if (!failed) {
          EXPECT_EQ(st, 0) << aclGetRecentErrMsg();
        }
      },
      [&](int st) {
        if (st == 0) {
          EXPECT_EQ(execute(exec), 0) << aclGetRecentErrMsg();  // runs and frees it
        }
      });
  // A new executor each time: every execute call spends its executor.
  EveryAllocationFails(
      [&] { ASSERT_EQ(prepare(&exec), 0) << aclGetRecentErrMsg(); }, [&] { return execute(exec); },
      [&](int st, bool failed) {
        if (st != 0) ExpectOutOfMemoryMessage(executeApi);
        if (!failed) {
          EXPECT_EQ(st, 0) << aclGetRecentErrMsg();
        }
      },
      [](int) {});
}

TEST_F(AllocationFailures, GroupNormBackward) {
  schema_test::GroupNormCall call;
  ASSERT_EQ(aclnnGroupNormBackward(call.ws, call.wsBytes, call.Prepare(), nullptr), 0) << aclGetRecentErrMsg();
  BothPhases(
      "aclnnGroupNormBackwardGetWorkspaceSize", "aclnnGroupNormBackward",
      [&](aclOpExecutor** exec) { return call.GetWorkspaceSize(exec); },
      [&](aclOpExecutor* exec) { return aclnnGroupNormBackward(call.ws, call.wsBytes, exec, nullptr); });
}

TEST_F(AllocationFailures, LayerNormBackward) {
  using schema_test::ZeroTensor;
  ZeroTensor dy{{2, 8}, ACL_FLOAT}, x{{2, 8}, ACL_FLOAT}, mean{{2, 1}, ACL_FLOAT}, rstd{{2, 1}, ACL_FLOAT};
  ZeroTensor gamma{{8}, ACL_FLOAT}, dx{{2, 8}, ACL_FLOAT}, dgamma{{8}, ACL_FLOAT}, dbeta{{8}, ACL_FLOAT};
  int64_t dims[] = {8};
  bool maskData[] = {true, true, true};
  aclIntArray* shape = aclCreateIntArray(dims, 1);
  aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
  uint64_t wsBytes = 0;
  void* ws = nullptr;
  auto prepare = [&](aclOpExecutor** exec) {
    return aclnnLayerNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, shape, mean.tensor, rstd.tensor, gamma.tensor,
                                                  nullptr, mask, dx.tensor, dgamma.tensor, dbeta.tensor, &wsBytes,
                                                  exec);
  };
  aclOpExecutor* first = nullptr;
  ASSERT_EQ(prepare(&first), 0) << aclGetRecentErrMsg();
  if (wsBytes > 0) aclrtMalloc(&ws, wsBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  ASSERT_EQ(aclnnLayerNormBackward(ws, wsBytes, first, nullptr), 0) << aclGetRecentErrMsg();
  BothPhases("aclnnLayerNormBackwardGetWorkspaceSize", "aclnnLayerNormBackward", prepare,
             [&](aclOpExecutor* exec) { return aclnnLayerNormBackward(ws, wsBytes, exec, nullptr); });
  if (ws != nullptr) aclrtFree(ws);
  aclDestroyIntArray(shape);
  aclDestroyBoolArray(mask);
}

TEST_F(AllocationFailures, BatchNormElemtBackward) {
  using schema_test::ZeroTensor;
  ZeroTensor dy{{2, 3, 4}, ACL_FLOAT}, x{{2, 3, 4}, ACL_FLOAT}, dx{{2, 3, 4}, ACL_FLOAT};
  ZeroTensor mean{{3}, ACL_FLOAT}, invstd{{3}, ACL_FLOAT}, weight{{3}, ACL_FLOAT};
  ZeroTensor sumDy{{3}, ACL_FLOAT}, sumDyXmu{{3}, ACL_FLOAT}, counter{{1}, ACL_INT32};
  const int32_t count = 8;  // the statistics' element count over every rank
  ASSERT_EQ(aclrtMemcpy(counter.data, 4, &count, 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  uint64_t wsBytes = 0;
  void* ws = nullptr;
  auto prepare = [&](aclOpExecutor** exec) {
    return aclnnBatchNormElemtBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, invstd.tensor, weight.tensor,
                                                       sumDy.tensor, sumDyXmu.tensor, counter.tensor, dx.tensor,
                                                       &wsBytes, exec);
  };
  aclOpExecutor* first = nullptr;
  ASSERT_EQ(prepare(&first), 0) << aclGetRecentErrMsg();
  if (wsBytes > 0) aclrtMalloc(&ws, wsBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  ASSERT_EQ(aclnnBatchNormElemtBackward(ws, wsBytes, first, nullptr), 0) << aclGetRecentErrMsg();
  BothPhases("aclnnBatchNormElemtBackwardGetWorkspaceSize", "aclnnBatchNormElemtBackward", prepare,
             [&](aclOpExecutor* exec) { return aclnnBatchNormElemtBackward(ws, wsBytes, exec, nullptr); });
  if (ws != nullptr) aclrtFree(ws);
}

}  // namespace
