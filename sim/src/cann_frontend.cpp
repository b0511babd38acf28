// Front end B from front end A's side (simhost/cann_frontend.h): writes the launch into a temporary launch
// directory (sim/cann_cpu/runner/launch_file.h), runs normgrad_cann_run_<soc> on it in a child process (the
// two front ends define the same AscendC names and cannot share a process) and copies the GM back.
#include "simhost/cann_frontend.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../cann_cpu/runner/core_report.h"
#include "../cann_cpu/runner/launch_file.h"
#include "ascendc/core.h"
#include "ascendc/cost.h"
#include "ascendc/entry.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"
#include "normgrad_sim.h"
#include "simhost/c_boundary.h"

extern char** environ;

namespace sim::host {
namespace {

// The runner built for a SoC family: front end B has one build per architecture (dav-c220 for Atlas
// A2/A3, dav-c100 for the training series). A chip profile (Ascend910B3) runs on its family's build.
const char* RunnerSoc(const std::string& family) {
  if (family == "ascend910b" || family == "ascend910_93") return "ascend910b";
  if (family == "ascend910") return "ascend910";
  return nullptr;
}

// Where the runners are: NORMGRAD_CANN_RUNNER_DIR, else beside this library (the build directory).
std::string RunnerDir() {
  if (const char* env = std::getenv("NORMGRAD_CANN_RUNNER_DIR"); env != nullptr && *env != '\0') return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&RunOnCannFrontEnd), &info) != 0 && info.dli_fname != nullptr) {
    return std::filesystem::path(info.dli_fname).parent_path().string();
  }
  return ".";
}

