// GroupNormGrad kernel entry: reads the tiling, picks the dtype instantiation and runs the phases
// of the tiling's mode (the switch below; one case per GroupNormGradMode). No math here.
// cann-check: skip-arch ascend310p aclnnGroupNormBackward does not list the Atlas inference series (310P); its OpDef leaves it out
#include "kernel_operator.h"
#include "common/arch.h"
#include "group_norm_grad_channel_slab.h"
#include "group_norm_grad_params.h"
#include "group_norm_grad_reread_groups.h"
#include "group_norm_grad_sample_rows.h"
#include "group_norm_grad_split_group.h"
#include "group_norm_grad_whole_group.h"

namespace normgrad {

// One phase: Init carves the UB (its layout in group_norm_grad_ub_layout.h), Process runs it;
// `reset` frees the UB for the next phase.
template <typename Phase, typename T>
__aicore__ inline void RunPhase(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe,
                                bool reset) {
  Phase op;
  op.Init(t, gm, pipe);
  op.Process();
  if (reset) pipe->Reset();
}

// The SyncAll between whole groups and dgamma/dbeta (the split waves end with their own): every
// core's piece sums are in the workspace before any core reads them.
template <typename T>
__aicore__ inline void GngSyncAllCores(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm,
                                       AscendC::TPipe* pipe) {
  AscendC::PipeBarrier<PIPE_ALL>();
  if (t.softSync) {
    AscendC::TBuf<AscendC::TPosition::VECCALC> syncUb;
    pipe->InitBuffer(syncUb, t.blockDim * 32);
    AscendC::SyncAll(gm.syncFlags, syncUb.Get<int32_t>());
    pipe->Reset();
  } else {
    AscendC::SyncAll();
  }
}

#if !NORMGRAD_BLOCK_COPY_ARCH
// Whole groups plus one split wave with a split-phase barrier (paramsSplitPhase, A2/A3): the
// wave's piece sums, then the whole groups (independent work; their phase raises the flag behind
// its last sums, so the flag covers every sum this core writes), the wait, and the wave's dx from
// a second read of its slice. The same sums in the same order as the SyncAll launch.
template <typename T, typename Copy>
__aicore__ inline void RunWaveSplitPhase(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm,
                                         AscendC::TPipe* pipe) {
  {
    GroupNormGradSplitGroup<T, Copy> wave;
    wave.Init(t, gm, pipe);
    wave.SplitPhase(true);
    pipe->Reset();
  }
  RunPhase<GroupNormGradWholeGroup<T, Copy>>(t, gm, pipe, true);
  AscendC::CrossCoreWaitFlag(kGngParamsFlagId);
  GroupNormGradSplitGroup<T, Copy> wave;
  wave.Init(t, gm, pipe);
  wave.SplitPhase(false);
  pipe->Reset();
}
#endif

// The group-phase modes: whole groups, split waves, dgamma/dbeta, as the mode lists them.
template <typename T, typename Copy>
__aicore__ inline void RunGroupPhases(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm,
                                      AscendC::TPipe* pipe) {
  const bool params = t.needDgamma || t.needDbeta;
  switch (t.mode) {
    case kGngWholeGroup:  // whole groups, then a SyncAll and dgamma/dbeta
      RunPhase<GroupNormGradWholeGroup<T, Copy>>(t, gm, pipe, true);
      if (params) {
#if !NORMGRAD_BLOCK_COPY_ARCH
        if (t.paramsSplitPhase) {
          AscendC::CrossCoreWaitFlag(kGngParamsFlagId);  // raised after each core's last sums
        } else {
          GngSyncAllCores(t, gm, pipe);
        }
#else
        GngSyncAllCores(t, gm, pipe);
#endif
        RunPhase<GroupNormGradParams<T, Copy>>(t, gm, pipe, false);
      }
      return;
    case kGngWholeGroupSplit:  // whole groups, split waves (their SyncAll), dgamma/dbeta
#if !NORMGRAD_BLOCK_COPY_ARCH
      if (t.paramsSplitPhase) {  // one wave: its sums, the whole groups (they raise the flag), its dx
        RunWaveSplitPhase<T, Copy>(t, gm, pipe);
        if (params) RunPhase<GroupNormGradParams<T, Copy>>(t, gm, pipe, false);
        return;
      }
#endif
      RunPhase<GroupNormGradWholeGroup<T, Copy>>(t, gm, pipe, true);
      RunPhase<GroupNormGradSplitGroup<T, Copy>>(t, gm, pipe, true);
      if (params) RunPhase<GroupNormGradParams<T, Copy>>(t, gm, pipe, false);
      return;
    case kGngRereadGroups:  // whole groups per core, then dgamma/dbeta after a SyncAll, or after none
                            // (core k owns group k: only it wrote those sums; or the phase ended
                            // with its own split-phase barrier)
      RunPhase<GroupNormGradRereadGroups<T, Copy>>(t, gm, pipe, true);
      if (params) {
        if (t.rereadLayout == kGngRereadRuns) GngSyncAllCores(t, gm, pipe);
        RunPhase<GroupNormGradParams<T, Copy>>(t, gm, pipe, false);
      }
      return;
    default:  // kGngSplitGroup, kGngTwoPass (slices streamed twice), kGngParamsOnly (no dx)
      RunPhase<GroupNormGradSplitGroup<T, Copy>>(t, gm, pipe, true);
      if (params) RunPhase<GroupNormGradParams<T, Copy>>(t, gm, pipe, false);
      return;
  }
}

template <typename T>
__aicore__ inline void GroupNormGradRun(const GroupNormGradTiling& t, GM_ADDR dy, GM_ADDR mean, GM_ADDR rstd,
                                        GM_ADDR x, GM_ADDR gamma, GM_ADDR dx, GM_ADDR dgamma, GM_ADDR dbeta,
                                        GM_ADDR workspace) {
  GroupNormGradGm<T> gm;
  gm.dy.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dy));
  gm.x.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x));
  gm.mean.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(mean));
  gm.rstd.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(rstd));
  gm.gamma.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gamma));
  gm.dx.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dx));
  gm.dgamma.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dgamma));
  gm.dbeta.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dbeta));
  gm.hasGamma = t.hasGamma != 0 && gamma != nullptr;
  if (t.needDgamma || t.needDbeta || t.waveGroups > 0 || t.mode == kGngRereadGroups) {
    __gm__ float* ws = reinterpret_cast<__gm__ float*>(AscendC::GetUserWorkspace(workspace));
    gm.wsDb.SetGlobalBuffer(ws);
    gm.wsDs.SetGlobalBuffer(ws + t.planeBytes / sizeof(float));
  }
  if (t.softSync) {
    gm.syncFlags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(AscendC::GetUserWorkspace(workspace) +
                                                                   t.syncOffset));
  }
  AscendC::TPipe pipe;
  switch (t.mode) {
    case kGngSampleRows:  // HxW = 1: one phase, plus the stage-2 sum of dgamma/dbeta partials
      RunPhase<GroupNormGradSampleRows<T>>(t, gm, &pipe, false);
      return;
    case kGngChannelSlab:  // one phase: dx and dgamma/dbeta, the workspace holds partials
      RunPhase<GroupNormGradChannelSlab<T>>(t, gm, &pipe, false);
      return;
    default:  // the group-phase modes, on the chip's copy path
      if (t.blockCopyOnly) {
        RunGroupPhases<T, GngBlockCopy<T>>(t, gm, &pipe);
      } else {
        RunGroupPhases<T, GngPadCopy<T>>(t, gm, &pipe);
      }
      return;
  }
}

}  // namespace normgrad

