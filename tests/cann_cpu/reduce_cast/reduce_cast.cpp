// One core runs the APIs whose instructions front end A took over from its own lane code in issue 20 (ReduceSum's
// high-dimension and count forms, PairReduceSum, the half -> float Axpy, Cast with integer operands) on fixed
// inputs and writes every result to GM; main prints the result bytes as hex. Built for front end B with
// `normgrad cpudebug cc` and for front end A against the simulator's headers and libnormgrad
// (tests/cann_cpu/test_reduce_cast.py), the two outputs must be equal byte for byte.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernel_operator.h"
#include "tikicpulib.h"

namespace {

constexpr int32_t kRepeats = 300;         // ReduceSum high-dim: 300 repeats of 64 floats
constexpr int32_t kSrcFloats = kRepeats * 64;
constexpr int32_t kCount = 1000;          // ReduceSum count form: 15 full repeats and a 40-element tail
constexpr int32_t kPair = 256;            // PairReduceSum: 2 repeats of 128 halves
constexpr int32_t kAxpy = 192;            // Axpy<float, half>: 3 repeats
constexpr int32_t kCast = 64;

// UB layout (bytes), every piece 32-byte aligned.
constexpr uint32_t kSrcOff = 0, kTmpOff = kSrcFloats * 4, kSumsOff = kTmpOff + 1216;
constexpr uint32_t kPairSrcOff = kSumsOff + 64, kPairDstOff = kPairSrcOff + kPair * 2;
constexpr uint32_t kAxpyDstOff = kPairDstOff + kPair, kAxpySrcOff = kAxpyDstOff + kAxpy * 4;
constexpr uint32_t kCastInOff = kAxpySrcOff + kAxpy * 2, kCastOutOff = kCastInOff + kCast * 4 * 3;
constexpr uint32_t kUbBytes = kCastOutOff + kCast * 4 * 4;

// GM input: src floats, pair halves, axpy float dst + half src, cast float / half / int32 sources.
constexpr uint32_t kInBytes = kCastOutOff - kSrcOff;
// GM output: the sums (the high-dim one at float 0, the count form's at float 8), pair halves, axpy floats,
// four cast results (three of 4-byte elements, the int8 one: only bytes the casts wrote, since the rest of
// the UB holds what each front end leaves there: A's poison, B's stale memory).
constexpr uint32_t kCastOutBytes = kCast * 4 * 3 + kCast;
constexpr uint32_t kOutBytes = 64 + kPair + kAxpy * 4 + kCastOutBytes;

}  // namespace

extern "C" __global__ __aicore__ void reduce_cast(GM_ADDR in, GM_ADDR out) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> ub;
  pipe.InitBuffer(ub, kUbBytes);
  AscendC::GlobalTensor<uint8_t> inGm, outGm;
  inGm.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(in), kInBytes);
  outGm.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(out), kOutBytes);
  AscendC::LocalTensor<uint8_t> all = ub.Get<uint8_t>();
  AscendC::DataCopy(all, inGm, kInBytes);
  AscendC::PipeBarrier<PIPE_ALL>();

  auto f32 = [&](uint32_t off, uint32_t n) { return ub.GetWithOffset<float>(n, off); };
  auto f16 = [&](uint32_t off, uint32_t n) { return ub.GetWithOffset<half>(n, off); };
  AscendC::LocalTensor<float> sums = f32(kSumsOff, 16);
  AscendC::LocalTensor<float> tmp = f32(kTmpOff, 304);
  AscendC::ReduceSum(sums, f32(kSrcOff, kSrcFloats), tmp, 64, kRepeats, 8);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::ReduceSum(sums[8], f32(kSrcOff, kCount), tmp, kCount);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::PairReduceSum(f16(kPairDstOff, kPair / 2), f16(kPairSrcOff, kPair), 2, 128, 1, 1, 8);
  AscendC::Axpy(f32(kAxpyDstOff, kAxpy), f16(kAxpySrcOff, kAxpy), half(0.3f), kAxpy);
  AscendC::LocalTensor<float> castF = f32(kCastInOff, kCast);
  AscendC::LocalTensor<half> castH = f16(kCastInOff + kCast * 4, kCast);
  AscendC::LocalTensor<int32_t> castI = ub.GetWithOffset<int32_t>(kCast, kCastInOff + kCast * 8);
  AscendC::Cast(ub.GetWithOffset<int32_t>(kCast, kCastOutOff), castF, AscendC::RoundMode::CAST_ROUND, kCast);
  AscendC::Cast(ub.GetWithOffset<int32_t>(kCast, kCastOutOff + kCast * 4), castH, AscendC::RoundMode::CAST_FLOOR,
                kCast);
  AscendC::Cast(f32(kCastOutOff + kCast * 8, kCast), castI, AscendC::RoundMode::CAST_NONE, kCast);
  AscendC::Cast(ub.GetWithOffset<int8_t>(kCast, kCastOutOff + kCast * 12), castH, AscendC::RoundMode::CAST_NONE,
                kCast);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(outGm, all[kSumsOff], 64);
  AscendC::DataCopy(outGm[64], all[kPairDstOff], kPair);
  AscendC::DataCopy(outGm[64 + kPair], all[kAxpyDstOff], kAxpy * 4);
  AscendC::DataCopy(outGm[64 + kPair + kAxpy * 4], all[kCastOutOff], kCastOutBytes);
  AscendC::PipeBarrier<PIPE_ALL>();
}

int32_t main() {
  auto* in = static_cast<uint8_t*>(AscendC::GmAlloc(kInBytes));
  auto* out = static_cast<uint8_t*>(AscendC::GmAlloc(kOutBytes));
  // Values whose sums depend on the summation order: a large value every 7th element, fractions elsewhere.
  float* src = reinterpret_cast<float*>(in + kSrcOff);
  for (int32_t i = 0; i < kSrcFloats; ++i) src[i] = i % 7 == 0 ? 16777216.0f * (1 + i % 3) : 0.1f * (i % 11) + 1.0f;
  half* pair = reinterpret_cast<half*>(in + kPairSrcOff);
  for (int32_t i = 0; i < kPair; ++i) pair[i] = half(0.37f * (i % 29) - 3.0f);
  float* axpyDst = reinterpret_cast<float*>(in + kAxpyDstOff);
  half* axpySrc = reinterpret_cast<half*>(in + kAxpySrcOff);
  for (int32_t i = 0; i < kAxpy; ++i) {
    axpyDst[i] = 0.01f * i - 1.0f;
    axpySrc[i] = half(0.7f * (i % 17) - 5.0f);
  }
  float* castF = reinterpret_cast<float*>(in + kCastInOff);
  half* castH = reinterpret_cast<half*>(in + kCastInOff + kCast * 4);
  int32_t* castI = reinterpret_cast<int32_t*>(in + kCastInOff + kCast * 8);
  for (int32_t i = 0; i < kCast; ++i) {
    castF[i] = (i - 32) * 0.75f + (i % 5 == 0 ? 3e9f : 0.0f);  // halves, ties and out-of-range values
    castH[i] = half((i - 32) * 4.5f);
    castI[i] = (i - 32) * 16777215 + i;  // integers float cannot hold exactly
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(reduce_cast, 1, in, out);
  for (uint32_t i = 0; i < kOutBytes; ++i) std::printf("%02x%s", out[i], i % 32 == 31 ? "\n" : "");
  AscendC::GmFree(in);
  AscendC::GmFree(out);
  return 0;
}
