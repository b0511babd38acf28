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
#include "batch_norm_elemt_grad_tiling.h"
#include "common/gm_scalar.h"

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

__aicore__ inline float BnElemtCounterTotal(const BnElemtStatArgs& args, const BatchNormElemtGradTiling& t) {
  if (t.counterDtype == kDtypeInt32) {
    int64_t total = 0;
    for (int64_t i = 0; i < t.counterNumel; ++i) total += GmScalar<int32_t>(args.counter, i);
    return static_cast<float>(total);
  }
  float total = 0.0f;
  for (int64_t i = 0; i < t.counterNumel; ++i) total += GmScalarAsFloat(args.counter, t.counterDtype, i);
  return total;
}

__aicore__ inline BnElemtCoefficients BnElemtChannelCoefficients(const BnElemtStatArgs& args,
                                                                 const BatchNormElemtGradTiling& t, float total,
                                                                 int64_t channel) {
  auto stat = [&](uint32_t which) { return GmScalarAsFloat(args.stat[which], t.statDtype[which], channel); };
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

}  // namespace normgrad
