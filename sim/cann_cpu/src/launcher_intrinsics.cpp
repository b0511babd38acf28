// The launcher and core-identity intrinsics that CANN's closed CPU library defines and its open launcher
// (asc-tools kern_fwk.h, ICPU_RUN_KF) and the devkit call: get_process_num, set_block_dim, set_core_type,
// set_ffts_base_addr, get_block_idx, get_block_num, get_subblockid, get_subblockdim.
//
// Numbering: every process is one vector core (dav-c220) or one AI core (dav-c100), blockDim of them, as on
// the device for our kernel types (KERNEL_TYPE_AIV_ONLY, and MIX_AIV_1_0: one vector core per group, no
// cube): core i has block_idx = i, sub_block_idx = 0 and a task ratio of 1, so the devkit's CPU-mode
// GetBlockIdx() (dav-c220: block_idx * g_taskRation + sub_block_idx; dav-c100: block_idx) and the raw
// get_block_idx() that soft SyncAll reads both give i, and GetBlockNum() gives blockDim.
// They are explicit specialisations of the variadic declarations in stub_fun.h, for the argument types the
// framework and the devkit call them with.
#include <unistd.h>

#include "stub_fun.h"

// Declared before the devkit's headers, whose inline functions call (and so would instantiate) them.
template <> int get_process_num<>();
template <> void set_block_dim<int>(int idx);
template <> void set_core_type<int>(int idx);
template <> void set_ffts_base_addr<unsigned long>(unsigned long addr);
template <> int64_t get_block_idx<>();
template <> int64_t get_block_num<>();
template <> int64_t get_subblockid<>();
template <> int64_t get_subblockdim<>();

#include "kernel_operator.h"
#include "cost_report.h"
#include "launch_state.h"
#include "normgrad_isa/state.h"

namespace {

// The model's report of a rule violation: the first one names the launch's failure, then the core ends
// (CANN's launcher counts an exit status other than 0 as a failed core; EndLaunch reports it).
void OnViolation(const char* message) {
  normgrad::cann::RecordFailure(message);
  std::fprintf(stderr, "normgrad-isa [core %d]: %s\n", normgrad::cann::CoreIndex(), message);
  std::fflush(stderr);
  _exit(3);
}

// The devkit's CPU-mode stores read g_isAtomic / g_atomicType (DataCopy takes the process lock around an
// atomic store; dav-c100 adds in UB itself): keep them in step with the model's atomic mode.
void OnAtomicChange(bool enabled, normgrad::isa::AtomicOp op) {
  AscendC::g_isAtomic = enabled;
  AscendC::g_atomicType = op == normgrad::isa::AtomicOp::kMax   ? AscendC::MAX
                          : op == normgrad::isa::AtomicOp::kMin ? AscendC::MIN
                                                                : AscendC::SUM;
}

}  // namespace

// Parent, once before the forks (block_num is already the launch's blockDim): the launch's shared state
// starts here (AscendCKernelEnd reads its verdict, launch_state.h).
template <>
int get_process_num<>() {
  g_taskRation = 1;
  sub_block_idx = 0;
  normgrad::cann::BeginLaunch(static_cast<uint32_t>(block_num));
  return static_cast<int>(block_num);
}

// Parent, before forking process idx: the child inherits its identity.
template <>
void set_block_dim<int>(int idx) {
  block_idx = idx;
  sub_block_idx = 0;
}

// Child, first thing after the fork: the core type of the device build (dav-c220 vector core: AIV;
// dav-c100 AI core: MIX), a fresh model state, and the model's hooks.
template <>
void set_core_type<int>(int idx) {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
  g_coreType = AscendC::AIV;
#else
  g_coreType = AscendC::MIX;
#endif
  normgrad::cann::SetCoreIndex(idx);
  normgrad::isa::ResetCore();
  normgrad::isa::SetViolationHook(OnViolation);
  normgrad::isa::SetAtomicListener(OnAtomicChange);
  AscendC::g_isAtomic = false;
  AscendC::g_atomicType = AscendC::SUM;
  // The core's UB: the devkit's CPU-mode buffer (allocated in the parent before the fork; each process
  // has its own copy).
  normgrad::isa::RegisterUb(AscendC::ConstDefiner::Instance().cpuUB,
                            AscendC::ConstDefiner::Instance().bufferInitLen.at(AscendC::Hardware::UB));
  normgrad::cann::BeginCoreCost(static_cast<int>(block_num));
}

// The FFTS base address: the framework's own counter block; hard SyncAll here keeps its counters in the
// launch's shared state instead (cross_core_sync.cpp), so the address is only remembered.
template <>
void set_ffts_base_addr<unsigned long>(unsigned long addr) {
  (void)addr;
}

template <>
int64_t get_block_idx<>() {
  return block_idx;
}

template <>
int64_t get_block_num<>() {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 1001
  // dav-c100's soft SyncAll starts with pipe_barrier(PIPE_ALL) and then get_block_num (cost_report.h).
  if (normgrad::cann::SoftSyncAllStartsHere()) normgrad::cann::BeginSoftSyncAll();
#endif
  return block_num;
}

template <>
int64_t get_subblockid<>() {
  return sub_block_idx;
}

template <>
int64_t get_subblockdim<>() {
  return g_taskRation;
}
