// Per-core state, the violation hook and the trap.
#include "normgrad_isa/state.h"

#include "internal.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace normgrad {
namespace isa {
namespace {

ViolationHook g_hook = nullptr;
AtomicListener g_atomicListener = nullptr;

}  // namespace

namespace detail {
// One per core: CANN's launcher forks one process per core (front end B); front end A runs each core on
// a thread of its own, so the state is per thread.
thread_local State t_state;
}  // namespace detail

const char* PipeName(int pipe) {
  static const char* const kNames[kPipeCount] = {"PIPE_S",   "PIPE_V",    "PIPE_M",    "PIPE_MTE1",
                                                 "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL",  "PIPE_MTE4",
                                                 "PIPE_MTE5", "PIPE_V2",   "PIPE_FIX"};
  return pipe >= 0 && pipe < kPipeCount ? kNames[pipe] : "PIPE_?";
}

void ResetCore() {
  State& s = Core();
  State fresh;
  fresh.ubBase = s.ubBase;
  fresh.ubSize = s.ubSize;
  fresh.operandsChecked = s.operandsChecked;
  fresh.vecCountListener = s.vecCountListener;
  fresh.vecCountUser = s.vecCountUser;
  fresh.deviceAtomicStores = s.deviceAtomicStores;
  s = fresh;
}

void RegisterUb(const void* base, uint64_t size, bool operandsChecked) {
  State& s = Core();
  s.ubBase = static_cast<const uint8_t*>(base);
  s.ubSize = size;
  s.operandsChecked = operandsChecked;
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

void SetVecCountListener(VecCountListener listener, void* user) {
  State& s = Core();
  s.vecCountListener = listener;
  s.vecCountUser = user;
}

void NotifyAtomic() {
  if (g_atomicListener != nullptr) g_atomicListener(Core().atomicEnabled, Core().atomicOp);
}

bool CheckFlagsBalanced() {
  const State& core = Core();
  for (int s = 0; s < kPipeCount; ++s) {
    for (int d = 0; d < kPipeCount; ++d) {
      for (int id = 0; id < kEventIds; ++id) {
        if (core.flags[s][d][id] != 0) {
          Violation("set_flag(%s, %s, EVENT_ID%d) was never waited for (%u outstanding at the end of the kernel)",
                    PipeName(s), PipeName(d), id, core.flags[s][d][id]);
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace isa
}  // namespace normgrad
