// Each operator's tiling states how much UB its kernel allocates; the simulator records the
// highest UB byte each core's TPipe reached (LaunchReport::cores[i].ubPeakBytes). The two are
// written separately (the tiling's formula, the kernel's InitBuffer calls), so these tests run
// one case per tiling mode and check that the launch's peak equals the tiling's figure.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "group_norm_grad_tiling.h"
#include "layer_norm_grad_tiling.h"
#include "schema_test_util.h"

namespace {

using namespace normgrad;  // NOLINT: the tiling vocabulary under test
using schema_test::ZeroTensor;

class UbPeak : public testing::Test {
 protected:
  static void SetUpTestSuite() { aclInit(nullptr); }
  void TearDown() override { sim::SetCurrentSoc("ascend910b"); }
};

// Runs an executor with a workspace of its size; returns the largest core UB peak of each launch.
std::vector<uint64_t> Execute(aclnnStatus prepared, uint64_t wsBytes, aclOpExecutor* exec,
                              aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  EXPECT_EQ(prepared, ACL_SUCCESS);
  if (prepared != ACL_SUCCESS) return {};
  void* ws = nullptr;
  if (wsBytes > 0) aclrtMalloc(&ws, wsBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(run(ws, wsBytes, exec, nullptr), ACL_SUCCESS);
  if (ws != nullptr) aclrtFree(ws);
  std::vector<uint64_t> peaks;
  for (const sim::LaunchReport& r : sim::RunLog()) {
    EXPECT_TRUE(r.ok) << r.error;
    uint64_t peak = 0;
    for (const sim::CoreCounters& c : r.cores) peak = std::max(peak, c.ubPeakBytes);
    peaks.push_back(peak);
  }
  return peaks;
}

// ---- GroupNorm backward ----

struct GnCase {
  const char* soc;
  int64_t n, c, hw, g;
  aclDataType acl;
  KernelDtype dtype;
  bool needDx;
  GroupNormGradMode mode;
};

// The launch's peak equals the tiling's figure: the mode's largest phase layout.
void CheckGroupNorm(const GnCase& k) {
  ASSERT_TRUE(sim::SetCurrentSoc(k.soc));
  const sim::SocProfile& soc = sim::CurrentSoc();
  normgrad::GroupNormGradRequest req;
  req.n = k.n;
  req.c = k.c;
  req.hw = k.hw;
  req.group = k.g;
  req.dtype = k.dtype;
  req.needDx = k.needDx;
  GroupNormGradTiling t{};
  const SocFeatures chip = MakeSocFeatures(static_cast<uint32_t>(soc.aivCores), soc.ubBytes, !soc.hasDataCopyPad);
  ASSERT_EQ(normgrad::GroupNormGradTilingFor(req, chip, &t), "");
  ASSERT_EQ(t.mode, k.mode) << "the case no longer reaches the mode it stands for";
  ZeroTensor dy({k.n, k.c, k.hw}, k.acl), x({k.n, k.c, k.hw}, k.acl), dx({k.n, k.c, k.hw}, k.acl);
  ZeroTensor mean({k.n, k.g}, k.acl), rstd({k.n, k.g}, k.acl), gamma({k.c}, k.acl), dg({k.c}, k.acl),
      db({k.c}, k.acl);
  bool mask[3] = {k.needDx, true, true};
  aclBoolArray* maskArr = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnGroupNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, rstd.tensor, gamma.tensor,
                                                          k.n, k.c, k.hw, k.g, maskArr, dx.tensor, dg.tensor,
                                                          db.tensor, &ws, &exec);
  std::vector<uint64_t> peaks = Execute(st, ws, exec, aclnnGroupNormBackward);
  aclDestroyBoolArray(maskArr);
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_EQ(peaks[0], t.ubBytesUsed) << "mode " << t.mode << " on " << k.soc << ": kernel peak - tiling figure = "
                                     << static_cast<int64_t>(peaks[0]) - static_cast<int64_t>(t.ubBytesUsed)
                                     << " (tiling's phases: whole " << normgrad::GroupNormGradWholeUbBytes(t)
                                     << ", split " << normgrad::GroupNormGradSplitUbBytes(t) << ", param "
                                     << normgrad::GroupNormGradParamUbBytes(t) << ")";
}

TEST_F(UbPeak, GroupNormEveryMode) {
  const GnCase cases[] = {
      {"ascend910b", 3, 256, 1024, 16, ACL_FLOAT16, kDtypeFloat16, true, kGngWholeGroup},
      {"ascend910b", 2, 1280, 32 * 32, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngWholeGroupSplit},
      {"ascend910b", 2, 320, 32 * 32, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngRereadGroups},  // 8192 chunks
      {"ascend910b", 1, 16, 3000, 2, ACL_FLOAT, kDtypeFloat32, true, kGngSplitGroup},
      {"ascend910b", 1, 16, 512 * 512, 1, ACL_FLOAT, kDtypeFloat32, true, kGngTwoPass},
      // Re-read groups: core k owns group k (two passes; runs of groups), balanced runs.
      {"ascend910b", 2, 320, 64 * 64, 32, ACL_FLOAT, kDtypeFloat32, true, kGngRereadGroups},
      {"ascend910b", 4, 256, 1024, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngRereadGroups},
      {"ascend910b", 1, 600, 9000, 100, ACL_FLOAT, kDtypeFloat32, true, kGngRereadGroups},
      {"ascend910b", 8, 128, 3136, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngRereadGroups},  // split phase
      {"ascend910b", 2, 320, 64 * 64, 32, ACL_FLOAT16, kDtypeFloat16, false, kGngParamsOnly},
      {"ascend910b", 2, 640, 256, 32, ACL_FLOAT, kDtypeFloat32, true, kGngChannelSlab},  // whole groups
      {"ascend910b", 8, 96, 256, 8, ACL_FLOAT16, kDtypeFloat16, true, kGngChannelSlab},   // spread
      {"ascend910b", 8, 512, 49, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngChannelSlab},  // gamma blocks
      {"ascend910b", 16, 64, 1, 8, ACL_FLOAT, kDtypeFloat32, true, kGngSampleRows},
  };
  for (const GnCase& k : cases) {
    SCOPED_TRACE(std::string(k.soc) + " " + std::to_string(k.n) + "x" + std::to_string(k.c) + "x" +
                 std::to_string(k.hw) + " g" + std::to_string(k.g));
    CheckGroupNorm(k);
  }
}

// The training series (whole-block copies, soft SyncAll through the workspace).
TEST_F(UbPeak, GroupNormEveryModeOnBlockCopySocs) {
  const GnCase cases[] = {
      {"ascend910", 2, 320, 64 * 64, 32, ACL_FLOAT16, kDtypeFloat16, true, kGngWholeGroup},
      {"ascend910", 16, 64, 1, 8, ACL_FLOAT, kDtypeFloat32, true, kGngWholeGroup},  // dense dx on one core
      {"ascend910", 2, 360, 64 * 64, 36, ACL_FLOAT16, kDtypeFloat16, true, kGngWholeGroupSplit},
      {"ascend910", 8, 256, 100 * 152, 32, ACL_FLOAT, kDtypeFloat32, true, kGngSplitGroup},
      {"ascend910", 1, 16, 512 * 512, 1, ACL_FLOAT, kDtypeFloat32, true, kGngTwoPass},
      {"ascend910", 2, 320, 64 * 64, 32, ACL_FLOAT16, kDtypeFloat16, false, kGngParamsOnly},
  };
  for (const GnCase& k : cases) {
    SCOPED_TRACE(std::string(k.soc) + " " + std::to_string(k.n) + "x" + std::to_string(k.c) + "x" +
                 std::to_string(k.hw) + " g" + std::to_string(k.g));
    CheckGroupNorm(k);
  }
}

// ---- LayerNorm backward ----

struct LnCase {
  const char* soc;
  int64_t rows, cols;
  aclDataType acl;
  KernelDtype dtype;
  LayerNormGradMode mode;
};

void CheckLayerNorm(const LnCase& k) {
  ASSERT_TRUE(sim::SetCurrentSoc(k.soc));
  const sim::SocProfile& soc = sim::CurrentSoc();
  LayerNormGradTilingInput in{static_cast<uint64_t>(k.rows), static_cast<uint64_t>(k.cols), k.dtype, k.dtype, k.dtype,
                              true, true, true, true};
  SocFeatures chip = MakeSocFeatures(static_cast<uint32_t>(soc.aivCores), soc.ubBytes, false);
  chip.hasHardSyncAll = soc.hasHardSyncAll;
  chip.hasBrcb = soc.hasBrcb;
  chip.hasDataCopyPad = soc.hasDataCopyPad;
  LayerNormGradTilingResult t = LayerNormGradComputeTiling(in, chip);
  ASSERT_TRUE(t.ok) << t.error;
  ASSERT_EQ(t.tiling.mode, k.mode) << "the case no longer reaches the mode it stands for";
  ZeroTensor dy({k.rows, k.cols}, k.acl), x({k.rows, k.cols}, k.acl), dx({k.rows, k.cols}, k.acl);
  ZeroTensor mean({k.rows, 1}, k.acl), rstd({k.rows, 1}, k.acl), gamma({k.cols}, k.acl), dg({k.cols}, k.acl),
      db({k.cols}, k.acl);
  int64_t norm[1] = {k.cols};
  bool mask[3] = {true, true, true};
  aclIntArray* normArr = aclCreateIntArray(norm, 1);
  aclBoolArray* maskArr = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnLayerNormBackwardGetWorkspaceSize(dy.tensor, x.tensor, normArr, mean.tensor, rstd.tensor,
                                                          gamma.tensor, nullptr, maskArr, dx.tensor, dg.tensor,
                                                          db.tensor, &ws, &exec);
  std::vector<uint64_t> peaks = Execute(st, ws, exec, aclnnLayerNormBackward);
  aclDestroyIntArray(normArr);
  aclDestroyBoolArray(maskArr);
  ASSERT_EQ(peaks.size(), 1u);
  // The main phase and, with several row ranges, the stage-2 reduction after it in the same kernel.
  uint64_t figure = t.tiling.mainUbBytes;
  if (t.tiling.rowRanges > 1) figure = std::max<uint64_t>(figure, LayerNormGradReduceUbBytes(t.tiling));
  EXPECT_EQ(peaks[0], figure) << "mode " << t.tiling.mode << " on " << k.soc
                              << ": kernel peak - tiling figure = "
                              << static_cast<int64_t>(peaks[0]) - static_cast<int64_t>(figure);
}

TEST_F(UbPeak, LayerNormEveryMode) {
  const LnCase cases[] = {
      {"ascend910b", 2048, 1024, ACL_FLOAT16, kDtypeFloat16, kLnWholeRows},
      {"ascend910b", 4096, 64, ACL_FLOAT, kDtypeFloat32, kLnShortRows},
      {"ascend910b", 7, 16384, ACL_BF16, kDtypeBfloat16, kLnRowSlices},
      {"ascend910b", 8, 262144 * 4, ACL_FLOAT, kDtypeFloat32, kLnTwoPass},
      {"ascend910", 2048, 1024, ACL_FLOAT16, kDtypeFloat16, kLnWholeRows},
      {"ascend910", 7, 16384, ACL_FLOAT, kDtypeFloat32, kLnRowSlices},
      {"ascend910", 5000, 7, ACL_FLOAT, kDtypeFloat32, kLnWholeRows},  // rows under one block: dense dx
  };
  for (const LnCase& k : cases) {
    SCOPED_TRACE(std::string(k.soc) + " " + std::to_string(k.rows) + "x" + std::to_string(k.cols));
    CheckLayerNorm(k);
  }
}

// ---- BatchNorm elemt backward ----

struct BnCase {
  const char* soc;
  int64_t n, c, hw;
  normgrad::BatchNormElemtGradMode mode;
  aclDataType dtype;  // dy, x and dx (16-bit ones add fp32 copies of dy and x to the layout)
};

void CheckBatchNorm(const BnCase& k) {
  ASSERT_TRUE(sim::SetCurrentSoc(k.soc));
  const sim::SocProfile& soc = sim::CurrentSoc();
  normgrad::BatchNormElemtGradProblem p;
  p.n = k.n;
  p.c = k.c;
  p.hw = k.hw;
  p.counterNumel = 2;
  p.counterDtype = normgrad::kDtypeInt32;
  p.dyDtype = p.xDtype = p.dxDtype = k.dtype == ACL_FLOAT16 ? normgrad::kDtypeFloat16 : normgrad::kDtypeFloat32;
  p.hasWeight = true;
  normgrad::BatchNormElemtGradTiling t{};
  const char* why = nullptr;
  ASSERT_TRUE(normgrad::BatchNormElemtGradTilingFor(
      p, normgrad::MakeSocFeatures(static_cast<uint32_t>(soc.aivCores), soc.ubBytes, !soc.hasDataCopyPad), &t, &why))
      << why;
  ASSERT_EQ(t.mode, k.mode) << "the case no longer reaches the mode it stands for";
  ZeroTensor dy({k.n, k.c, k.hw}, k.dtype), x({k.n, k.c, k.hw}, k.dtype), dx({k.n, k.c, k.hw}, k.dtype);
  ZeroTensor mean({k.c}, ACL_FLOAT), invstd({k.c}, ACL_FLOAT), weight({k.c}, ACL_FLOAT), sumDy({k.c}, ACL_FLOAT),
      sumDyXmu({k.c}, ACL_FLOAT), counter({2}, ACL_INT32);
  const int32_t counts[2] = {3, 4};  // the execute phase refuses counts that sum to 0
  aclrtMemcpy(counter.data, sizeof(counts), counts, sizeof(counts), ACL_MEMCPY_HOST_TO_DEVICE);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  aclnnStatus st = aclnnBatchNormElemtBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean.tensor, invstd.tensor,
                                                               weight.tensor, sumDy.tensor, sumDyXmu.tensor,
                                                               counter.tensor, dx.tensor, &ws, &exec);
  std::vector<uint64_t> peaks = Execute(st, ws, exec, aclnnBatchNormElemtBackward);
  ASSERT_EQ(peaks.size(), 1u);
  uint64_t figure = normgrad::BatchNormElemtGradUbBytes(t);
  EXPECT_EQ(peaks[0], figure) << "mode " << t.mode << " on " << k.soc << ": kernel peak - tiling figure = "
                              << static_cast<int64_t>(peaks[0]) - static_cast<int64_t>(figure);
}

TEST_F(UbPeak, BatchNormElemtEveryMode) {
  const BnCase cases[] = {
      {"ascend910b", 32, 256, 56 * 56, normgrad::kBnElemtRowScalars, ACL_FLOAT},
      {"ascend910b", 32, 2048, 7 * 7, normgrad::kBnElemtChannelSlabs, ACL_FLOAT},
      {"ascend910b", 32, 256, 56 * 56, normgrad::kBnElemtRowScalars, ACL_FLOAT16},
      {"ascend910b", 32, 2048, 7 * 7, normgrad::kBnElemtChannelSlabs, ACL_FLOAT16},
      {"ascend910b", 4, 2048, 7 * 7, normgrad::kBnElemtChannelRows, ACL_FLOAT16},
      {"ascend910b", 4, 7000, 3 * 3, normgrad::kBnElemtChannelRows, ACL_FLOAT},
  };
  for (const BnCase& k : cases) {
    SCOPED_TRACE(std::string(k.soc) + " " + std::to_string(k.n) + "x" + std::to_string(k.c) + "x" +
                 std::to_string(k.hw));
    CheckBatchNorm(k);
  }
}

}  // namespace
