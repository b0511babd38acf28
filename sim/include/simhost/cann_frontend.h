// Choosing the front end a kernel launch runs on (issue 20): front end A is the simulator's own Ascend C
// API (sim/include/ascendc), front end B the kernels compiled against CANN's Ascend C implementation in
// CPU-debug mode and run by CANN's launcher on the instruction-level model (sim/cann_cpu, built with
// -DNORMGRAD_CANN_CPU=ON). NORMGRAD_FRONTEND=cann selects B for every aclnn call of the process; unset (or
// "sim") keeps A. Simulator-only (not a CANN header).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sim {
struct SocProfile;
struct LaunchReport;
}

namespace sim::host {

enum class FrontEnd { kSim, kCann };

// The front end NORMGRAD_FRONTEND selects now; *error (and kSim) for a value that names none.
FrontEnd SelectedFrontEnd(std::string* error);

// Whether front end B can run launches for soc: kReady (*runner = the runner's path), or why not (*why):
// the SoC's family has no front end B architecture, or the runner is not built where it is looked for
// (NORMGRAD_CANN_RUNNER_DIR, else beside libnormgrad.so).
enum class CannReadiness { kReady = 0, kNoBuildForSoc = 1, kNotBuilt = 2 };
CannReadiness CannFrontEndReadiness(const SocProfile& soc, std::string* runner, std::string* why);

// Runs one launch on front end B: the kernel named `kernel` (op_kernel's extern "C" entry) with the GM
// pointers args (null allowed), the kernel workspace and the tiling bytes, on the current SoC. Every GM
// allocation an argument points into is handed to B whole and written back after the launch. Returns ""
// or why it failed (B not built, a pointer outside GM, a violation or trap in B, a core that crashed).
// On success the launch's report (each core's counters and UB peak, sim/cann_cpu/runner/core_report.h) is
// appended to sim::RunLog(), so that sim::ModelLaunch / normgrad.last_run() price it as a front end A launch.
std::string RunOnCannFrontEnd(const std::string& kernel, uint32_t blockDim, const std::vector<uint8_t*>& args,
                              uint8_t* workspace, const std::vector<uint8_t>& tiling);

// Reads the cost reports front end B's cores wrote into the launch directory dir (DIR/core<i>.txt) and
// appends the launch report to sim::RunLog() on the current SoC; false with *error when a report is
// missing or does not parse. RunOnCannFrontEnd calls it; a runner of another kind (ops-nn's kernels,
// normgrad cpudebug) that writes the same files can too.
bool RecordCannLaunch(const std::string& dir, const std::string& kernel, uint32_t blockDim, std::string* error);
// The same report without the run log: DIR's core<i>.txt files, as many as there are from core0.txt on
// (normgradCannLaunchReportJson: ops-nn's runner). False with *error when there is none or one does not parse.
bool ReadCannLaunch(const std::string& dir, const std::string& kernel, LaunchReport* report, std::string* error);

}  // namespace sim::host
