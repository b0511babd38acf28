// A CPU-debug program for front end B's hard-SyncAll deadlock check (tests/cann_cpu/test_sync_all.py): every
// core calls SyncAll twice in a row, and core 1 is kept from running (SIGSTOP) while it waits in the first one,
// until 600 ms later, as a core process may not be scheduled for a while when 48 of them share 2 CPUs. The
// first SyncAll is over once core 0 arrives; the others go on to the second and wait there for core 1, which
// is still inside the first wait. That is no deadlock (core 1 will run again and arrive); the program must end
// with every core done. With -DSLOW_WAKER_CORE_1_RETURNS core 1 returns instead of calling the second SyncAll:
// a real deadlock, which the check must report.
//   normgrad cpudebug cc --soc ascend910b slow_waker.cpp -o slow_waker && ./slow_waker
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernel_operator.h"
#include "tikicpulib.h"

constexpr uint32_t kCores = 8;

// pids: kCores int32 in GM, each core's process id, written before its first SyncAll.
extern "C" __global__ __aicore__ void slow_waker(GM_ADDR pids) {
  volatile int32_t* pid = reinterpret_cast<volatile int32_t*>(pids);
  const int64_t core = AscendC::GetBlockIdx();
  if (core != 0) {
    pid[core] = static_cast<int32_t>(getpid());
  } else {
    for (uint32_t i = 1; i < kCores; ++i) {
      while (pid[i] == 0) usleep(100);
    }
    usleep(100 * 1000);  // the others have written their pid: they now wait in the first SyncAll
    const pid_t sleeper = pid[1];
    kill(sleeper, SIGSTOP);
    if (fork() == 0) {  // wakes core 1 after the deadlock check's 200 ms grace has long passed
      usleep(600 * 1000);
      kill(sleeper, SIGCONT);
      _exit(0);
    }
  }
  AscendC::SyncAll();
#ifdef SLOW_WAKER_CORE_1_RETURNS
  if (core == 1) return;
#endif
  AscendC::SyncAll();
}

int32_t main() {
  auto* pids = static_cast<uint8_t*>(AscendC::GmAlloc(kCores * sizeof(int32_t)));
  std::memset(pids, 0, kCores * sizeof(int32_t));
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(slow_waker, kCores, pids);
  std::printf("slow_waker: the launch ended\n");
  AscendC::GmFree(pids);
  return 0;
}
