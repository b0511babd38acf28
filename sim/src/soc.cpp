// The SoC profile table. Every constant, its value per SoC and its public source (or ESTIMATE with
// the public range) is in the constants table of docs/sim.md.
#include "ascendc/soc.h"

#include <cstdlib>
#include <mutex>

namespace sim {
namespace {

// name, aiv cores, UB bytes, GHz, HBM sustained/peak TB/s, core DMA B/cycle, DMA issue cycles,
// vector issue cycles, launch us, SyncAll us, event ids, DataCopyPad, bf16, hard SyncAll, Brcb,
// MulAddDst/FusedMulAdd, L2 bytes. Sources: docs/sim.md, "Cost-model constants".
constexpr uint64_t kMiB = 1024 * 1024;
const SocProfile kSocs[] = {
    {"ascend910b", 48, 192 * 1024, 1.85, 1.5, 1.8, 32.0, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true, kMiB * 192},
    {"ascend910_93", 48, 192 * 1024, 1.85, 1.5, 1.8, 32.0, 20.0, 10.0, 5.0, 2.0, 8, true, true, true, true, true, kMiB * 192},
    {"ascend910", 32, 256 * 1024, 1.0, 1.0, 1.2, 32.0, 20.0, 10.0, 5.0, 2.0, 4, false, false, false, false, false, kMiB * 32},
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
