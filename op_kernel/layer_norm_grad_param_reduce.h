// LayerNorm backward stage 2 (groups > 1): dgamma/dbeta = sum over groups of the per-group fp32
// partials in the workspace, in group order, so the result is bitwise the same on every run.
// Each core owns reduceCols columns; only the G partial rows of a column chunk are resident.
#pragma once
#include "kernel_operator.h"
#include "layer_norm_grad_tiling.h"
#include "layer_norm_grad_batch.h"
#include "common/float_io.h"
#include "common/pipe_fence.h"

namespace normgrad {

class LayerNormGradParamReduce {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
    a_ = args;
    t_ = t;
    uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    colBegin_ = core * t.reduceCols;
    colEnd_ = colBegin_ + t.reduceCols < t.cols ? colBegin_ + t.reduceCols : t.cols;
    pipe->InitBuffer(partBuf_, t.groups * t.reduceChunkCols * 4);
    pipe->InitBuffer(sumBuf_, t.reduceChunkCols * 4);
    pipe->InitBuffer(stageBuf_, t.reduceChunkCols * 4);
  }

  __aicore__ inline void Process() {
    if (t_.needDgamma) ReduceOutput(0, a_.dgamma);
    if (t_.needDbeta) ReduceOutput(1, a_.dbeta);
  }

 private:
  __aicore__ inline void ReduceOutput(uint32_t which, GM_ADDR out) {
    AscendC::LocalTensor<float> part = partBuf_.Get<float>();
    AscendC::LocalTensor<float> sum = sumBuf_.Get<float>();
    AscendC::LocalTensor<float> stage = stageBuf_.Get<float>();
    const uint32_t cr = t_.reduceChunkCols;
    for (uint64_t c0 = colBegin_; c0 < colEnd_; c0 += cr) {
      const uint32_t cw = static_cast<uint32_t>(colEnd_ - c0 < cr ? colEnd_ - c0 : cr);
      const int32_t cnt = static_cast<int32_t>(cw);
      AscendC::GlobalTensor<float> gm;
      gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(a_.workspace + t_.partialOffset) +
                         which * t_.partialStride + c0);
      AscendC::DataCopyExtParams params(static_cast<uint16_t>(t_.groups), cw * 4,
                                        static_cast<uint32_t>((2 * t_.partialStride - cw) * 4),
                                        cr * 4 / 32 - (cw * 4 + 31) / 32, 0);
      AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
      PipeFence<AscendC::HardEvent::V_MTE2>();
      AscendC::DataCopyPad(part, gm, params, pad);
      PipeFence<AscendC::HardEvent::MTE2_V>();
      AscendC::Adds(sum, part, 0.0f, cnt);
      for (uint32_t g = 1; g < t_.groups; ++g) AscendC::Add(sum, sum, part[g * cr], cnt);
      StoreFromFloat(out, c0, sum, stage, cw, t_.weightDtype);
    }
  }

  LayerNormGradArgs a_{};
  LayerNormGradTiling t_{};
  uint64_t colBegin_ = 0, colEnd_ = 0;
  AscendC::TBuf<AscendC::TPosition::VECCALC> partBuf_, sumBuf_, stageBuf_;
};

}  // namespace normgrad
