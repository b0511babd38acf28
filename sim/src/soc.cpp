// The SoC profile table. Sources: ascendc-api.md §4 (UB, events, APIs), performance-model.md §1, §5.2 (costs).
#include "ascendc/soc.h"

#include <cstdlib>
#include <mutex>

namespace sim {
namespace {

// name, aiv cores, UB bytes, GHz, HBM sustained/peak TB/s, core DMA B/cycle, DMA issue cycles,
// vector issue cycles, launch us, SyncAll us, event ids, DataCopyPad, bf16, hard SyncAll, Brcb
//
// Sources of the cost-model constants (performance-model.md; the cycles per vector repeat of each
// op class are in sim/src/cost.cpp):
// - A2 (ascend910b): 48 AIV [H1], 1.85 GHz [A4], HBM 1.5 TB/s sustained (1.49 measured [A6]) and
//   1.8 TB/s peak [A6], 32 B/cycle per core DMA (ini ddr_rate [T1]), 20 cycles per DataCopy
//   (fitted to 128-byte copies [A6]), 10 cycles per vector issue (ESTIMATE §5.2), launch 5 us
//   (ESTIMATE, range 3-10 [A4][T1]), SyncAll 2 us (ESTIMATE, range 1-3).
// - A3 (ascend910_93): per die the same core and HBM as A2 (§1.1 [A10][T1]).
// - Atlas training (ascend910): 32 cores [P1], about 1.0 GHz [derived §1.1], HBM 1.2 TB/s peak
//   [T2] and 1.0 sustained (ESTIMATE: the A2 sustained/peak ratio), other costs as A2 (ESTIMATE).
const SocProfile kSocs[] = {
    {"ascend910b", 48, 192 * 1024, 1.85, 1.5, 1.8, 32.0, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true},
    {"ascend910_93", 48, 192 * 1024, 1.85, 1.5, 1.8, 32.0, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true},
    {"ascend910", 32, 256 * 1024, 1.0, 1.0, 1.2, 32.0, 20.0, 10.0, 5.0, 2.0, 4, false, false, false, false},
};

const SocProfile* InitialSoc() {
  const char* env = std::getenv("NORMGRAD_SOC");
  if (env != nullptr) {
    if (const SocProfile* p = FindSoc(env)) return p;
  }
  return &kSocs[0];
}

std::mutex g_socMutex;
const SocProfile* g_current = nullptr;
// A thread's own choice (SetThreadSoc), which wins over the process-wide one: two threads may run
// operators on different SoCs at once.
thread_local const SocProfile* t_current = nullptr;

}  // namespace

const SocProfile* FindSoc(const std::string& name) {
  for (const SocProfile& p : kSocs) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

const SocProfile& CurrentSoc() {
  if (t_current != nullptr) return *t_current;
  std::lock_guard<std::mutex> lock(g_socMutex);
  if (g_current == nullptr) g_current = InitialSoc();
  return *g_current;
}

bool SetCurrentSoc(const std::string& name) {
  const SocProfile* p = FindSoc(name);
  if (p == nullptr) return false;
  std::lock_guard<std::mutex> lock(g_socMutex);
  g_current = p;
  return true;
}

bool SetThreadSoc(const std::string& name) {
  if (name.empty()) {
    t_current = nullptr;
    return true;
  }
  const SocProfile* p = FindSoc(name);
  if (p == nullptr) return false;
  t_current = p;
  return true;
}

const SocProfile* AllSocs(int* count) {
  *count = static_cast<int>(sizeof(kSocs) / sizeof(kSocs[0]));
  return kSocs;
}

}  // namespace sim
