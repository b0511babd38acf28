// Kernel entry: tiling-data macros, TILING_KEY_IS, kernel types, core identity, workspace.
#include "runtime_test_util.h"

#include <cstddef>
#include <memory>

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

namespace {

struct DemoTiling {
  uint32_t rows;
  uint32_t cols;
  uint64_t totalBytes;
  float eps;
};

// A device copy of a tiling struct, as aclnn and ICPU_RUN_KF hand it to the kernel.
GmBuf<uint8_t>* DeviceTiling(const DemoTiling& t) {
  auto* g = new GmBuf<uint8_t>(sizeof(DemoTiling));
  std::memcpy(g->data(), &t, sizeof(t));
  return g;
}

}  // namespace

TEST(Entry, GetTilingDataForms) {
  DemoTiling host{3, 640, 123456789012ull, 1e-5f};
  std::unique_ptr<GmBuf<uint8_t>> dev(DeviceTiling(host));
  GM_ADDR tiling = dev->data();
  DemoTiling a{}, b{};
  uint32_t cols = 0;
  auto r = Run1([&] {
    GET_TILING_DATA_WITH_STRUCT(DemoTiling, t1, tiling);
    a = t1;
    REGISTER_TILING_DEFAULT(DemoTiling);
    GET_TILING_DATA(t2, tiling);
    b = t2;
    GET_TILING_DATA_MEMBER(DemoTiling, cols, c, tiling);
    cols = c;
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(std::memcmp(&a, &host, sizeof(host)), 0);
  EXPECT_EQ(std::memcmp(&b, &host, sizeof(host)), 0);
  EXPECT_EQ(cols, 640u);
}

TEST(Entry, TilingOutsideGmOrNullFails) {
  // A 12-byte device tiling for a 24-byte struct: the host and kernel structs disagree.
  GmBuf<uint8_t> shortTiling(12);
  GM_ADDR p = shortTiling.data();
  EXPECT_LAUNCH_ERROR(Run1([&] { GET_TILING_DATA_WITH_STRUCT(DemoTiling, t, p); }),
                      "core 0: GET_TILING_DATA_WITH_STRUCT: global-memory read of 24 bytes");
  EXPECT_LAUNCH_ERROR(Run1([] { GET_TILING_DATA_WITH_STRUCT(DemoTiling, t, nullptr); }),
                      "GET_TILING_DATA_WITH_STRUCT: the tiling pointer is null");
}

TEST(Entry, TilingKeySelectsTheBranch) {
  int taken = -1;
  for (uint64_t key : {10u, 20u, 30u}) {
    g_tilingKey = key;
    auto r = Run1([&] {
      if (TILING_KEY_IS(10)) {
        taken = 1;
      } else if (TILING_KEY_IS(20)) {
        taken = 2;
      } else {
        taken = 0;
      }
    });
    EXPECT_LAUNCH_OK(r);
    EXPECT_EQ(taken, key == 10 ? 1 : key == 20 ? 2 : 0);
  }
  g_tilingKey = 0;
}

TEST(Entry, KernelTypeIsRecorded) {
  auto r = Run1([] { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY); });
  EXPECT_EQ(r.kernelType, KERNEL_TYPE_AIV_ONLY);
  EXPECT_EQ(Run1([] {}).kernelType, -1);
  // The key-specific type wins over the default whichever comes first.
  g_tilingKey = 5;
  r = Run1([] {
    KERNEL_TASK_TYPE(5, KERNEL_TYPE_MIX_AIV_1_0);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KERNEL_TASK_TYPE(6, KERNEL_TYPE_VECTORCORE);
  });
  g_tilingKey = 0;
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(r.kernelType, KERNEL_TYPE_MIX_AIV_1_0);
}

TEST(Entry, CubeKernelTypesAreNotSimulated) {
  EXPECT_LAUNCH_ERROR(Run1([] { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2); }),
                      "KERNEL_TASK_TYPE_DEFAULT: KERNEL_TYPE_MIX_AIC_1_2 runs cube cores");
}

TEST(Entry, CoreIdentity) {
  GmBuf<int64_t> out(4 * 5, -1);
  auto r = RunOn("ascend910b", 4, [&] {
    int64_t* o = out.data() + GetBlockIdx() * 5;
    o[0] = GetBlockIdx();
    o[1] = GetBlockNum();
    o[2] = GetTaskRatio();
    o[3] = GetSubBlockIdx();
    o[4] = GetSubBlockNum();
  });
  EXPECT_LAUNCH_OK(r);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i * 5 + 0], i);
    EXPECT_EQ(out[i * 5 + 1], 4);
    EXPECT_EQ(out[i * 5 + 2], 1);
    EXPECT_EQ(out[i * 5 + 3], 0);
    EXPECT_EQ(out[i * 5 + 4], 1);
  }
}

TEST(Entry, UserWorkspaceIsTheKernelArgument) {
  GmBuf<uint8_t> ws(64);
  GM_ADDR got = nullptr;
  EXPECT_LAUNCH_OK(Run1([&] { got = GetUserWorkspace(ws.data()); }));
  EXPECT_EQ(got, ws.data());
  EXPECT_LAUNCH_ERROR(Run1([] { GetUserWorkspace(nullptr); }), "GetUserWorkspace: the workspace pointer is null");
}
