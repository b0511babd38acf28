// Front end B's cost report (cost_report.h): per core process, beside the instruction model's counters.
#include "cost_report.h"

#include <deque>
#include <vector>

#include "ascendc/dcache.h"
#include "ascendc/l2cache.h"
#include "core_report.h"
#include "launch_state.h"
#include "normgrad_isa/state.h"

namespace normgrad::cann {
namespace {

constexpr uint64_t kSyncBlockBytes = 32;  // a soft SyncAll's flag block per core (8 int32)

uint64_t g_l2Bytes = 0;  // set in the parent, inherited by the cores
int g_cores = 1;
sim::L2Reuse g_l2;
sim::DataCache g_dcache;
uint64_t g_scalarGm = 0, g_scalarIn = 0, g_scalarOut = 0, g_l2Hits = 0, g_ubPeak = 0;
uint64_t g_syncAll = 0, g_crossCoreWaits = 0;
bool g_syncPending = false;               // a soft SyncAll started; its first copy not seen yet
uintptr_t g_syncBegin = 0, g_syncEnd = 0;  // the flag blocks of the launch's soft SyncAlls
std::deque<CoreFigures> g_setFigures[kFftsFlags];
std::vector<std::pair<CoreFigures, CoreFigures>> g_splitWaits;

CoreFigures Figures() {
  const isa::Counters& k = isa::Core().counters;
  CoreFigures f;
  f.gmToUbBytes = k.gmToUbBytes;
  f.ubToGmBytes = k.ubToGmBytes;
  f.ubToUbBytes = k.ubToUbBytes;
  f.dmaIn = k.dmaIn;
  f.dmaOut = k.dmaOut;
  f.vecInstr = k.vecInstr;
  for (int i = 0; i < isa::kVecClasses; ++i) f.vecRepeats[i] = k.vecRepeats[i];
  f.scalarGm = g_scalarGm;
  f.scalarGmBytesIn = g_scalarIn;
  f.scalarGmBytesOut = g_scalarOut;
  f.syncs = k.setFlags + k.waitFlags + k.barriers;
  f.syncAll = g_syncAll;
  f.crossCoreWaits = g_crossCoreWaits;
  f.fullBarriers = k.fullBarriers;
  f.drains = k.drains;
  f.l2HitBytes = g_l2Hits;
  f.ubPeakBytes = g_ubPeak;
  return f;
}

// Every GM<->UB copy: a soft SyncAll's own flag copies are left out; the others go through the L2 model.
bool OnGmCopy(bool toGm, const void* gm, uint64_t rows, uint64_t rowBytes, uint64_t pitch) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(gm);
  if (g_syncPending && !toGm) {
    // The SyncAll's first copy reads this core's block: the blocks of all cores start core blocks before.
    g_syncPending = false;
    g_syncBegin = a - static_cast<uintptr_t>(CoreIndex()) * kSyncBlockBytes;
    g_syncEnd = g_syncBegin + static_cast<uintptr_t>(g_cores) * kSyncBlockBytes;
  }
  const uintptr_t end = a + (rows == 0 ? 0 : (rows - 1) * pitch + rowBytes);
  // Only a copy wholly inside the flag blocks is the SyncAll's own: a kernel's copy that merely touches
  // them (GroupNorm's block-copy read-back ending up to 32 bytes past its sums plane) is the kernel's.
  if (a >= g_syncBegin && end <= g_syncEnd && g_syncEnd > g_syncBegin) return false;
  if (toGm) {
    g_l2.Write(gm, static_cast<uint32_t>(rows), rowBytes, pitch);
  } else {
    g_l2Hits += g_l2.Read(gm, static_cast<uint32_t>(rows), rowBytes, pitch);
  }
  return true;
}

}  // namespace

// Only the runner sets the L2 size, and only its launches write cost reports: a `normgrad cpudebug cc`
// program leaves no core<i>.txt files in its working directory.
static bool g_reportsWanted = false;

void SetLaunchL2Bytes(uint64_t l2Bytes) {
  g_l2Bytes = l2Bytes;
  g_reportsWanted = true;
}

void BeginCoreCost(int cores) {
  g_cores = cores > 0 ? cores : 1;
  g_l2.Reset(g_l2Bytes, g_cores);
  isa::SetGmCopyHook(OnGmCopy);
}

void NoteBuffer(uint64_t addr, uint64_t bytes) {
  const isa::State& s = isa::Core();
  const uintptr_t base = reinterpret_cast<uintptr_t>(s.ubBase);
  if (s.ubBase == nullptr || addr < base || addr >= base + s.ubSize) return;  // not the UB
  const uint64_t end = addr - base + bytes;
  if (end > g_ubPeak) g_ubPeak = end;
}

void NoteScalarGmRead(const void* p, uint64_t bytes) {
  ++g_scalarGm;
  const sim::DataCache::Traffic t = g_dcache.Read(reinterpret_cast<uintptr_t>(p), bytes);
  g_scalarIn += t.in;
  g_scalarOut += t.out;
}

void NoteScalarGmWrite(const void* p, uint64_t bytes) {
  ++g_scalarGm;
  const sim::DataCache::Traffic t = g_dcache.Write(reinterpret_cast<uintptr_t>(p), bytes);
  g_scalarIn += t.in;
  g_scalarOut += t.out;
}

void NoteSyncAll() { ++g_syncAll; }

void BeginSoftSyncAll() {
  NoteSyncAll();  // its drain: the devkit's pipe_barrier(PIPE_ALL) at its start
  g_syncPending = true;  // each SyncAll may use flag blocks of its own: locate them again
}

bool SoftSyncAllStartsHere() { return isa::InstructionsIssued() == isa::Core().instrAtFullBarrier; }

void NoteCrossCoreSet(unsigned flag) {
  if (flag < kFftsFlags) g_setFigures[flag].push_back(Figures());
}

void NoteCrossCoreWait(unsigned flag) {
  ++g_crossCoreWaits;
  if (flag >= kFftsFlags || g_setFigures[flag].empty()) return;
  g_splitWaits.push_back({g_setFigures[flag].front(), Figures()});
  g_setFigures[flag].pop_front();
}

bool WriteCoreCost() {
  if (!g_reportsWanted) return true;
  g_scalarOut += g_dcache.Flush();  // dirty lines are written back at kernel end (front end A does too)
  isa::DropTrailingDrain();
  CoreReport r;
  r.figures = Figures();
  r.splitWaits = g_splitWaits;
  if (!WriteCoreReport(CoreReportPath(".", CoreIndex()), r)) {
    isa::Violation("cannot write the core's cost report %s", CoreReportPath(".", CoreIndex()).c_str());
    return false;
  }
  return true;
}

}  // namespace normgrad::cann
