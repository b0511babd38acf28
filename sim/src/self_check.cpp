// The simulator's self-check: a small multi-core Ascend C kernel that exercises the runtime end
// to end (TPipe/TQue double buffering, DataCopy, DataCopyPad tails, Cast, Muls, Add, ReduceSum,
// SyncAll and a cross-core combine) and compares it bit for bit with a host computation.
// Inputs are small integers, so every float result (z and the sums) is exact in any order.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ascendc/cost.h"
#include "kernel_operator.h"
#include "self_check.h"

namespace {

using namespace AscendC;

constexpr int kBufferNum = 2;       // double buffering
constexpr uint32_t kTileElems = 256;
constexpr int kBlockDim = 4;

struct SelfCheckTiling {
  uint32_t elemsPerCore;
  uint32_t usePad;       // DataCopyPad for unaligned tails (A2/A3); 0 on Atlas training
  uint32_t useHardSync;  // hardware SyncAll (A2/A3); else the soft GM barrier
};

// z = Cast(x) + y * 0.5 per element; partial[core] = sum(z); total = sum(partial) on core 0.
class SelfCheckKernel {
 public:
  void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR total, GM_ADDR workspace, const SelfCheckTiling& t) {
    tiling_ = t;
    uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * t.elemsPerCore;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + start, t.elemsPerCore);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + start, t.elemsPerCore);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + start, t.elemsPerCore);
    totalGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(total), 8);
    partialGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(workspace), GetBlockNum() * 8);
    syncGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(workspace) + GetBlockNum() * 8, GetBlockNum() * 8);
    pipe_.InitBuffer(xQue_, kBufferNum, kTileElems * sizeof(half));
    pipe_.InitBuffer(yQue_, kBufferNum, kTileElems * sizeof(float));
    pipe_.InitBuffer(zQue_, kBufferNum, kTileElems * sizeof(float));
    pipe_.InitBuffer(xFloatBuf_, kTileElems * sizeof(float));
    pipe_.InitBuffer(sumBuf_, 32);
    pipe_.InitBuffer(slotBuf_, 32);
    pipe_.InitBuffer(combineBuf_, GetBlockNum() * 32);
    pipe_.InitBuffer(syncUbBuf_, GetBlockNum() * 32);
  }

  void Process() {
    float coreSum = 0;
    for (uint32_t done = 0; done < tiling_.elemsPerCore; done += kTileElems) {
      uint32_t n = tiling_.elemsPerCore - done < kTileElems ? tiling_.elemsPerCore - done : kTileElems;
      CopyIn(done, n);
      coreSum += Compute(n);
      CopyOut(done, n);
    }
    PublishPartial(coreSum);
    if (tiling_.useHardSync) {
      SyncAll();
    } else {
      SyncAll(syncGm_, syncUbBuf_.Get<int32_t>());
    }
    if (GetBlockIdx() == 0) Combine();
  }

 private:
  void CopyIn(uint32_t offset, uint32_t n) {
    LocalTensor<half> x = xQue_.AllocTensor<half>();
    LocalTensor<float> y = yQue_.AllocTensor<float>();
    if (tiling_.usePad) {
      DataCopyPad(x, xGm_[offset], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0), DataCopyPadExtParams<half>());
      DataCopyPad(y, yGm_[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>());
    } else {
      DataCopy(x, xGm_[offset], n);
      DataCopy(y, yGm_[offset], n);
    }
    xQue_.EnQue(x);
    yQue_.EnQue(y);
  }

  float Compute(uint32_t n) {
    LocalTensor<half> x = xQue_.DeQue<half>();
    LocalTensor<float> y = yQue_.DeQue<float>();
    LocalTensor<float> z = zQue_.AllocTensor<float>();
    LocalTensor<float> xFloat = xFloatBuf_.Get<float>();
    LocalTensor<float> sum = sumBuf_.Get<float>();
    Cast(xFloat, x, RoundMode::CAST_NONE, n);
    Muls(z, y, 0.5f, n);
    Add(z, z, xFloat, n);
    ReduceSum(sum, z, sum, n);  // count form: the scalar read below is synchronised by the API
    float tileSum = sum.GetValue(0);
    zQue_.EnQue(z);
    xQue_.FreeTensor(x);
    yQue_.FreeTensor(y);
    return tileSum;
  }

  void CopyOut(uint32_t offset, uint32_t n) {
    LocalTensor<float> z = zQue_.DeQue<float>();
    if (tiling_.usePad) {
      DataCopyPad(zGm_[offset], z, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
    } else {
      DataCopy(zGm_[offset], z, n);
    }
    zQue_.FreeTensor(z);
  }

  // One 32-byte slot per core, [sum, 0, ..., 0], so core 0 can reduce all slots at once.
  void PublishPartial(float coreSum) {
    LocalTensor<float> slot = slotBuf_.Get<float>();
    for (uint32_t i = 0; i < 8; ++i) slot.SetValue(i, i == 0 ? coreSum : 0.0f);
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    DataCopy(partialGm_[GetBlockIdx() * 8], slot, 8);
  }

  void Combine() {
    LocalTensor<float> slots = combineBuf_.Get<float>();
    LocalTensor<float> result = slotBuf_.Get<float>();
    uint32_t count = static_cast<uint32_t>(GetBlockNum()) * 8;
    DataCopy(slots, partialGm_, count);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    ReduceSum(result, slots, slots, count);
    float total = result.GetValue(0);
    for (uint32_t i = 0; i < 8; ++i) result.SetValue(i, i == 0 ? total : 0.0f);
    SetFlag<HardEvent::S_MTE3>(0);
    WaitFlag<HardEvent::S_MTE3>(0);
    DataCopy(totalGm_, result, 8);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> xQue_;
  TQue<TPosition::VECIN, kBufferNum> yQue_;
  TQue<TPosition::VECOUT, kBufferNum> zQue_;
  TBuf<TPosition::VECCALC> xFloatBuf_, sumBuf_, slotBuf_, combineBuf_, syncUbBuf_;
  GlobalTensor<half> xGm_;
  GlobalTensor<float> yGm_, zGm_, totalGm_, partialGm_;
  GlobalTensor<int32_t> syncGm_;
  SelfCheckTiling tiling_{};
};

extern "C" __global__ __aicore__ void normgrad_self_check(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR total,
                                                          GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(SelfCheckTiling, t, tiling);
  if (t.useHardSync) KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
  SelfCheckKernel op;
  op.Init(x, y, z, total, GetUserWorkspace(workspace), t);
  op.Process();
}

// Device buffers for one run, freed on every path.
struct DeviceBuffers {
  std::vector<void*> ptrs;
  ~DeviceBuffers() {
    for (void* p : ptrs) aclrtFree(p);
  }
  uint8_t* Alloc(size_t bytes, std::string* error) {
    ptrs.reserve(ptrs.size() + 1);  // before the block: the push_back below cannot throw
    void* p = nullptr;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      *error = aclGetRecentErrMsg();
      return nullptr;
    }
    ptrs.push_back(p);
    return static_cast<uint8_t*>(p);
  }
};

