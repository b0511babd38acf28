// SetFlag/WaitFlag flag bits, PipeBarrier, and the hard and soft SyncAll barriers.
#include "ascendc/sync.h"

#include "ascendc/entry.h"
#include "ascendc/hazard.h"
#include "ascendc/pipe.h"
#include "ascendc/race.h"
#include "core_runtime.h"
#include "normgrad_isa/model.h"

namespace sim {
namespace {

using AscendC::HardEvent;

const char* const kEventNames[kHardEventCount] = {
    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V", "V_M", "V_V",
    "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3",
    "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3",
    "MTE1_FIX", "FIX_MTE1", "FIX_FIX"};

// The 12 ordered pairs of the vector core's pipes S, V, MTE2, MTE3.
bool IsVectorCoreEvent(int event) {
  switch (static_cast<HardEvent>(event)) {
    case HardEvent::MTE2_V: case HardEvent::V_MTE2: case HardEvent::MTE3_V: case HardEvent::V_MTE3:
    case HardEvent::MTE3_MTE2: case HardEvent::MTE2_MTE3: case HardEvent::S_V: case HardEvent::V_S:
    case HardEvent::S_MTE2: case HardEvent::MTE2_S: case HardEvent::S_MTE3: case HardEvent::MTE3_S:
      return true;
    default:
      return false;
  }
}

CoreContext& CheckEvent(const char* api, int event, int32_t id) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  if (event < 0 || event >= kHardEventCount) Fail(api, "HardEvent %d does not exist", event);
  if (!IsVectorCoreEvent(event)) {
    Fail(api, "HardEvent::%s is not an event between the vector-core pipes S, V, MTE2 and MTE3", kEventNames[event]);
  }
  if (id < 0 || id >= c.soc->eventIdsPerEvent) {
    Fail(api, "event id %d of HardEvent::%s is outside [0, %d] on %s", id, kEventNames[event],
         c.soc->eventIdsPerEvent - 1, c.soc->name);
  }
  return c;
}

}  // namespace

// Event ids index the model's flag register directly (CheckEvent keeps them below the profile's count).
static_assert(kMaxEventIds == normgrad::isa::kEventIds, "front end A's event ids are the model's");

bool EventPipes(int event, int* srcPipe, int* dstPipe) {
  switch (static_cast<HardEvent>(event)) {
    case HardEvent::MTE2_V: *srcPipe = PIPE_MTE2; *dstPipe = PIPE_V; return true;
    case HardEvent::V_MTE2: *srcPipe = PIPE_V; *dstPipe = PIPE_MTE2; return true;
    case HardEvent::MTE3_V: *srcPipe = PIPE_MTE3; *dstPipe = PIPE_V; return true;
    case HardEvent::V_MTE3: *srcPipe = PIPE_V; *dstPipe = PIPE_MTE3; return true;
    case HardEvent::MTE3_MTE2: *srcPipe = PIPE_MTE3; *dstPipe = PIPE_MTE2; return true;
    case HardEvent::MTE2_MTE3: *srcPipe = PIPE_MTE2; *dstPipe = PIPE_MTE3; return true;
    case HardEvent::S_V: *srcPipe = PIPE_S; *dstPipe = PIPE_V; return true;
    case HardEvent::V_S: *srcPipe = PIPE_V; *dstPipe = PIPE_S; return true;
    case HardEvent::S_MTE2: *srcPipe = PIPE_S; *dstPipe = PIPE_MTE2; return true;
    case HardEvent::MTE2_S: *srcPipe = PIPE_MTE2; *dstPipe = PIPE_S; return true;
    case HardEvent::S_MTE3: *srcPipe = PIPE_S; *dstPipe = PIPE_MTE3; return true;
    case HardEvent::MTE3_S: *srcPipe = PIPE_MTE3; *dstPipe = PIPE_S; return true;
    default: return false;
  }
}

uint32_t OutstandingFlags(int event, int32_t id) {
  int src = 0, dst = 0;
  if (!EventPipes(event, &src, &dst) || id < 0 || id >= normgrad::isa::kEventIds) return 0;
  return normgrad::isa::Core().flags[src][dst][id];
}

const char* HardEventName(int event) {
  return event >= 0 && event < kHardEventCount ? kEventNames[event] : "?";
}

const char* PipeName(int pipe) {
  static const char* const kNames[] = {"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3",
                                       "PIPE_ALL", "PIPE_MTE4", "PIPE_MTE5", "PIPE_V2", "PIPE_FIX"};
  return pipe >= 0 && pipe <= PIPE_FIX ? kNames[pipe] : "?";
}

