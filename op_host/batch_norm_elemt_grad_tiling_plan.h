// What BatchNormElemtGrad's tiling candidates (batch_norm_elemt_grad_tiling_<mode>.cpp) share:
// the request as they see it and the candidate signature. batch_norm_elemt_grad_tiling.cpp tries
// the candidates in order. Host only.
#pragma once
#include <cstdint>

#include "batch_norm_elemt_grad_tiling.h"

namespace normgrad {

struct BnElemtPlanInput {
  const BatchNormElemtGradProblem* problem;
  BatchNormElemtGradTiling common;  // every field but the mode's and blockDim
  int64_t cores;                    // cores worth launching for this much traffic
  int64_t slabCores;                // the same for channel slabs with their statistics in the UB
  int64_t budget;                   // UB bytes a tile may plan
  bool hasBrcb;                     // channel rows Brcb their coefficients (A2/A3)
};

// A mode's candidate: false when it cannot take the request; true with *t planned.
using BnElemtCandidate = bool (*)(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t);

// Short rows of a few blocks where repeating over rows beats expanding the coefficients: channel rows.
bool BnElemtPlanChannelRows(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t);
// Short rows of one width: channel slabs with their coefficient rows resident.
bool BnElemtPlanChannelSlabs(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t);
// Any shape: 512-byte-aligned flat chunks, 4 scalar coefficients per tile.
bool BnElemtPlanRowScalars(const BnElemtPlanInput& in, BatchNormElemtGradTiling* t);

}  // namespace normgrad