bool Upload(uint8_t* dev, const void* host, size_t bytes, std::string* error) {
  if (aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS) return true;
  *error = aclGetRecentErrMsg();
  return false;
}

bool Download(void* host, const uint8_t* dev, size_t bytes, std::string* error) {
  if (aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS) return true;
  *error = aclGetRecentErrMsg();
  return false;
}

}  // namespace

namespace normgrad_sim {

int RunSelfCheck(std::string* message) {
  const sim::SocProfile& soc = sim::CurrentSoc();
  const int cores = sim::EffectiveSoc(soc).aivCores;  // the what-if aiv_cores may cap them
  const int blockDim = kBlockDim < cores ? kBlockDim : cores;
  // 1003 elements per core leave an unaligned tail (235 elements) that needs DataCopyPad.
  SelfCheckTiling tiling{soc.hasDataCopyPad ? 1003u : 1024u, soc.hasDataCopyPad ? 1u : 0u,
                         soc.hasHardSyncAll ? 1u : 0u};
  const size_t n = static_cast<size_t>(blockDim) * tiling.elemsPerCore;
  std::vector<half> x(n);
  std::vector<float> y(n), want(n);
  double wantTotal = 0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = half(static_cast<float>(i * 7 % 17));                         // 0..16, exact in half
    y[i] = static_cast<float>(static_cast<int>(i * 5 % 33) - 16) * 2;   // even: y * 0.5 is exact
    want[i] = static_cast<float>(x[i]) + y[i] * 0.5f;
    wantTotal += want[i];
  }
  std::string error;
  DeviceBuffers dev;
  const size_t wsBytes = static_cast<size_t>(blockDim) * 64;  // partial slots + soft-sync slots
  uint8_t* dx = dev.Alloc(n * sizeof(half), &error);
  uint8_t* dy = dx ? dev.Alloc(n * sizeof(float), &error) : nullptr;
  uint8_t* dz = dy ? dev.Alloc(n * sizeof(float), &error) : nullptr;
  uint8_t* dtotal = dz ? dev.Alloc(32, &error) : nullptr;
  uint8_t* dws = dtotal ? dev.Alloc(wsBytes, &error) : nullptr;
  uint8_t* dtiling = dws ? dev.Alloc(sizeof(tiling), &error) : nullptr;
  if (dtiling == nullptr || !Upload(dx, x.data(), n * sizeof(half), &error) ||
      !Upload(dy, y.data(), n * sizeof(float), &error) || !Upload(dtiling, &tiling, sizeof(tiling), &error) ||
      aclrtMemset(dws, wsBytes, 0, wsBytes) != ACL_SUCCESS) {
    *message = "self-check setup failed: " + (error.empty() ? std::string(aclGetRecentErrMsg()) : error);
    return 2;
  }
  sim::ClearRunLog();
  sim::LaunchReport report = sim::Launch("normgrad_self_check", blockDim, [&]() {
    normgrad_self_check(dx, dy, dz, dtotal, dws, dtiling);
  });
  if (!report.ok) {
    *message = std::string("self-check kernel failed on ") + soc.name + ": " + report.error;
    return 3;
  }
  std::vector<float> got(n);
  float gotTotal = 0;
  if (!Download(got.data(), dz, n * sizeof(float), &error) || !Download(&gotTotal, dtotal, sizeof(float), &error)) {
    *message = "self-check readback failed: " + error;
    return 2;
  }
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "self-check on %s: z[%zu] = %.9g, expected %.9g", soc.name, i, got[i], want[i]);
      *message = buf;
      return 4;
    }
  }
  if (gotTotal != static_cast<float>(wantTotal)) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "self-check on %s: cross-core total = %.9g, expected %.9g", soc.name, gotTotal,
                  wantTotal);
    *message = buf;
    return 4;
  }
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "self-check passed on %s: %d cores x %u elements, %s tails, %s SyncAll, total %.0f, modeled %.2f us",
                soc.name, blockDim, tiling.elemsPerCore, tiling.usePad ? "DataCopyPad" : "aligned DataCopy",
                tiling.useHardSync ? "hard" : "soft", wantTotal, sim::ModelLaunch(report).totalUs);
  *message = buf;
  if (!report.warnings.empty()) *message += " (warning: " + report.warnings.front() + ")";
  return 0;
}

}  // namespace normgrad_sim
