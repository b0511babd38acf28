// Inter-core synchronisation besides SyncAll (ascendc/sync.h): CrossCoreSetFlag/CrossCoreWaitFlag
// (hardware flags, mode 0: all vector cores), IBSet/IBWait (point to point through a GM flag),
// and InitDetermineComputeWorkspace/WaitPreBlock/NotifyNextBlock (a chain through GM, core 0 to
// the last). Each blocks for real on the simulated cores, orders GM accesses across cores for the
// race detector (ascendc/race.h), and counts as one modeled sync (ascendc/cost.h).
#pragma once
#include <cstdint>

#include "ascendc/sync.h"
#include "ascendc/tensor.h"

namespace sim {
namespace xcore {
void CrossCoreSetFlag(int mode, int pipe, int flagId);
void CrossCoreWaitFlag(int mode, int pipe, int flagId);
// setFlag: IBSet (wait for 0, write 1), else IBWait (wait for 1, write 0).
void IbSyncFlag(bool setFlag, bool isAivOnly, int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes,
                int32_t blockIdx, int32_t eventId);
void InitDetermineComputeWorkspace(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes);
void WaitPreBlock(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes);
void NotifyNextBlock(int32_t* gm, uint64_t gmElems, uint32_t ubAddr, uint32_t ubBytes);
}  // namespace xcore
}  // namespace sim

namespace AscendC {

// Mode 0: every vector core's flagId counter goes up once all of them issued the set on `pipe`.
// Flag ids 0-10 on A2/A3 (11-14 belong to SyncAll); a counter holds at most 15 sets.
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId) {
  sim::xcore::CrossCoreSetFlag(modeId, static_cast<int>(pipe), flagId);
}

// Blocks `pipe` until this core's flagId counter is positive, then decrements it.
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId) {
  sim::xcore::CrossCoreWaitFlag(modeId, static_cast<int>(pipe), flagId);
}

// Sets the GM flag of (blockIdx, eventID) once it is clear; the core waiting in IBWait goes on.
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID) {
  sim::xcore::IbSyncFlag(true, isAIVOnly, gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                         ubWorkspace.GetLength(), blockIdx, eventID);
}

// Waits until the GM flag of (blockIdx, eventID) is set, then clears it.
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID) {
  sim::xcore::IbSyncFlag(false, isAIVOnly, gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                         ubWorkspace.GetLength(), blockIdx, eventID);
}

// Core 0 clears the chain's GM slots; every core starts its round counter (in ubWorkspace) at 1.
inline void InitDetermineComputeWorkspace(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  sim::xcore::InitDetermineComputeWorkspace(gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                                            ubWorkspace.GetLength());
}

// Waits until every lower core has notified in this round (core 0: until the last core closed the previous one).
inline void WaitPreBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  sim::xcore::WaitPreBlock(gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                           ubWorkspace.GetLength());
}

// Lets the next core go on; the last core clears the slots for the next round.
inline void NotifyNextBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  sim::xcore::NotifyNextBlock(gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.SimAddr(),
                              ubWorkspace.GetLength());
}

}  // namespace AscendC
