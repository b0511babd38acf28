// Pipes and events: SetFlag/WaitFlag, PipeBarrier, and the inter-core SyncAll barriers.
#pragma once
#include <cstdint>

#include "ascendc/core.h"
#include "ascendc/tensor.h"

// Compiler built-ins on the device, so in the global namespace here too.
enum pipe_t {
  PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL,
  PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX
};
enum event_t {
  EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7
};

namespace AscendC {

// <source>_<destination>: the destination pipe waits for the source (kernel_event.h order).
enum class HardEvent : uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
  MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3,
  S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3,
  MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
static_assert(static_cast<int>(HardEvent::MAX) == sim::kHardEventCount, "HardEvent count matches core.h");

using TEventID = int8_t;

}  // namespace AscendC

namespace sim {
// "MTE2_V" for messages.
const char* HardEventName(int event);
// The pipes of a vector-core HardEvent (MTE2_V: PIPE_MTE2 -> PIPE_V); false for any other event.
bool EventPipes(int event, int* srcPipe, int* dstPipe);
// The event flag register is the instruction-level model's (set_flag / wait_flag on (src pipe, dst
// pipe, id)): how many set_flag of (event, id) are not yet waited for.
uint32_t OutstandingFlags(int event, int32_t id);
const char* PipeName(int pipe);
namespace sync {
// `api` names the caller in messages: "SetFlag", or "TQue::EnQue" for a queue's implicit event.
void SetFlag(const char* api, int event, int32_t id);
void WaitFlag(const char* api, int event, int32_t id);
void PipeBarrier(int pipe);
void HardSyncAll(bool isAivOnly);
void SoftSyncAll(int32_t* gmWorkspace, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes,
                 int32_t usedCores);
}  // namespace sync
}  // namespace sim

namespace AscendC {

template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  sim::sync::SetFlag("SetFlag", static_cast<int>(event), eventID);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  sim::sync::WaitFlag("WaitFlag", static_cast<int>(event), eventID);
}
template <pipe_t pipe>
inline void PipeBarrier() {
  sim::sync::PipeBarrier(static_cast<int>(pipe));
}

// Hardware barrier over every vector core of the launch (kernel type MIX_AIV_1_0, A2/A3 only).
template <bool isAIVOnly = true>
inline void SyncAll() {
  sim::sync::HardSyncAll(isAIVOnly);
}

// Software barrier through GM: each core bumps its 32-byte slot of gmWorkspace and polls all
// slots; gmWorkspace must be zero before the first call, ubWorkspace is scratch.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0) {
  sim::sync::SoftSyncAll(gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                         ubWorkspace.GetLength(), usedCores);
}

}  // namespace AscendC
