// The hooks CANN's closed CPU-debug library defines for the open framework (kern_fwk.h: kernel and block
// begin/end, CheckSyncState) and the devkit (buffer and queue notifications, __sync_all_stub). They are
// explicit specialisations of stub_fun.h's variadic declarations; this file includes no devkit header, whose
// inline functions would instantiate the templates before these specialisations are seen.
#include <cstdlib>

#include "launch_state.h"
#include "normgrad_isa/state.h"
#include "stub_fun.h"

// --- Launch and block notifications (kern_fwk.h) -------------------------------------------------------------

namespace {
// A core's process ends (normally, or through the framework's signal handler's exit): an end before
// CheckSyncState passed is a failure of the launch, which the cores still waiting in a barrier see.
void MarkExited() {
  normgrad::cann::SharedLaunch& s = normgrad::cann::Shared();
  const int core = normgrad::cann::CoreIndex();
  if (s.coreOk[core].load() == 0) normgrad::cann::RecordFailure("the core ended before its kernel returned");
  s.coreExited[core] = 1;
  s.exited.fetch_add(1);
}
}  // namespace

template <>
void AscendCKernelBegin<const char*, unsigned long, unsigned long*>(const char*, unsigned long, unsigned long*) {}
template <>
void AscendCKernelEnd<const char*, unsigned long, unsigned long*>(const char*, unsigned long, unsigned long*) {}

template <>
void AscendCBlockBegin<int, const char*, unsigned long, unsigned long*>(int, const char*, unsigned long,
                                                                         unsigned long*) {
  std::atexit(MarkExited);
}
template <>
void AscendCBlockEnd<int, const char*, unsigned long, unsigned long*>(int, const char*, unsigned long,
                                                                       unsigned long*) {}

namespace AscendC {
// After the kernel returned on this core: every set_flag was waited for (CANN's check of the same name).
void CheckSyncState() {
  if (!normgrad::isa::CheckFlagsBalanced()) return;  // the violation hook has ended the core
  normgrad::cann::Shared().coreOk[normgrad::cann::CoreIndex()] = 1;
}
}  // namespace AscendC

// --- Buffer and queue notifications (kernel_tpipe_impl.h, kernel_tquebind_impl.h, ...) ------------------------
// CANN's model uses them for its own bookkeeping; the instruction-level model sees the instructions
// themselves, so they are accepted and not recorded.
template <>
void AscendCBufInit<unsigned char, int, int, unsigned long, unsigned int>(unsigned char, int, int, unsigned long,
                                                                          unsigned int) {}
template <>
void AscendCBufInit<unsigned char, int, unsigned char, unsigned long, unsigned int>(unsigned char, int, unsigned char,
                                                                                    unsigned long, unsigned int) {}
// This argument list only ops-nn's GroupNormGrad kernel reaches (sim/cann_cpu/opsnn).
template <>
void AscendCBufInit<unsigned char, unsigned char, unsigned char, unsigned long, unsigned long>(
    unsigned char, unsigned char, unsigned char, unsigned long, unsigned long) {}
template <>
void AscendCBufAbsAddr<unsigned char, unsigned long, unsigned int>(unsigned char, unsigned long, unsigned int) {}
template <>
void AscendCBufAlloc<unsigned char, unsigned char, unsigned long, unsigned long>(unsigned char, unsigned char,
                                                                                 unsigned long, unsigned long) {}
template <>
void AscendCBufFree<unsigned char, unsigned char, unsigned long, unsigned long>(unsigned char, unsigned char,
                                                                                unsigned long, unsigned long) {}
template <>
void AscendCBufEnque<unsigned char, unsigned char, unsigned char, unsigned long>(unsigned char, unsigned char,
                                                                                 unsigned char, unsigned long) {}
template <>
void AscendCBufDeque<unsigned char, unsigned char, unsigned char, unsigned long>(unsigned char, unsigned char,
                                                                                 unsigned char, unsigned long) {}
template <>
void AscendCBufGet<unsigned char, unsigned char, unsigned long, unsigned int>(unsigned char, unsigned char,
                                                                              unsigned long, unsigned int) {}
template <>
void AscendCQueCreate<unsigned char, unsigned char, int>(unsigned char, unsigned char, int) {}
template <>
void AscendCTBufPoolResetCheck<unsigned char, unsigned long, unsigned long, unsigned long>(unsigned char,
                                                                                          unsigned long,
                                                                                          unsigned long,
                                                                                          unsigned long) {}
template <>
void AscendCUpdateTbufPoolStatus<unsigned long, bool>(unsigned long, bool) {}
// Soft SyncAll calls it on entry and exit; the synchronisation itself is the GM copies around it.
template <>
void __sync_all_stub<int, bool>(int, bool) {}

