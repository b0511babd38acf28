// LayerNorm backward stage 2 (rowRanges > 1): dgamma/dbeta = sum over row ranges of the per-range fp32
// partials in the workspace, in range order, so the result is bitwise the same on every run.
// Each core owns reduce.cols columns; only the G partial rows of a column chunk are resident.
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "layer_norm_grad_tiling.h"
#include "layer_norm_grad_args.h"
#include "common/float_io.h"
#include "common/pipe_fence.h"

namespace normgrad {

class LayerNormGradParamReduce {
 public:
  __aicore__ inline void Init(AscendC::TPipe* pipe, const LayerNormGradArgs& args, const LayerNormGradTiling& t) {
    a_ = args;
    t_ = t;
    uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    colBegin_ = core * t.reduce.cols;
    colEnd_ = colBegin_ + t.reduce.cols < t.cols ? colBegin_ + t.reduce.cols : t.cols;
    // LayerNormGradReduceUb after its sync entry (which the kernel entry allocates before).
    const LnReduceUbLayout ub = LayerNormGradReduceUb(t);
    pipe->InitBuffer(partBuf_, static_cast<uint32_t>(ub.buf[kLnRdPart].bytes));
    pipe->InitBuffer(sumBuf_, static_cast<uint32_t>(ub.buf[kLnRdSum].bytes));
    pipe->InitBuffer(stageBuf_, static_cast<uint32_t>(ub.buf[kLnRdStage].bytes));
    if (ub.buf[kLnRdScratch].count) {
      pipe->InitBuffer(scratchBuf_, static_cast<uint32_t>(ub.buf[kLnRdScratch].bytes));
      io_.on = true;
      io_.scratch = scratchBuf_.Get<float>();
      io_.total = t.cols;
    }
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
    const uint32_t cr = t_.reduce.chunkCols;
    for (uint64_t c0 = colBegin_; c0 < colEnd_; c0 += cr) {
      uint32_t cw = static_cast<uint32_t>(colEnd_ - c0 < cr ? colEnd_ - c0 : cr);
      uint64_t from = c0;
      // Block copies: a piece under one output block that is not the whole output starts earlier,
      // so its store is one whole block; the extra columns get the same fixed-order sums their
      // owner writes.
      const uint32_t pb = t_.weightDtype == kDtypeFloat32 ? 8 : 16;
      if (t_.blockCopy && cw < pb && t_.cols >= pb) {
        from = c0 + cw - pb;
        cw = pb;
      }
      const int32_t cnt = static_cast<int32_t>(cw);
      AscendC::GlobalTensor<float> gm;
      gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(a_.workspace + t_.partialOffset) +
                         which * t_.partialStride + from);
      AscendC::DataCopyExtParams params(static_cast<uint16_t>(t_.rowRanges), cw * 4,
                                        static_cast<uint32_t>((2 * t_.partialStride - cw) * 4),
                                        cr * 4 / 32 - (cw * 4 + 31) / 32, 0);
      AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
      PipeFence<AscendC::HardEvent::V_MTE2>();
      if (t_.blockCopy) {
        // Partial rows are padded to 16 floats in the workspace, so whole blocks stay inside.
        const uint16_t blocks = static_cast<uint16_t>((cw + 7) / 8);
        AscendC::DataCopyParams bp(static_cast<uint16_t>(t_.rowRanges), blocks,
                                   static_cast<uint16_t>(2 * t_.partialStride / 8 - blocks),
                                   static_cast<uint16_t>(cr / 8 - blocks));
        if (from % 8 == 0 && 2 * t_.partialStride / 8 <= 65535) {  // uint16_t block strides
          AscendC::DataCopy(part, gm, bp);
        } else {
          for (uint32_t g = 0; g < t_.rowRanges; ++g) {
            AscendC::DataCopy(part[g * cr], gm[2ull * g * t_.partialStride], blocks * 8u);
          }
        }
      } else {
        PadCopy(part, gm, params, pad);
      }
      PipeFence<AscendC::HardEvent::MTE2_V>();
      AscendC::Adds(sum, part, 0.0f, cnt);
      for (uint32_t g = 1; g < t_.rowRanges; ++g) AscendC::Add(sum, sum, part[g * cr], cnt);
      StoreFromFloat(out, from, sum, stage, cw, t_.weightDtype, io_);
    }
  }

  LayerNormGradArgs a_{};
  LayerNormGradTiling t_{};
  uint64_t colBegin_ = 0, colEnd_ = 0;
  AscendC::TBuf<AscendC::TPosition::VECCALC> partBuf_, sumBuf_, stageBuf_, scratchBuf_;
  BlockIo io_;
};

}  // namespace normgrad
