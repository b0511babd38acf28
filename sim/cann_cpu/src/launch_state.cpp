// The launch's shared state (launch_state.h): one anonymous shared mapping made in the parent, inherited by
// every forked core process.
#include "launch_state.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace normgrad::cann {
namespace {
int g_core = 0;
std::string g_lastError;
pid_t g_failedPid = 0;  // the process a failed launch makes exit 1 (not the cores it forks later)

void ExitFailedAfterAFailedLaunch() {
  if (g_failedPid != getpid()) return;
  std::fflush(nullptr);
  _exit(1);
}
}  // namespace

SharedLaunch& Shared() {
  static SharedLaunch* shared = [] {
    void* p = mmap(nullptr, sizeof(SharedLaunch), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "normgrad_cann_run: cannot map the launch's shared state\n");
      std::exit(1);
    }
    return new (p) SharedLaunch();
  }();
  return *shared;
}

void BeginLaunch(uint32_t blockDim) {
  SharedLaunch& s = Shared();
  s.cores = static_cast<int32_t>(blockDim);
  for (auto& f : s.fftsSet) f = 0;
  for (int i = 0; i < kMaxCores; ++i) {
    s.waitFlag[i] = kNotWaiting;
    s.waitTarget[i] = 0;
    s.coreOk[i] = 0;
    s.coreExited[i] = 0;
  }
  s.failed = 0;
  s.message[0] = '\0';
}

std::string EndLaunch() {
  SharedLaunch& s = Shared();
  if (s.failed.load() != 0) return s.message;
  std::string missing;
  for (int i = 0; i < s.cores; ++i) {
    if (s.coreOk[i].load() == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty()) return "core(s) " + missing + " did not finish (crashed or trapped; see stderr)";
  return "";
}

void FinishLaunch(const char* kernel) {
  g_lastError = EndLaunch();
  if (g_lastError.empty()) return;
  std::fflush(stdout);
  std::fprintf(stderr, "error: ICPU_RUN_KF(%s) failed: %s\n", kernel, g_lastError.c_str());
  std::fflush(stderr);
  if (g_failedPid == 0) std::atexit(ExitFailedAfterAFailedLaunch);
  g_failedPid = getpid();
}

std::string LastLaunchError() { return g_lastError; }

int CoreIndex() { return g_core; }
void SetCoreIndex(int core) { g_core = core; }

namespace {
char g_checkError[kMessageBytes / 2] = "";
}  // namespace

void NoteCheckError(const char* text) {
  std::snprintf(g_checkError, sizeof(g_checkError), "%s", text);
  size_t n = std::strlen(g_checkError);
  while (n > 0 && (g_checkError[n - 1] == '\n' || g_checkError[n - 1] == ' ')) g_checkError[--n] = '\0';
}

const char* LastCheckError() { return g_checkError; }

void RecordFailure(const char* message) {
  SharedLaunch& s = Shared();
  int32_t expected = 0;
  if (s.failed.compare_exchange_strong(expected, 1)) {
    std::snprintf(s.message, kMessageBytes, "core %d: %s", g_core, message);
  }
}

}  // namespace normgrad::cann
