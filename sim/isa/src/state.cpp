// Per-core state, the violation hook and the trap.
#include "normgrad_isa/state.h"

#include "internal.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace normgrad {
namespace isa {
namespace {

// One per core: CANN's launcher forks one process per core (front end B); front end A runs each core on
// a thread of its own, so the state is per thread.
thread_local State g_state;
ViolationHook g_hook = nullptr;
AtomicListener g_atomicListener = nullptr;
VecCountListener g_vecCountListener = nullptr;

}  // namespace

const char* PipeName(int pipe) {
  static const char* const kNames[kPipeCount] = {"PIPE_S",   "PIPE_V",    "PIPE_M",    "PIPE_MTE1",
                                                 "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL",  "PIPE_MTE4",
                                                 "PIPE_MTE5", "PIPE_V2",   "PIPE_FIX"};
  return pipe >= 0 && pipe < kPipeCount ? kNames[pipe] : "PIPE_?";
}

State& Core() { return g_state; }

void ResetCore() {
  const uint8_t* base = g_state.ubBase;
  uint64_t size = g_state.ubSize;
  const bool checked = g_state.operandsChecked, deviceAtomics = g_state.deviceAtomicStores;
  g_state = State();
  g_state.ubBase = base;
  g_state.ubSize = size;
  g_state.operandsChecked = checked;
  g_state.deviceAtomicStores = deviceAtomics;
}

void RegisterUb(const void* base, uint64_t size, bool operandsChecked) {
  g_state.ubBase = static_cast<const uint8_t*>(base);
  g_state.ubSize = size;
  g_state.operandsChecked = operandsChecked;
}

void SetViolationHook(ViolationHook hook) { g_hook = hook; }

void Violation(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (g_hook != nullptr) {
    g_hook(msg);
    return;
  }
  std::fprintf(stderr, "normgrad-isa: %s\n", msg);
  std::fflush(stderr);
  std::_Exit(3);
}

void Trap(const char* intrinsic) {
  std::fprintf(stderr, "normgrad-isa: intrinsic %s is linked but not modelled; stopping\n", intrinsic);
  std::fflush(stderr);
  std::_Exit(4);
}

void SetAtomicListener(AtomicListener listener) { g_atomicListener = listener; }

void SetVecCountListener(VecCountListener listener) { g_vecCountListener = listener; }

void NotifyVecCount(VecClass cls, uint64_t repeats) {
  if (g_vecCountListener != nullptr) g_vecCountListener(cls, repeats);
}

void NotifyAtomic() {
  if (g_atomicListener != nullptr) g_atomicListener(g_state.atomicEnabled, g_state.atomicOp);
}

bool CheckFlagsBalanced() {
  for (int s = 0; s < kPipeCount; ++s) {
    for (int d = 0; d < kPipeCount; ++d) {
      for (int id = 0; id < kEventIds; ++id) {
        if (g_state.flags[s][d][id] != 0) {
          Violation("set_flag(%s, %s, EVENT_ID%d) was never waited for (%u outstanding at the end of the kernel)",
                    PipeName(s), PipeName(d), id, g_state.flags[s][d][id]);
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace isa
}  // namespace normgrad
