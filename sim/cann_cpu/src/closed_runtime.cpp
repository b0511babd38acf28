// The non-intrinsic symbols of CANN's closed CPU-debug library that the devkit, the open framework and the
// kernels reference, other than the hooks (api_hooks.cpp): the cross-process lock, the atomic globals, the
// intrinsic-table hooks of StubInit, the mask read-back of api_check, two bfloat16 methods and the
// log-level query.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernel_operator.h"
#include "kernel_process_lock.h"
#include "launch_state.h"
#include "model/model_factory_mask.h"
#include "normgrad_isa/state.h"
#include "stub_reg.h"

// --- The cross-process lock (kernel_process_lock.h) -------------------------------------------------------------
// The devkit takes it (write) around an atomic GM store so that read-add-write of different cores do not
// interleave; created in the parent before the fork, in shared memory, process-shared.
namespace AscendC {
ProcessLock* ProcessLock::processLock = nullptr;

ProcessLock::ProcessLock() { Init(); }
ProcessLock::~ProcessLock() { UnInit(); }

inline void ProcessLock::Init() {
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_rwlock_init(&lock, &attr);
}

void ProcessLock::UnInit() {
  pthread_rwlock_destroy(&lock);
  pthread_rwlockattr_destroy(&attr);
}

ProcessLock* ProcessLock::CreateLock() {
  void* p = mmap(nullptr, sizeof(ProcessLock), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "normgrad_cann_run: cannot map the process lock\n");
    std::exit(1);
  }
  return new (p) ProcessLock();
}

// Only the parent unmaps; a core's process leaves the shared lock to the others.
void ProcessLock::FreeLock() {
  if (processLock != nullptr && getpid() == g_mainPid) {
    processLock->~ProcessLock();
    munmap(processLock, sizeof(ProcessLock));
    processLock = nullptr;
  }
}

namespace {
// A core that fails while holding the lock ends its process without releasing it: a waiter polls the
// launch's failure flag between timed attempts and ends too (the failing core's message is the launch's).
template <typename TryFor>
int LockOrGiveUp(TryFor tryFor) {
  for (;;) {
    timespec deadline{};
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 20 * 1000 * 1000;
    if (deadline.tv_nsec >= 1000 * 1000 * 1000) {
      deadline.tv_sec += 1;
      deadline.tv_nsec -= 1000 * 1000 * 1000;
    }
    const int rc = tryFor(&deadline);
    if (rc != ETIMEDOUT) return rc;
    if (normgrad::cann::Shared().failed.load() != 0) _exit(3);
  }
}
}  // namespace

int ProcessLock::Read() {
  return LockOrGiveUp([this](const timespec* t) { return pthread_rwlock_timedrdlock(&lock, t); });
}
int ProcessLock::Write() {
  return LockOrGiveUp([this](const timespec* t) { return pthread_rwlock_timedwrlock(&lock, t); });
}
int ProcessLock::Unlock() { return pthread_rwlock_unlock(&lock); }

// The devkit's CPU-mode atomic state (kernel_utils.h), kept in step with the model by set_core_type's
// listener (launcher_intrinsics.cpp).
bool g_isAtomic = false;
AtomicType g_atomicType = SUM;
}  // namespace AscendC

// --- StubInit's intrinsic tables (intri_fmt.h, intri_fun.h) ---------------------------------------------------
// CANN's closed library lists 7272 symbol formats that StubInit resolves with dlsym to let other stub
// libraries (cceprint, npuchk) replace intrinsics. The model defines the intrinsics directly, so every
// format names a symbol that does not exist and every table entry stays empty.
IntriFmtT* IntriFmtGet(int32_t fid) {
  static IntriFmtT none{0, "%.*s_normgrad_no_override"};
  none.fid = fid;
  return &none;
}

void IntriFunAdd(int32_t fid, IntriTypeT type, PfIntriFun fun) {
  (void)fid;
  (void)type;
  (void)fun;
}

// --- api_check's read-back of the mask register (model/model_factory_mask.h) -----------------------------------
uint64_t ModelFactoryGetMaskHigh() { return normgrad::isa::Core().maskHi; }
uint64_t ModelFactoryGetMaskLow() { return normgrad::isa::Core().maskLo; }
uint64_t ModelFactoryGetMaskMode() { return normgrad::isa::Core().counterMode ? 1 : 0; }

// --- bfloat16 (asc-tools kernel_bf16.h declares, CANN's library defines) -----------------------------------------
namespace bfloat16 {
// float -> bfloat16, round to nearest even (the helper kernel_bf16.h gives for it: IsRoundOne); NaN stays a
// NaN (BF16_NAN), overflow rounds to infinity as IEEE rounding does.
uint16_t Bf16T::FloatToBf16(const float& fVal) const {
  uint32_t bits;
  std::memcpy(&bits, &fVal, sizeof(bits));
  const uint32_t sign = bits >> 31;
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) {
    return static_cast<uint16_t>((sign << BF16_SIGN_INDEX) | BF16_NAN);
  }
  uint32_t upper = bits >> 16;
  if (IsRoundOne(sign, bits, 16)) ++upper;  // carries into the exponent as IEEE rounding does
  return static_cast<uint16_t>(upper);
}

Bf16T& Bf16T::operator=(const Bf16T& fp) {
  val = fp.val;
  return *this;
}

// Linked only by ops-nn's LayerNormGradV3 kernel (sim/cann_cpu/opsnn): the same rounding as the constructor.
Bf16T& Bf16T::operator=(const float& fVal) {
  val = FloatToBf16(fVal);
  return *this;
}
}  // namespace bfloat16

// --- dlog (runtime dlog_pub.h): api_check's debug/info/warning logs are off; its errors print themselves ------
extern "C" int32_t CheckLogLevel(int32_t moduleId, int32_t logLevel) {
  (void)moduleId;
  (void)logLevel;
  return 0;
}

// DlogRecord: CANN's log library writes a record to its log files. dlog_pub.h declares it weak, so without a
// definition api_check's dlog_error (after it printed its "[ERROR]" line) called address 0 and the core died of
// SIGSEGV before CANN's own abort. Only errors reach it (CheckLogLevel above): the record becomes the text
// of the core's failure when CANN's Ascend C then aborts (api_hooks.cpp).
extern "C" void DlogRecord(int32_t moduleId, int32_t level, const char* fmt, ...) {
  (void)moduleId;
  (void)level;
  char text[normgrad::cann::kMessageBytes / 2];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  normgrad::cann::NoteCheckError(text);
}
