// CrossCoreSetFlag/CrossCoreWaitFlag, IBSet/IBWait and InitDetermineComputeWorkspace/WaitPreBlock/
// NotifyNextBlock on the launch's shared state (core_runtime.h): real blocking, deadlock errors,
// vector-clock edges for the race detector.
#include "ascendc/cross_core_sync.h"

#include <cstring>
#include <string>

#include "ascendc/cost.h"
#include "ascendc/entry.h"
#include "ascendc/hazard.h"
#include "ascendc/pipe.h"
#include "ascendc/race.h"
#include "core_runtime.h"

namespace sim {
namespace xcore {
namespace {

// A2/A3: flag ids 0-10 are the kernel's, 11-14 belong to SyncAll (and the cube handshakes).
constexpr int kMaxUserFlagId = 10;
constexpr int kFirstSyncAllFlagId = 11;
constexpr int kLastSyncAllFlagId = 14;
// "The counter of one flagId can be set at most 15 times" (before a wait takes one back).
constexpr uint32_t kMaxPendingSets = 15;
constexpr uint32_t kSlotBytes = 32;  // one GM flag per 32-byte block
constexpr uint32_t kSlotInts = kSlotBytes / sizeof(int32_t);

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

void NewSegment(CoreContext& c, LaunchBarrier& b) {
  if (c.races != nullptr) c.races->NewSegment(b.Clock(c.blockIdx));
}

// The APIs start and end with PipeBarrier<PIPE_ALL>: the hazard tracker orders every pipe and the
// cost model charges the drain's pipeline refill, as for SyncAll.
void FullBarrier(CoreContext& c) {
  if (c.hazards != nullptr) c.hazards->FullBarrier();
  NoteFullDrain(c);
}

int32_t Load(const int32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void Store(int32_t* p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

void CheckFlagMode(const char* api, CoreContext& c, int mode, int flagId) {
  CoreRuntime& rt = Runtime();
  if (!c.soc->hasHardSyncAll) Fail(api, "inter-core hardware flags do not exist on %s", c.soc->name);
  if (rt.kernelType != KERNEL_TYPE_MIX_AIV_1_0) {
    Fail(api, "needs KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0); this kernel is %s, for which the "
         "hardware does not run inter-core sync", KernelTypeName(rt.kernelType));
  }
  if (mode != 0) {
    Fail(api, "mode %d synchronises the cores inside one AI Core (with the cube core or the sibling vector core), "
         "which a MIX_AIV_1_0 vector kernel does not run; mode 0 synchronises all vector cores", mode);
  }
  if (flagId >= kFirstSyncAllFlagId && flagId <= kLastSyncAllFlagId) {
    Fail(api, "flag id %d is used by SyncAll (ids %d-%d); kernels use 0-%d", flagId, kFirstSyncAllFlagId,
         kLastSyncAllFlagId, kMaxUserFlagId);
  }
  if (flagId < 0 || flagId > kMaxUserFlagId) Fail(api, "flag id %d is outside [0, %d] on %s", flagId, kMaxUserFlagId, c.soc->name);
}

bool IsVectorPipe(int pipe) { return pipe == PIPE_V || pipe == PIPE_MTE2 || pipe == PIPE_MTE3; }

std::vector<uint32_t>& PerCore(std::map<int, std::vector<uint32_t>>& m, int flagId, int blockDim) {
  std::vector<uint32_t>& v = m[flagId];
  if (v.empty()) v.assign(static_cast<size_t>(blockDim), 0);
  return v;
}

// The GM workspace and UB scratch of the GM-flag APIs; fails on the documented minimum sizes.
void CheckWorkspace(const char* api, const int32_t* gm, uint64_t gmElems, uint64_t gmNeed, uint32_t ubAddr,
                    uint32_t ubBytes, uint32_t ubNeed, const char* gmRule, const char* ubRule) {
  if (gm == nullptr) Fail(api, "gmWorkspace is null");
  if (gmElems != 0 && gmElems * sizeof(int32_t) < gmNeed) {
    Fail(api, "gmWorkspace has %llu bytes, needs %s = %llu", U(gmElems * sizeof(int32_t)), gmRule, U(gmNeed));
  }
  gm::CheckRange(api, gm, gmNeed, true);
  if (ubAddr % 32 != 0) Fail(api, "ubWorkspace UB address %u is not 32-byte aligned", ubAddr);
  if (ubBytes < ubNeed) Fail(api, "ubWorkspace has %u bytes, needs %s = %u", ubBytes, ubRule, ubNeed);
}

// WaitPreBlock/NotifyNextBlock exist on Atlas A2 only (not A3, not the training series).
void CheckChainSoc(const char* api, const CoreContext& c) {
  if (std::strcmp(c.soc->family, "ascend910b") != 0) Fail(api, "does not exist on %s (Atlas A2 only)", c.soc->name);
}

int32_t* RoundCounter(uint32_t ubAddr, int blockNum) {
  return reinterpret_cast<int32_t*>(UbPtr(ubAddr + static_cast<uint32_t>(blockNum) * kSlotBytes));
}

// What the three chain APIs check on entry (SoC, both workspaces) before their opening drain;
// returns the bytes of GM slots, one 32-byte slot per core.
uint32_t EnterChain(const char* api, CoreContext& c, const int32_t* gm, uint64_t gmElems, uint32_t ubAddr,
                    uint32_t ubBytes) {
  ThrowIfLaunchAborted();
  CheckChainSoc(api, c);
  const uint32_t need = static_cast<uint32_t>(c.blockNum) * kSlotBytes;
  CheckWorkspace(api, gm, gmElems, need, ubAddr, ubBytes, need + kSlotBytes, "GetBlockNum() * 32",
                 "GetBlockNum() * 32 + 32");
  FullBarrier(c);
  return need;
}

// The round InitDetermineComputeWorkspace started and NotifyNextBlock advances.
int32_t CurrentRound(const char* api, const CoreContext& c, uint32_t ubAddr) {
  const int32_t round = *RoundCounter(ubAddr, c.blockNum);
  if (round < 1 || round > (1 << 24)) {
    Fail(api, "the round counter in ubWorkspace holds %d: call InitDetermineComputeWorkspace first", round);
  }
  return round;
}

}  // namespace

void CrossCoreSetFlag(int mode, int pipe, int flagId) {
  const char* api = "CrossCoreSetFlag";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  CheckFlagMode(api, c, mode, flagId);
  if (!IsVectorPipe(pipe)) {
    Fail(api, "%s: the set is issued on PIPE_V, PIPE_MTE2 or PIPE_MTE3 (PIPE_S only on Ascend 950)", PipeName(pipe));
  }
  ++c.counters.syncs;
  LaunchBarrier& b = *Runtime().barrier;
  auto lock = b.Lock();
  std::vector<uint32_t>& sets = PerCore(b.flagSets, flagId, c.blockNum);
  std::vector<uint32_t>& waits = PerCore(b.flagWaits, flagId, c.blockNum);
  uint32_t k = sets[static_cast<size_t>(c.blockIdx)];
  if (k - waits[static_cast<size_t>(c.blockIdx)] >= kMaxPendingSets) {
    Fail(api, "flag id %d already holds %u sets this core has not waited for; a counter holds at most %u",
         flagId, kMaxPendingSets, kMaxPendingSets);
  }
  ++sets[static_cast<size_t>(c.blockIdx)];
  if (c.flagSetBusyUs.size() <= static_cast<size_t>(flagId)) c.flagSetBusyUs.resize(flagId + 1);
  c.flagSetBusyUs[flagId].push_back(CoreBusyUs(c.counters, c.costSoc));
  std::vector<LaunchBarrier::FlagRound>& rounds = b.flagRounds[flagId];
  if (rounds.size() <= k) rounds.resize(k + 1);
  b.Release(c.blockIdx, rounds[k].clock);
  if (++rounds[k].arrivals == c.blockNum) b.Changed();
  NewSegment(c, b);
}

void CrossCoreWaitFlag(int mode, int pipe, int flagId) {
  const char* api = "CrossCoreWaitFlag";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  CheckFlagMode(api, c, mode, flagId);
  if (pipe != PIPE_S && !IsVectorPipe(pipe)) {
    Fail(api, "%s is not a vector-core pipe (PIPE_S, PIPE_V, PIPE_MTE2 or PIPE_MTE3)", PipeName(pipe));
  }
  ++c.counters.crossCoreWaits;
  // The work since this core's own matching set hides that much of the barrier's latency (cost.h).
  std::vector<double>* setBusy =
      static_cast<size_t>(flagId) < c.flagSetBusyUs.size() ? &c.flagSetBusyUs[flagId] : nullptr;
  if (setBusy != nullptr && !setBusy->empty()) {
    c.counters.splitWaitOverlapUs.push_back(CoreBusyUs(c.counters, c.costSoc) - setBusy->front());
    setBusy->erase(setBusy->begin());
  }
  LaunchBarrier& b = *Runtime().barrier;
  auto lock = b.Lock();
  uint32_t k = PerCore(b.flagWaits, flagId, c.blockNum)[static_cast<size_t>(c.blockIdx)];
  std::string what = "CrossCoreWaitFlag(" + std::to_string(flagId) + ") #" + std::to_string(k + 1);
  b.WaitUntil(lock, c.blockIdx, what, [&] {
    const std::vector<LaunchBarrier::FlagRound>& rounds = b.flagRounds[flagId];
    return rounds.size() > k && rounds[k].arrivals == c.blockNum;
  });
  b.Acquire(c.blockIdx, b.flagRounds[flagId][k].clock);
  ++b.flagWaits[flagId][static_cast<size_t>(c.blockIdx)];
  NewSegment(c, b);
}

void IbSyncFlag(bool setFlag, bool isAivOnly, int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes,
                int32_t blockIdx, int32_t eventId) {
  const char* api = setFlag ? "IBSet" : "IBWait";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  if (!c.soc->hasHardSyncAll) Fail(api, "does not exist on %s (Atlas A2/A3 only)", c.soc->name);
  if (blockIdx < 0 || blockIdx >= c.blockNum) Fail(api, "blockIdx %d is outside [0, %d]", blockIdx, c.blockNum - 1);
  if (eventId < 0) Fail(api, "eventID %d is negative", eventId);
  // The slot layout of the device implementation: one 32-byte flag per (eventID, blockIdx), the
  // core count doubled when isAIVOnly is false (cube and vector cores).
  uint64_t cores = isAivOnly ? static_cast<uint64_t>(c.blockNum) : 2ull * c.blockNum;
  uint64_t slot = (cores * eventId + static_cast<uint64_t>(blockIdx)) * kSlotInts;
  CheckWorkspace(api, gm, gmElems, (slot + kSlotInts) * sizeof(int32_t), ubAddr, ubBytes, kSlotBytes,
                 "cores * 32 * eventID + blockIdx * 32 + 32", "32");
  FullBarrier(c);
  int32_t* flag = gm + slot;
  int32_t want = setFlag ? 0 : 1;
  if (setFlag) {
    ++c.counters.syncs;
  } else {
    ++c.counters.crossCoreWaits;
  }
  {
    LaunchBarrier& b = *Runtime().barrier;
    auto lock = b.Lock();
    std::string what = std::string(api) + "(blockIdx " + std::to_string(blockIdx) + ", eventID " +
                       std::to_string(eventId) + ")";
    b.WaitUntil(lock, c.blockIdx, what, [&] { return Load(flag) == want; });
    VectorClock& clock = b.gmFlagClocks[flag];
    b.Acquire(c.blockIdx, clock);  // the core that last flipped the flag
    Store(flag, 1 - want);
    b.Release(c.blockIdx, clock);
    b.Changed();
    NewSegment(c, b);
  }
  int32_t value = 1 - want;  // the device code leaves the value it wrote in ubWorkspace[0]
  std::memcpy(UbPtr(ubAddr), &value, sizeof(value));
  FullBarrier(c);
}

void InitDetermineComputeWorkspace(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes) {
  const char* api = "InitDetermineComputeWorkspace";
  CoreContext& c = Core();
  const uint32_t need = EnterChain(api, c, gm, gmElems, ubAddr, ubBytes);
  ++c.counters.syncs;
  if (c.blockIdx == 0) {
    LaunchBarrier& b = *Runtime().barrier;
    auto lock = b.Lock();
    for (uint32_t i = 0; i < need / sizeof(int32_t); ++i) Store(gm + i, 0);
    b.Changed();
  }
  PoisonUb(ubAddr, need);
  *RoundCounter(ubAddr, c.blockNum) = 1;
  FullBarrier(c);
}

void WaitPreBlock(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes) {
  const char* api = "WaitPreBlock";
  CoreContext& c = Core();
  const uint32_t need = EnterChain(api, c, gm, gmElems, ubAddr, ubBytes);
  const int32_t round = CurrentRound(api, c, ubAddr);
  ++c.counters.crossCoreWaits;
  {
    LaunchBarrier& b = *Runtime().barrier;
    auto lock = b.Lock();
    std::string what = std::string(api) + " round " + std::to_string(round);
    // Matched when the slots read [round] * blockIdx, then zeros (the device's CheckUBWorkspace).
    b.WaitUntil(lock, c.blockIdx, what, [&] {
      for (int j = 0; j < c.blockNum; ++j) {
        if (Load(gm + static_cast<size_t>(j) * kSlotInts) != (j < c.blockIdx ? round : 0)) return false;
      }
      return true;
    });
    b.Acquire(c.blockIdx, b.gmFlagClocks[gm]);
    NewSegment(c, b);
  }
  PoisonUb(ubAddr, need);  // the device copied the slots there
  FullBarrier(c);
}

void NotifyNextBlock(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes) {
  const char* api = "NotifyNextBlock";
  CoreContext& c = Core();
  const uint32_t need = EnterChain(api, c, gm, gmElems, ubAddr, ubBytes);
  const int32_t round = CurrentRound(api, c, ubAddr);
  ++c.counters.syncs;
  {
    LaunchBarrier& b = *Runtime().barrier;
    auto lock = b.Lock();
    if (c.blockIdx + 1 == c.blockNum) {
      for (uint32_t i = 0; i < need / sizeof(int32_t); ++i) Store(gm + i, 0);  // the next round starts
    } else {
      for (uint32_t i = 0; i < kSlotInts; ++i) Store(gm + static_cast<size_t>(c.blockIdx) * kSlotInts + i, round);
    }
    b.Release(c.blockIdx, b.gmFlagClocks[gm]);
    b.Changed();
    NewSegment(c, b);
  }
  PoisonUb(ubAddr, need);  // the device staged the slot values there
  *RoundCounter(ubAddr, c.blockNum) = round + 1;
  FullBarrier(c);
}

}  // namespace xcore
}  // namespace sim