namespace sync {

void SetFlag(const char* api, int event, int32_t id) {
  CoreContext& c = CheckEvent(api, event, id);  // a vector-core event: EventPipes knows it
  ++c.counters.syncs;
  int src = 0, dst = 0;
  EventPipes(event, &src, &dst);
  if (normgrad::isa::Core().flags[src][dst][id] != 0) {
    Fail(api, "HardEvent::%s id %d is already set (two SetFlag without a WaitFlag); a later "
         "PipeBarrier<PIPE_ALL> hangs on hardware", kEventNames[event], id);
  }
  normgrad::isa::SetFlag(src, dst, id);  // set_flag, as CANN's SetFlag and TQue::EnQue issue it
  if (c.hazards != nullptr) c.hazards->SetFlag(event, id);
}

void WaitFlag(const char* api, int event, int32_t id) {
  CoreContext& c = CheckEvent(api, event, id);
  ++c.counters.syncs;
  int src = 0, dst = 0;
  EventPipes(event, &src, &dst);
  if (normgrad::isa::Core().flags[src][dst][id] == 0) {
    Fail(api, "HardEvent::%s id %d is not set: WaitFlag without a matching SetFlag hangs on hardware",
         kEventNames[event], id);
  }
  normgrad::isa::WaitFlag(src, dst, id);
  if (c.hazards != nullptr) c.hazards->WaitFlag(event, id);
}

void PipeBarrier(int pipe) {
  CoreContext& c = Core();
  if (pipe == PIPE_S) Fail("PipeBarrier", "PipeBarrier<PIPE_S> is not allowed (the scalar pipe is in order)");
  if (pipe != PIPE_V && pipe != PIPE_MTE2 && pipe != PIPE_MTE3 && pipe != PIPE_ALL) {
    Fail("PipeBarrier", "%s is not a vector-core pipe (PIPE_V, PIPE_MTE2, PIPE_MTE3 or PIPE_ALL)", PipeName(pipe));
  }
  ++c.counters.syncs;
  normgrad::isa::PipeBarrier(pipe);
  if (pipe == PIPE_ALL) {
    ++c.counters.fullBarriers;
    NoteFullDrain(c);  // the cost model charges a pipeline refill
  }
  if (c.hazards != nullptr) c.hazards->PipeBarrier(pipe);
}

void HardSyncAll(bool isAivOnly) {
  CoreContext& c = Core();
  CoreRuntime& rt = Runtime();
  const char* api = "SyncAll";
  if (!c.soc->hasHardSyncAll) {
    Fail(api, "hard SyncAll() does not exist on %s; use SyncAll(gmWorkspace, ubWorkspace)", c.soc->name);
  }
  if (!isAivOnly) Fail(api, "SyncAll<false> also waits for cube cores, which a vector kernel lacks (hangs)");
  if (rt.kernelType != KERNEL_TYPE_MIX_AIV_1_0) {
    Fail(api, "hard SyncAll() needs KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0); this kernel is %s, "
         "for which the hardware does not run inter-core sync", KernelTypeName(rt.kernelType));
  }
  ++c.counters.syncAll;
  NoteFullDrain(c);  // SyncAll drains every pipe of the core first
  ++rt.syncAllCount;
  rt.barrier->Arrive(c.blockIdx, true, c.blockNum, rt.syncAllCount);
  if (c.races != nullptr) c.races->NewSegment(rt.barrier->Clock(c.blockIdx));
  if (c.hazards != nullptr) c.hazards->FullBarrier();  // SyncAll waits for every pipe of the core
}

void SoftSyncAll(int32_t* gmWorkspace, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes, int32_t usedCores) {
  CoreContext& c = Core();
  CoreRuntime& rt = Runtime();
  const char* api = "SyncAll";
  int participants = usedCores == 0 ? c.blockNum : usedCores;
  if (usedCores < 0 || usedCores > c.blockNum) {
    Fail(api, "usedCores %d is outside [0, GetBlockNum() = %d]", usedCores, c.blockNum);
  }
  if (c.blockIdx >= participants) {
    Fail(api, "core %d is not among the usedCores = %d cores of this barrier", c.blockIdx, participants);
  }
  uint64_t needBytes = static_cast<uint64_t>(c.blockNum) * 32;
  if (gmElems != 0 && gmElems * 4 < needBytes) {
    Fail(api, "gmWorkspace has %llu bytes, needs GetBlockNum() * 32 = %llu", static_cast<unsigned long long>(gmElems * 4),
         static_cast<unsigned long long>(needBytes));
  }
  gm::CheckRange(api, gmWorkspace, needBytes, true);
  if (ubAddr % 32 != 0) Fail(api, "ubWorkspace UB address %u is not 32-byte aligned", ubAddr);
  if (ubBytes < needBytes) {
    Fail(api, "ubWorkspace has %u bytes, needs GetBlockNum() * 32 = %llu", ubBytes,
         static_cast<unsigned long long>(needBytes));
  }
  int32_t* slot = gmWorkspace + 8 * c.blockIdx;
  int32_t uses = 0;
  bool found = false;
  for (auto& u : rt.softSyncUses) {
    if (u.first == gmWorkspace) {
      uses = u.second++;
      found = true;
    }
  }
  if (!found) rt.softSyncUses.emplace_back(gmWorkspace, 1);
  int32_t value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (value != uses) {
    Fail(api, "gmWorkspace slot of core %d holds %d before SyncAll use %d, expected %d: the workspace must be "
         "zero-initialised before the first SyncAll and not written by the kernel", c.blockIdx, value, uses + 1,
         uses);
  }
  __atomic_store_n(slot, value + 1, __ATOMIC_RELEASE);
  ++c.counters.syncAll;
  NoteFullDrain(c);  // SyncAll drains every pipe of the core first
  ++rt.syncAllCount;
  rt.barrier->Arrive(c.blockIdx, false, participants, rt.syncAllCount);
  if (c.races != nullptr) c.races->NewSegment(rt.barrier->Clock(c.blockIdx));
  if (c.hazards != nullptr) c.hazards->FullBarrier();
  PoisonUb(ubAddr, static_cast<uint32_t>(needBytes));  // the polling scratch is clobbered
}

}  // namespace sync
}  // namespace sim
