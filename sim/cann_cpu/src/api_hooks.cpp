// The hooks CANN's closed CPU-debug library defines for the open framework (kern_fwk.h: kernel and block
// begin/end, CheckSyncState) and the devkit (buffer and queue notifications, __sync_all_stub). They are
// explicit specialisations of stub_fun.h's variadic declarations; this file includes no devkit header, whose
// inline functions would instantiate the templates before these specialisations are seen.
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "cost_report.h"
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
}

// The signals CANN's launcher catches in a core (kern_fwk.h: its Handler prints a backtrace and exits 1).
// Ours runs first and names the signal as the launch's failure, then hands over to CANN's. SIGABRT is how
// CANN's Ascend C stops on a failed check: api_check (ASCENDC_REPORT_CHECK_ERROR), ASCENDC_ASSERT,
// ASCENDC_CHECK_VALUE_RANGE, each after printing its "[ERROR]" line.
constexpr int kCoreSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_cannHandlers[sizeof(kCoreSignals) / sizeof(kCoreSignals[0])];

void OnCoreSignal(int sig) {
  size_t i = 0;
  while (kCoreSignals[i] != sig) ++i;
  char message[normgrad::cann::kMessageBytes];
  if (sig == SIGABRT && *normgrad::cann::LastCheckError() != '\0') {
    std::snprintf(message, sizeof(message), "CANN's api_check: %s (the core aborted)",
                  normgrad::cann::LastCheckError());
  } else {
    std::snprintf(message, sizeof(message), "%s",
                  sig == SIGABRT ? "aborted (SIGABRT) by a check of CANN's Ascend C (an assertion; its [ERROR] line "
                                   "is in the program's output)"
                  : sig == SIGSEGV ? "crashed (SIGSEGV)"
                  : sig == SIGBUS  ? "crashed (SIGBUS)"
                  : sig == SIGFPE  ? "crashed (SIGFPE)"
                                   : "crashed (SIGILL)");
  }
  normgrad::cann::RecordFailure(message);
  sigaction(sig, &g_cannHandlers[i], nullptr);
  raise(sig);
}
}  // namespace

template <>
void AscendCKernelBegin<const char*, unsigned long, unsigned long*>(const char*, unsigned long, unsigned long*) {}
// Parent, after every core of the launch ended: the launch's verdict (launch_state.h, FinishLaunch).
template <>
void AscendCKernelEnd<const char*, unsigned long, unsigned long*>(const char* kernel, unsigned long, unsigned long*) {
  normgrad::cann::FinishLaunch(kernel);
}

// Core, after CANN's launcher installed its signal handlers and before the kernel runs.
template <>
void AscendCBlockBegin<int, const char*, unsigned long, unsigned long*>(int, const char*, unsigned long,
                                                                         unsigned long*) {
  std::atexit(MarkExited);
  struct sigaction ours {};
  ours.sa_handler = OnCoreSignal;
  sigemptyset(&ours.sa_mask);
  for (size_t i = 0; i < sizeof(kCoreSignals) / sizeof(kCoreSignals[0]); ++i) {
    sigaction(kCoreSignals[i], &ours, &g_cannHandlers[i]);
  }
}
template <>
void AscendCBlockEnd<int, const char*, unsigned long, unsigned long*>(int, const char*, unsigned long,
                                                                       unsigned long*) {}

namespace AscendC {
// After the kernel returned on this core: every set_flag was waited for (CANN's check of the same name).
void CheckSyncState() {
  if (!normgrad::isa::CheckFlagsBalanced()) return;  // the violation hook has ended the core
  if (!normgrad::cann::WriteCoreCost()) return;
  normgrad::cann::Shared().coreOk[normgrad::cann::CoreIndex()] = 1;
}
}  // namespace AscendC

// --- Buffer and queue notifications (kernel_tpipe_impl.h, kernel_tquebind_impl.h, ...) ------------------------
// CANN's model uses them for its own bookkeeping; the instruction-level model sees the instructions
// themselves. AscendCBufInit (TPipe::InitBuffer: position, TBuf or not, buffer count, CPU address of the
// first buffer, length rounded to 32 bytes) gives the UB the pipe has handed out: the report's peak.
template <>
void AscendCBufInit<unsigned char, int, int, unsigned long, unsigned int>(unsigned char, int, int num,
                                                                          unsigned long addr, unsigned int len) {
  normgrad::cann::NoteBuffer(addr, static_cast<uint64_t>(num) * len);
}
template <>
void AscendCBufInit<unsigned char, int, unsigned char, unsigned long, unsigned int>(unsigned char, int,
                                                                                    unsigned char num,
                                                                                    unsigned long addr,
                                                                                    unsigned int len) {
  normgrad::cann::NoteBuffer(addr, static_cast<uint64_t>(num) * len);
}
// This argument list only ops-nn's GroupNormGrad kernel reaches (sim/cann_cpu/opsnn).
template <>
void AscendCBufInit<unsigned char, unsigned char, unsigned char, unsigned long, unsigned long>(
    unsigned char, unsigned char, unsigned char num, unsigned long addr, unsigned long len) {
  normgrad::cann::NoteBuffer(addr, static_cast<uint64_t>(num) * len);
}
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
// Soft SyncAll (dav-c220) calls it on entry and exit; the synchronisation itself is the GM copies between,
// which the cost report leaves out (cost_report.h).
template <>
void __sync_all_stub<int, bool>(int, bool) {
  static bool inside = false;
  if (!inside) normgrad::cann::BeginSoftSyncAll();
  inside = !inside;
}

