// Front end B's cost report (issue 20 item 5): what each core process adds to the instruction model's
// counters so that libnormgrad can price the launch with front end A's cost model (sim/src/cost.cpp):
// the L2 re-read model and the DCache of scalar GM accesses (front end A's own classes), the TPipe's UB
// high-water mark, SyncAlls, split-phase waits, and a soft SyncAll's own flag copies left out (front end A
// prices a SyncAll by its latency, not by its polling). Written to DIR/core<i>.txt (runner/core_report.h).
#pragma once
#include <cstdint>

namespace normgrad::cann {

// Parent, before the launch: the L2 size the cost model uses (the SoC's, what-if applied).
void SetLaunchL2Bytes(uint64_t l2Bytes);
// Child, after the model's state is reset: a fresh L2 model and DCache, UB peak 0, the copy hook on.
void BeginCoreCost(int cores);
// AscendCBufInit: a TPipe (or TBuf) buffer of `bytes` at CPU address addr; the UB's part counts.
void NoteBuffer(uint64_t addr, uint64_t bytes);
// GlobalTensor GetValue / SetValue on GM (cost_probes.h), through the core's DCache.
void NoteScalarGmRead(const void* p, uint64_t bytes);
void NoteScalarGmWrite(const void* p, uint64_t bytes);
// A hard SyncAll (wait_flag_dev of the all-cores flag) or a soft one: one inter-core barrier.
void NoteSyncAll();
// A soft SyncAll starts: the next GM->UB copy is its read of this core's flag block, which locates the
// launch's flag blocks; every later copy touching them is the SyncAll's own and not counted.
void BeginSoftSyncAll();
// get_block_num right after a pipe_barrier(PIPE_ALL): how dav-c100's soft SyncAll starts (it has no
// __sync_all_stub); true when that is what just happened.
bool SoftSyncAllStartsHere();
// ffts_cross_core_sync / wait_flag_dev on a flag of the kernel's own (CrossCoreSetFlag / CrossCoreWaitFlag).
void NoteCrossCoreSet(unsigned flag);
void NoteCrossCoreWait(unsigned flag);
// When the kernel has returned on this core: writes DIR/core<i>.txt (the working directory is DIR).
// False (after reporting a violation) when it cannot be written.
bool WriteCoreCost();

}  // namespace normgrad::cann
