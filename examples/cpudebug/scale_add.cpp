// A vector kernel written as CANN's Ascend C programming guide writes one (kernel direct call, CPU-debug
// mode): z = x + alpha * y over `total` floats, split evenly over the cores, each core's share streamed
// through the Unified Buffer in tiles with double-buffered queues. Built and run by
//   normgrad cpudebug cc --soc ascend910b scale_add.cpp scale_add_main.cpp -o scale_add && ./scale_add
// (examples/cpudebug/README.md). Two deliberate mistakes can be compiled in, to see that front end B stops a
// program that breaks a rule:
//   -DSCALE_ADD_WRONG_COUNT     Add over twice the tile's elements: past the end of its LocalTensors, which
//                               CANN's own parameter checks (api_check) reject;
//   -DSCALE_ADD_UNSET_WAIT      a WaitFlag with no SetFlag before it: on a device the core waits forever; the
//                               instruction-level model reports it.
#include "kernel_operator.h"

constexpr int32_t kTile = 256;   // floats per tile: 1 KiB
constexpr int32_t kBuffers = 2;  // double buffering

class KernelScaleAdd {
 public:
  __aicore__ inline KernelScaleAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, float alpha) {
    const uint32_t perCore = total / AscendC::GetBlockNum();
    const uint32_t first = perCore * AscendC::GetBlockIdx();
    tiles_ = static_cast<int32_t>(perCore / kTile);
    alpha_ = alpha;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, perCore);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, perCore);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + first, perCore);
    pipe_.InitBuffer(inX_, kBuffers, kTile * sizeof(float));
    pipe_.InitBuffer(inY_, kBuffers, kTile * sizeof(float));
    pipe_.InitBuffer(out_, kBuffers, kTile * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (int32_t i = 0; i < tiles_; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t i) {
    AscendC::LocalTensor<float> x = inX_.AllocTensor<float>();
    AscendC::LocalTensor<float> y = inY_.AllocTensor<float>();
    AscendC::DataCopy(x, xGm_[i * kTile], kTile);
    AscendC::DataCopy(y, yGm_[i * kTile], kTile);
    inX_.EnQue(x);
    inY_.EnQue(y);
  }

  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> x = inX_.DeQue<float>();
    AscendC::LocalTensor<float> y = inY_.DeQue<float>();
    AscendC::LocalTensor<float> z = out_.AllocTensor<float>();
    AscendC::Muls(z, y, alpha_, kTile);
#ifdef SCALE_ADD_WRONG_COUNT
    AscendC::Add(z, x, z, 2 * kTile);
#else
    AscendC::Add(z, x, z, kTile);
#endif
    out_.EnQue(z);
    inX_.FreeTensor(x);
    inY_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(int32_t i) {
    AscendC::LocalTensor<float> z = out_.DeQue<float>();
#ifdef SCALE_ADD_UNSET_WAIT
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);
#endif
    AscendC::DataCopy(zGm_[i * kTile], z, kTile);
    out_.FreeTensor(z);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::TPosition::VECIN, kBuffers> inX_, inY_;
  AscendC::TQue<AscendC::TPosition::VECOUT, kBuffers> out_;
  AscendC::GlobalTensor<float> xGm_, yGm_, zGm_;
  int32_t tiles_ = 0;
  float alpha_ = 0.0f;
};

// params: {uint32_t total; float alpha;} in GM, as a kernel reads a small argument block.
extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR params) {
  const uint32_t total = *reinterpret_cast<__gm__ uint32_t*>(params);
  const float alpha = *reinterpret_cast<__gm__ float*>(params + sizeof(uint32_t));
  KernelScaleAdd op;
  op.Init(x, y, z, total, alpha);
  op.Process();
}
