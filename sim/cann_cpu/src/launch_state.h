// State one launch shares between the runner (the parent) and the per-core processes CANN's ICPU_RUN_KF
// forks: mapped MAP_SHARED before the fork, so every core sees the others' writes. Holds the hard cross-core
// flag counters (ffts_cross_core_sync / wait_flag_dev), each core's outcome and the first violation's text.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

namespace normgrad::cann {

constexpr int kMaxCores = 64;     // above any SoC's vector core count (A2/A3: 48)
constexpr int kFftsFlags = 16;    // flag ids of ffts_cross_core_sync (4 bits)
constexpr size_t kMessageBytes = 1024;
constexpr uint8_t kNotWaiting = 0xff;  // SharedLaunch::waitFlag of a core in no wait

struct SharedLaunch {
  int32_t cores = 0;                           // processes of this launch (get_process_num)
  std::atomic<uint32_t> fftsSet[kFftsFlags];   // mode-0 (all cores) arrivals per flag id
  // Each core's wait in wait_flag_dev: the flag (kNotWaiting when it waits for none) and the arrivals that
  // end it (cross_core_sync.cpp: the deadlock check tells a wait that is over from one that cannot end).
  std::atomic<uint8_t> waitFlag[kMaxCores];
  std::atomic<uint64_t> waitTarget[kMaxCores];
  std::atomic<uint8_t> coreOk[kMaxCores];      // 1: the kernel returned and CheckSyncState passed
  std::atomic<uint8_t> coreExited[kMaxCores];  // 1: the core's process has ended
  std::atomic<int32_t> failed;                 // first failure claims message
  char message[kMessageBytes];
};

// The launch's shared state (mapped on first use; call BeginLaunch in the parent before ICPU_RUN_KF).
SharedLaunch& Shared();
// Parent, before ICPU_RUN_KF: zeroes the shared state for blockDim cores.
void BeginLaunch(uint32_t blockDim);
// Parent, after ICPU_RUN_KF: "" when every core finished cleanly, else what went wrong (the first
// violation's message, or which cores did not finish).
std::string EndLaunch();
// Parent, once the launch's cores have ended (the AscendCKernelEnd hook): keeps EndLaunch()'s verdict as
// LastLaunchError(). A failed launch prints "error: ICPU_RUN_KF(<kernel>) failed: <why>" to stderr (as front
// end A's tikicpulib.h does) and the process then exits with status 1 whatever main returns (CANN's launcher
// does not report its cores' failures, so a CPU-debug program would otherwise end with 0).
void FinishLaunch(const char* kernel);
// The verdict of this process's latest launch: "" or why it failed.
std::string LastLaunchError();
// This process's core (0 in the parent).
int CoreIndex();
void SetCoreIndex(int core);
// Records a failure of this core with its message (the first failure of the launch keeps its text).
void RecordFailure(const char* message);
// The latest error CANN's checks logged in this core (api_check's dlog_error, trailing newline dropped), kept
// to name the failure when CANN's Ascend C aborts the core right after; "" when none.
void NoteCheckError(const char* text);
const char* LastCheckError();

}  // namespace normgrad::cann
