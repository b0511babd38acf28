// LayerNorm backward kernel entry (op type LayerNormGradV3): reads the tiling, switches on its mode
// and the dy/x dtype, runs the mode and, with several row ranges, the dgamma/dbeta reduction.
// Inputs in the order of the graph op LayerNormGradV3: dy, x, rstd, mean, gamma.
#include "kernel_operator.h"
#include "common/arch.h"
#include "layer_norm_grad_tiling.h"
#include "layer_norm_grad_param_reduce.h"
#include "layer_norm_grad_row_slices.h"
#include "layer_norm_grad_short_rows.h"
#include "layer_norm_grad_two_pass.h"
#include "layer_norm_grad_whole_rows.h"

namespace normgrad {

template <typename Mode>
__aicore__ inline void RunMode(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
  Mode op;
  op.Init(pipe, args, t);
  op.Process();
}

// A batch mode with the copy policy of the tiling: whole 32-byte blocks where DataCopyPad is missing.
template <template <typename, typename> class Mode, typename T>
__aicore__ inline void RunWithCopy(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
  if (t.blockCopy) {
    RunMode<Mode<T, LnBlockCopy<T>>>(pipe, args, t);
  } else {
    RunMode<Mode<T, LnPadCopy<T>>>(pipe, args, t);
  }
}

template <typename T>
__aicore__ inline void RunLayerNormGrad(const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
  AscendC::TPipe pipe;
  switch (t.mode) {
    case kLnWholeRows:
      RunWithCopy<LayerNormGradWholeRows, T>(&pipe, args, t);
      break;
    case kLnRowSlices:
      RunWithCopy<LayerNormGradRowSlices, T>(&pipe, args, t);
      break;
    case kLnTwoPass:
      RunMode<LayerNormGradTwoPass<T>>(&pipe, args, t);
      break;
    case kLnShortRows:
      RunMode<LayerNormGradShortRows<T>>(&pipe, args, t);
      break;
    default:
      return;
  }
  // Stage 2: the per-range dgamma/dbeta partials summed in range order, in the UB the mode released.
  if (t.rowRanges > 1 && (t.needDgamma || t.needDbeta)) {
    AscendC::PipeBarrier<PIPE_ALL>();
    pipe.Reset();
    const LnReduceUbLayout ub = LayerNormGradReduceUb(t);
    if (t.reduce.splitPhase) {  // the second half of PublishParams' barrier (A2/A3)
#if !NORMGRAD_BLOCK_COPY_ARCH
      AscendC::CrossCoreWaitFlag(kLnParamsFlagId);
#endif
    } else if (ub.buf[kLnRdSync].count) {  // soft SyncAll (training series)
      AscendC::TBuf<AscendC::TPosition::VECCALC> syncUb;
      pipe.InitBuffer(syncUb, static_cast<uint32_t>(ub.buf[kLnRdSync].bytes));
      AscendC::GlobalTensor<int32_t> flags;
      flags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(args.workspace + t.syncOffset), t.blockDim * 8);
      AscendC::SyncAll(flags, syncUb.Get<int32_t>());
    } else {
      AscendC::SyncAll();
    }
    RunMode<LayerNormGradParamReduce>(&pipe, args, t);
  }
}

}  // namespace normgrad

extern "C" __global__ __aicore__ void layer_norm_grad_v3(GM_ADDR dy, GM_ADDR x, GM_ADDR rstd, GM_ADDR mean,
                                                      GM_ADDR gamma, GM_ADDR dx, GM_ADDR dgamma, GM_ADDR dbeta,
                                                      GM_ADDR workspace, GM_ADDR tiling) {
// The Atlas training (arch 1001) and inference (2002) series have no bfloat16 and no hard SyncAll
// (common/arch.h): their builds leave out the bf16 instantiation and the MIX kernel type, so the
// kernel is an AI-core kernel there (KERNEL_TYPE_AICORE, the default; on the inference series
// not KERNEL_TYPE_MIX_VECTOR_CORE, whose launches have no SyncAll: docs/layer_norm_grad.md), and
// the tiling selects the soft SyncAll. The simulator defines no __NPU_ARCH__ and builds everything.
#if !NORMGRAD_BLOCK_COPY_ARCH
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);  // hard SyncAll
#endif
  GET_TILING_DATA_WITH_STRUCT(normgrad::LayerNormGradTiling, t, tiling);
  GM_ADDR ws = t.workspaceBytes > 0 ? AscendC::GetUserWorkspace(workspace) : workspace;
  const normgrad::LayerNormGradArgs args{dy, x, rstd, mean, gamma, dx, dgamma, dbeta, ws};
  if (t.dtype == normgrad::kDtypeFloat32) {
    normgrad::RunLayerNormGrad<float>(args, t);
  } else if (t.dtype == normgrad::kDtypeFloat16) {
    normgrad::RunLayerNormGrad<half>(args, t);
#if !NORMGRAD_BLOCK_COPY_ARCH
  } else {
    normgrad::RunLayerNormGrad<bfloat16_t>(args, t);
#endif
  }
}