std::string Tail(const std::string& path, size_t maxBytes) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > maxBytes) text = "..." + text.substr(text.size() - maxBytes);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Runs exe dir with stdout and stderr into dir/log.txt, in a process group of its own (it forks one
// process per core); returns the exit status, -1 if it did not run, -2 if it ran longer than
// NORMGRAD_CANN_TIMEOUT seconds (default 600) and was killed with its cores.
int RunChild(const std::string& exe, const std::string& dir) {
  const char* limitEnv = std::getenv("NORMGRAD_CANN_TIMEOUT");
  const double limitSeconds = limitEnv != nullptr && std::atof(limitEnv) > 0 ? std::atof(limitEnv) : 600.0;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = dir + "/log.txt";
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string exeArg = exe, dirArg = dir;
  char* argv[] = {exeArg.data(), dirArg.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return -1;
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limitSeconds) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    usleep(2000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The failure's own words from the runner's output: the "[ERROR]" lines CANN's Ascend C prints before it
// aborts a core (api_check, assertions) and the model's "normgrad-isa" lines; else the output's tail.
std::string FailureLines(const std::string& path) {
  std::ifstream in(path);
  std::string line, picked;
  while (std::getline(in, line) && picked.size() < 1500) {
    if (line.find("[ERROR]") != std::string::npos || line.rfind("normgrad-isa", 0) == 0) picked += line + "\n";
  }
  while (!picked.empty() && picked.back() == '\n') picked.pop_back();
  return picked.empty() ? Tail(path, 1500) : picked;
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "normgrad-cann-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty() && std::getenv("NORMGRAD_CANN_KEEP") == nullptr) std::filesystem::remove_all(path, ec);
  }
};

CoreCounters ToCounters(const normgrad::cann::CoreFigures& f) {
  CoreCounters c;
  c.gmToUbBytes = f.gmToUbBytes;
  c.ubToGmBytes = f.ubToGmBytes;
  c.ubToUbBytes = f.ubToUbBytes;
  c.dmaIn = f.dmaIn;
  c.dmaOut = f.dmaOut;
  c.vecInstr = f.vecInstr;
  for (int k = 0; k < static_cast<int>(OpClass::kCount); ++k) c.vecRepeats[k] = f.vecRepeats[k];
  c.scalarGm = f.scalarGm;
  c.scalarGmBytesIn = f.scalarGmBytesIn;
  c.scalarGmBytesOut = f.scalarGmBytesOut;
  c.syncs = f.syncs;
  c.syncAll = f.syncAll;
  c.crossCoreWaits = f.crossCoreWaits;
  c.fullBarriers = f.fullBarriers;
  c.drains = f.drains;
  c.l2HitBytes = f.l2HitBytes;
  c.ubPeakBytes = f.ubPeakBytes;
  return c;
}

}  // namespace

namespace {

bool ReadCores(const std::string& dir, const std::string& kernel, uint32_t blockDim, LaunchReport* report,
               std::string* error) {
  const SocProfile& soc = CurrentSoc();
  const SocProfile costSoc = EffectiveSoc(soc);
  report->kernel = kernel;
  report->blockDim = static_cast<int>(blockDim);
  report->soc = &soc;
  report->tilingKey = g_tilingKey;
  for (uint32_t i = 0; i < blockDim; ++i) {
    normgrad::cann::CoreReport r;
    if (!normgrad::cann::ReadCoreReport(normgrad::cann::CoreReportPath(dir, static_cast<int>(i)), &r, error)) {
      return false;
    }
    CoreCounters c = ToCounters(r.figures);
    // The work between a CrossCoreSetFlag and its wait, priced as front end A prices it at the wait.
    for (const auto& w : r.splitWaits) {
      c.splitWaitOverlapUs.push_back(CoreBusyUs(ToCounters(w.second), costSoc) -
                                     CoreBusyUs(ToCounters(w.first), costSoc));
    }
    report->cores.push_back(std::move(c));
  }
  return true;
}

}  // namespace

bool RecordCannLaunch(const std::string& dir, const std::string& kernel, uint32_t blockDim, std::string* error) {
  LaunchReport report;
  if (!ReadCores(dir, kernel, blockDim, &report, error)) return false;
  AppendToLog(report);
  return true;
}

bool ReadCannLaunch(const std::string& dir, const std::string& kernel, LaunchReport* report, std::string* error) {
  uint32_t cores = 0;
  while (access(normgrad::cann::CoreReportPath(dir, static_cast<int>(cores)).c_str(), R_OK) == 0) ++cores;
  if (cores == 0) {
    *error = "no cost report " + normgrad::cann::CoreReportPath(dir, 0);
    return false;
  }
  return ReadCores(dir, kernel, cores, report, error);
}

FrontEnd SelectedFrontEnd(std::string* error) {
  const char* env = std::getenv("NORMGRAD_FRONTEND");
  const std::string v = env != nullptr ? env : "";
  if (v.empty() || v == "sim") return FrontEnd::kSim;
  if (v == "cann") return FrontEnd::kCann;
  *error = "NORMGRAD_FRONTEND is '" + v + "': expected 'sim' (the simulator's Ascend C API, the default) or 'cann' "
           "(CANN's Ascend C implementation on the instruction-level model, built with ./build.sh --cann-cpu)";
  return FrontEnd::kSim;
}

CannReadiness CannFrontEndReadiness(const SocProfile& soc, std::string* runner, std::string* why) {
  const char* arch = RunnerSoc(soc.family);
  if (arch == nullptr) {
    *why = std::string("front end B has no build for SoC ") + soc.name + " (family " + soc.family +
           "): it runs the Atlas A2/A3 (ascend910b, ascend910_93) and training-series (ascend910) families";
    return CannReadiness::kNoBuildForSoc;
  }
  *runner = RunnerDir() + "/normgrad_cann_run_" + arch;
  if (access(runner->c_str(), X_OK) != 0) {
    const char* env = std::getenv("NORMGRAD_CANN_RUNNER_DIR");
    *why = "front end B is not built: no runner " + *runner + " (looked for in " +
           (env != nullptr && *env != '\0' ? "NORMGRAD_CANN_RUNNER_DIR"
                                           : "the directory of libnormgrad.so, as NORMGRAD_CANN_RUNNER_DIR is unset") +
           "); build it with ./build.sh --cann-cpu (writes build/cann/normgrad_cann_run_*), then set "
           "NORMGRAD_CANN_RUNNER_DIR=<checkout>/build/cann";
    return CannReadiness::kNotBuilt;
  }
  return CannReadiness::kReady;
}

std::string RunOnCannFrontEnd(const std::string& kernel, uint32_t blockDim, const std::vector<uint8_t*>& args,
                              uint8_t* workspace, const std::vector<uint8_t>& tiling) {
  std::string exe, why;
  if (CannFrontEndReadiness(CurrentSoc(), &exe, &why) != CannReadiness::kReady) return why;
  TempDir dir;
  if (dir.path.empty()) return "cannot make a temporary launch directory";

  normgrad::cann::LaunchFile f;
  f.kernel = kernel;
  f.blockDim = blockDim;
  f.l2Bytes = EffectiveSoc(CurrentSoc()).l2Bytes;  // as front end A's launch resets its L2 model
  std::map<uintptr_t, int> regionOf;  // allocation base -> region index
  std::vector<uintptr_t> bases;
  std::vector<uint8_t*> all = args;
  all.push_back(workspace);
  for (uint8_t* p : all) {
    normgrad::cann::LaunchArg a;
    if (p != nullptr) {
      uintptr_t base = 0;
      uint64_t bytes = 0;
      if (!gm::FindAllocation(p, &base, &bytes)) return "a kernel argument is not device memory";
      auto it = regionOf.find(base);
      if (it == regionOf.end()) {
        it = regionOf.emplace(base, static_cast<int>(bases.size())).first;
        bases.push_back(base);
        f.regionBytes.push_back(bytes);
        if (!normgrad::cann::WriteFileBytes(normgrad::cann::RegionPath(dir.path, it->second),
                                            reinterpret_cast<const void*>(base), bytes)) {
          return "cannot write the launch directory " + dir.path;
        }
      }
      a.region = it->second;
      a.offset = reinterpret_cast<uintptr_t>(p) - base;
    }
    f.args.push_back(a);
  }
  // The tiling: a GM copy of its own, as the device gets it.
  const int tilingRegion = static_cast<int>(f.regionBytes.size());
  f.regionBytes.push_back(tiling.size());
  f.args.push_back({tilingRegion, 0});
  if (!normgrad::cann::WriteFileBytes(normgrad::cann::RegionPath(dir.path, tilingRegion), tiling.data(),
                                      tiling.size()) ||
      !normgrad::cann::WriteLaunchFile(dir.path, f)) {
    return "cannot write the launch directory " + dir.path;
  }

  const int status = RunChild(exe, dir.path);
  const std::string result = Tail(dir.path + "/result.txt", 2000);
  if (status != 0 || result != "ok") {
    std::string why = status == -2 ? "killed after NORMGRAD_CANN_TIMEOUT seconds (a core hangs?)"
                      : result.rfind("error ", 0) == 0 ? result.substr(6)
                                                       : "exit status " + std::to_string(status);
    return "front end B (" + exe + "): " + why + "\n" + FailureLines(dir.path + "/log.txt");
  }
  for (size_t i = 0; i < bases.size(); ++i) {
    if (!normgrad::cann::ReadFileBytes(normgrad::cann::RegionPath(dir.path, i), reinterpret_cast<void*>(bases[i]),
                                       f.regionBytes[i])) {
      return "cannot read back " + normgrad::cann::RegionPath(dir.path, i);
    }
  }
  std::string error;
  if (!RecordCannLaunch(dir.path, kernel, blockDim, &error)) return "front end B's cost report: " + error;
  return "";
}

}  // namespace sim::host

extern "C" int normgradSimCannFrontEnd(const char* soc, char* msg, size_t msgBytes) {
  return sim::host::CBoundary("normgradSimCannFrontEnd", 3, [&] {
    const sim::SocProfile* profile = soc != nullptr && *soc != '\0' ? sim::FindSoc(soc) : &sim::CurrentSoc();
    std::string runner, why;
    int status = 3;
    if (profile == nullptr) {
      why = std::string("no SoC profile is named '") + soc + "'";
    } else {
      status = static_cast<int>(sim::host::CannFrontEndReadiness(*profile, &runner, &why));
      if (status == 0) why = runner;
    }
    if (msg != nullptr && msgBytes > 0) {
      std::strncpy(msg, why.c_str(), msgBytes - 1);
      msg[msgBytes - 1] = '\0';
    }
    return status;
  });
}
