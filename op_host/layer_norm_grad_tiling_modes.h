// The mode candidates of the LayerNorm backward tiling, one file each
// (layer_norm_grad_tiling_<mode>.cpp), and what they share. Host only, internal to the tiling.
//
// The search (layer_norm_grad_tiling.cpp) tries splits of each row into k column slices; for
// each split the batch modes of kLnModes are asked in order and the first that takes the split
// plans it; among the splits the least modeled time wins. The streaming mode is asked only when
// no split fits any batch mode.
#pragma once
#include <cstdint>

#include "layer_norm_grad_tiling.h"
#include "soc_features.h"

namespace normgrad {

// What the tiling reads off the dtypes and the output mask of a call.
struct LnCallFacts {
  uint32_t dataBytes;    // bytes of one dy / x / dx element
  uint32_t weightBytes;  // bytes of one gamma / dgamma / dbeta element
  bool needX, needDx, needParams, hasWeight;
  uint32_t nParams;
};
LnCallFacts LnCallFactsOf(const LayerNormGradTiling& t);

// What a candidate is told: the chip, the UB budget and, for the batch modes, the rows of the
// largest row range of the split being planned (its geometry is already in the tiling).
struct LnSearch {
  const SocFeatures& soc;
  uint32_t budget;
  uint64_t rowsMax;
};

// A candidate's answer for one split.
enum class LnFit {
  kNo,    // the split cannot be planned (the search moves to the next split)
  kYes,   // planned: mode, batch and chunk sizes are in the tiling
  kNext,  // not this mode's shape: ask the next candidate of the list
};

// One line of the ordered list.
struct LnModeCandidate {
  LayerNormGradMode mode;
  bool streaming;  // false: plans one split of the search; true: only when no split fits
  LnFit (*fit)(LayerNormGradTiling& t, const LnSearch& s);
};

LnFit FitShortRows(LayerNormGradTiling& t, const LnSearch& s);
LnFit FitWholeRows(LayerNormGradTiling& t, const LnSearch& s);
LnFit FitRowSlices(LayerNormGradTiling& t, const LnSearch& s);
LnFit FitTwoPass(LayerNormGradTiling& t, const LnSearch& s);

// The modes in the order they are asked (see the top of this file).
constexpr LnModeCandidate kLnModes[] = {
    {kLnShortRows, false, FitShortRows},  // short whole rows, level-0 repeats over rows (A2/A3)
    {kLnWholeRows, false, FitWholeRows},  // whole rows resident
    {kLnRowSlices, false, FitRowSlices},  // one column slice of each row resident, row sums exchanged
    {kLnTwoPass, true, FitTwoPass},       // column slices of all rows streamed twice (A2/A3)
};

// Shared by the batch modes (layer_norm_grad_tiling_batch.cpp): batch rows, chunk width,
// buffering and residency of the split in t for its mode; false if nothing fits the budget.
bool LnFitBatchMode(LayerNormGradTiling& t, uint64_t rowsMax, uint32_t budget);
// Modeled time of a batch-mode plan (docs/cost-model.md §4); sideBytes: HBM traffic besides dy,
// x, dx and gamma re-reads that the caller counts (the split search: partials, exchange, gamma per
// range); syncUs: the barrier's latency if not the model's syncAllUs (negative).
double LnBatchModelUs(const LayerNormGradTiling& t, uint64_t rowsMax, double sideBytes = 0.0, double syncUs = -1.0);
// Bytes of gamma read beyond once (a plan that streams gamma through chunk buffers).
double LnGammaRereadBytes(const LayerNormGradTiling& t, uint64_t rowsMax);

// RowSlices: how its cores wait for each other's row sums (layer_norm_grad_tiling_row_slices.cpp).
uint32_t LnRowSlicesExchangeSync(const LayerNormGradTiling& t, const SocFeatures& soc);
// TwoPass: its workspace (per slice, the row sums of every row).
void LnTwoPassWorkspace(LayerNormGradTiling& t);

}  // namespace normgrad
