// Per-channel coefficients of BatchNormElemtGrad, computed in fp32 on the scalar unit from the
// stat vectors, so that the vector unit only streams dy and x.
//
//   total = sum(counter)                   (int32 counters summed exactly in int64)
//   a   = invstd * weight
//   nab = -a * invstd^2 * sumDyXmu / total
//   nac = -a * sumDy / total
//   dx  = a * dy + nab * (x - mean) + nac  = (dy - sumDy/total - (x - mean) invstd^2 sumDyXmu/total) invstd weight
#pragma once
#include "kernel_operator.h"
#include "common/arch.h"
#include "batch_norm_elemt_grad_tiling.h"
#include "common/gm_scalar.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"

namespace normgrad {

struct BnElemtStatArgs {
  GM_ADDR stat[kBnStatCount];  // mean, invstd, weight (may be null), sumDy, sumDyXmu
  GM_ADDR counter;
};

struct BnElemtCoefficients {
  float mean;
  float a;
  float nab;
  float nac;
};

// The counter's total from its element readers: int32 counts summed exactly (in int64), other
// dtypes in float, in element order.
template <typename AsInt, typename AsFloat>
__aicore__ inline float BnElemtCounterTotalOf(const BatchNormElemtGradTiling& t, const AsInt& asInt,
                                              const AsFloat& asFloat) {
  if (t.counterDtype == kDtypeInt32) {
    int64_t total = 0;
    for (int64_t i = 0; i < t.counterNumel; ++i) total += asInt(i);
    return static_cast<float>(total);
  }
  float total = 0.0f;
  for (int64_t i = 0; i < t.counterNumel; ++i) total += asFloat(i);
  return total;
}

__aicore__ inline float BnElemtCounterTotal(const BnElemtStatArgs& args, const BatchNormElemtGradTiling& t) {
  return BnElemtCounterTotalOf(
      t, [&](int64_t i) { return GmScalar<int32_t>(args.counter, i); },
      [&](int64_t i) { return GmScalarAsFloat(args.counter, t.counterDtype, i); });
}

// The coefficients from stat(which), the channel's value of statistic `which` as float.
template <typename Stat>
__aicore__ inline BnElemtCoefficients BnElemtCoefficientsOf(const BatchNormElemtGradTiling& t, float total,
                                                            const Stat& stat) {
  const float invstd = stat(kBnInvstd);
  const float weight = t.hasWeight != 0 ? stat(kBnWeight) : 1.0f;
  const float meanDy = stat(kBnSumDy) / total;
  const float meanDyXmu = stat(kBnSumDyXmu) / total;
  BnElemtCoefficients k;
  k.mean = stat(kBnMean);
  k.a = invstd * weight;
  k.nab = -k.a * (invstd * invstd * meanDyXmu);
  k.nac = -k.a * meanDy;
  return k;
}

__aicore__ inline BnElemtCoefficients BnElemtChannelCoefficients(const BnElemtStatArgs& args,
                                                                 const BatchNormElemtGradTiling& t, float total,
                                                                 int64_t channel) {
  return BnElemtCoefficientsOf(
      t, total, [&](uint32_t which) { return GmScalarAsFloat(args.stat[which], t.statDtype[which], channel); });
}

// Channel slabs: the statistics of channels [c0, c0 + channels) and the whole counter copied into
// UB slots (one DataCopyPad of exact bytes each, BnElemtStatSlotBytes apart; the counter in slot
// kBnStatCount) and read from there: GM scalar reads would move a 64-byte data-cache line each.
struct BnElemtUbStats {
  AscendC::LocalTensor<uint8_t> slots;
  uint32_t slotBytes = 0;
  int64_t c0 = 0;

  __aicore__ inline void Load(const BnElemtStatArgs& args, const BatchNormElemtGradTiling& t, int64_t first,
                              uint32_t channels) {
    c0 = first;
    for (uint32_t i = 0; i < kBnStatCount; ++i) {
      if (i == kBnWeight && t.hasWeight == 0) continue;
      Copy(i, args.stat[i], t.statDtype[i], first, channels);
    }
    Copy(kBnStatCount, args.counter, t.counterDtype, 0, static_cast<uint32_t>(t.counterNumel));
    PipeFence<AscendC::HardEvent::MTE2_S>();
  }
  __aicore__ inline float Total(const BatchNormElemtGradTiling& t) const {
    const AscendC::LocalTensor<int32_t> v = Slot(kBnStatCount).ReinterpretCast<int32_t>();
    return BnElemtCounterTotalOf(
        t, [&](int64_t i) { return v.GetValue(static_cast<uint32_t>(i)); },
        [&](int64_t i) { return Value(kBnStatCount, t.counterDtype, i); });
  }
  __aicore__ inline BnElemtCoefficients Coefficients(const BatchNormElemtGradTiling& t, float total,
                                                     int64_t channel) const {
    return BnElemtCoefficientsOf(t, total,
                                 [&](uint32_t which) { return Value(which, t.statDtype[which], channel - c0); });
  }

 private:
  __aicore__ inline AscendC::LocalTensor<uint8_t> Slot(uint32_t i) const { return slots[i * slotBytes]; }
  // Element i of slot `slot` (dtype a KernelDtype) as float.
  __aicore__ inline float Value(uint32_t slot, uint32_t dtype, int64_t i) const {
    const uint32_t at = static_cast<uint32_t>(i);
    if (dtype == kDtypeFloat16) return static_cast<float>(Slot(slot).ReinterpretCast<half>().GetValue(at));
#if !NORMGRAD_BLOCK_COPY_ARCH  // bfloat16 (and ToFloat): not on the training and inference series
    if (dtype == kDtypeBfloat16) return AscendC::ToFloat(Slot(slot).ReinterpretCast<bfloat16_t>().GetValue(at));
#endif
    if (dtype == kDtypeInt32) return static_cast<float>(Slot(slot).ReinterpretCast<int32_t>().GetValue(at));
    return Slot(slot).ReinterpretCast<float>().GetValue(at);
  }
  // count elements of src from element `first` into slot i, as 2- or 4-byte words.
  __aicore__ inline void Copy(uint32_t i, GM_ADDR src, uint32_t dtype, int64_t first, uint32_t count) {
    if (KernelDtypeBytes(dtype) == 2) {
      CopyWords<half>(i, src, first, count);
    } else {
      CopyWords<float>(i, src, first, count);
    }
  }
  template <typename W>
  __aicore__ inline void CopyWords(uint32_t i, GM_ADDR src, int64_t first, uint32_t count) {
    AscendC::GlobalTensor<W> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ W*>(src));
    AscendC::DataCopyExtParams p(1, count * static_cast<uint32_t>(sizeof(W)), 0, 0, 0);
    AscendC::DataCopyPadExtParams<W> pad(false, 0, 0, static_cast<W>(0));
    PadCopy(Slot(i).ReinterpretCast<W>(), gm[first], p, pad);
  }
};

}  // namespace normgrad