extern "C" __global__ __aicore__ void group_norm_grad(GM_ADDR dy, GM_ADDR mean, GM_ADDR rstd, GM_ADDR x,
                                                      GM_ADDR gamma, GM_ADDR dx, GM_ADDR dgamma, GM_ADDR dbeta,
                                                      GM_ADDR workspace, GM_ADDR tiling) {
// The Atlas training series (arch 1001) has no bfloat16 and no hard SyncAll: its build leaves out
// the bf16 instantiation and the MIX kernel type (the tiling selects soft SyncAll there). The
// simulator defines no __NPU_ARCH__ and builds everything.
#if !NORMGRAD_BLOCK_COPY_ARCH
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);  // hard SyncAll between phases
#endif
  GET_TILING_DATA_WITH_STRUCT(normgrad::GroupNormGradTiling, t, tiling);
  if (t.dtype == normgrad::kDtypeFloat16) {
    normgrad::GroupNormGradRun<half>(t, dy, mean, rstd, x, gamma, dx, dgamma, dbeta, workspace);
#if !NORMGRAD_BLOCK_COPY_ARCH
  } else if (t.dtype == normgrad::kDtypeBfloat16) {
    normgrad::GroupNormGradRun<bfloat16_t>(t, dy, mean, rstd, x, gamma, dx, dgamma, dbeta, workspace);
#endif
  } else {
    normgrad::GroupNormGradRun<float>(t, dy, mean, rstd, x, gamma, dx, dgamma, dbeta, workspace);
  }
}
