// What GroupNormGrad's tiling candidates (group_norm_grad_tiling_<mode>.cpp) share: the request
// as they see it, the UB figures of the kernel's phases (summed from group_norm_grad_ub_layout.h)
// and the candidate signature. group_norm_grad_tiling.cpp tries the candidates in order. Host only.
#pragma once
#include <cstdint>
#include <string>

#include "group_norm_grad_tiling.h"

namespace normgrad {

// A DataCopyPad moves at most 4095 blocks (one per slot): the most slots one tile copies.
constexpr uint64_t kGngMaxSlotsPerTile = 4095;

// The copy path of the tile phases: whole 32-byte blocks (no DataCopyPad, the training series)
// or DataCopyPad; soft SyncAll's scratch is planned into every tile phase (see GngTilePlanBytes).
struct GngCopyPath {
  bool blockCopy = false;  // no DataCopyPad
  bool dense = false;      // block copies and rows shorter than a block: dx packed on one core
  uint64_t syncBytes = 0;  // soft SyncAll's UB scratch
};
GngCopyPath GngCopyPathOf(const GroupNormGradTiling& t);

// The tiling with the request's fields filled, and what every candidate reads.
struct GngPlanInput {
  GroupNormGradTiling base;  // shape, dtype, outputs, copy-path flags; blockDim = coreCount
  uint64_t elemBytes;
  uint64_t budget;           // UB bytes a phase may plan
  uint64_t coreCount;        // cores a launch may use (1 when block copies pack dx densely)
  GngCopyPath path;
};

// UB bytes of a tile phase as the slot search plans it: the tile with the soft SyncAll scratch
// (the split waves hold it beside the tile; the whole-group phase does not, so its real figure,
// GroupNormGradWholeUbBytes, is smaller by the scratch: the plan keeps that margin so its slot
// counts, and the launches, stay as they were).
uint64_t GngTilePlanBytes(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t slots, uint64_t bufferNum,
                          uint64_t workspaceBatch, const GngCopyPath& path, uint32_t dxBuffers = 2);
// Most slots per input a tile phase can hold in `budget` bytes (0 if not even one).
uint64_t GngMaxSlots(uint64_t s, uint64_t chunkElems, uint64_t rowStride, uint64_t bufferNum,
                     uint64_t workspaceBatch, uint64_t budget, const GngCopyPath& path);
// Piece sums read back per copy in split waves for groups of `groupSlots` pieces.
uint64_t GngWorkspaceBatch(uint64_t groupSlots);

// Channel slabs: UB bytes beside the tile when the busiest core has `most` channels.
uint64_t GngSlabUbBytes(const GroupNormGradTiling& t, uint64_t most);

// Sample rows: UB elements between stats rows of `groups` groups (DataCopyPad pads a row to 32
// bytes unless the rows are the whole G, one contiguous block).
uint64_t GngSampleRowsStatsStride(const GroupNormGradTiling& t, uint64_t groups);
// Sample rows: UB bytes of a tile of `rows` samples x `groups` segments padded to `segStride`.
uint64_t GngSampleRowsUbBytes(const GroupNormGradTiling& t, uint64_t rows, uint64_t groups, uint64_t segStride,
                              uint64_t bufferNum);

// dgamma/dbeta: each core's channel range (over t->blockDim cores) and its UB batches.
void GngChooseParamBatches(uint64_t s, uint64_t budget, GroupNormGradTiling* t);

// The group-phase modes (whole groups, split waves, dgamma/dbeta) share one plan, computed once
// per request by the first of them the list reaches.
struct GngGroupPhases {
  bool done = false;
  std::string why;            // non-empty: no tiling exists for the request
  GroupNormGradTiling t{};    // every field but mode and ubBytesUsed
  uint64_t rest = 0;          // groups left to the split waves
  bool streamed = false;      // a group exceeds every core's UB together: slices streamed twice
};
const GngGroupPhases& GngGroupPhasesOf(const GngPlanInput& in, GngGroupPhases* cache);
// The plan's split-phase barrier (paramsSplitPhase): the part of it the dx of the last
// whole-group tile hides, counted as that tile's dx bytes through the core's port (kTilingCost;
// the vector work is not counted, so the estimate is low).
double GngSplitPhaseHiddenUs(const GroupNormGradTiling& t);
// Bytes of dy (or x) in the busiest core's slice of a split wave of `waveGroups` groups.
uint64_t GngWaveSliceBytes(const GroupNormGradTiling& t, uint64_t waveGroups, uint64_t s);

// What the modeled time of a tile launch depends on, for its busiest core.
struct GngLoad {
  uint64_t inBytes = 0;    // GM -> UB bytes of the busiest core (L2 hits included: they take its port)
  uint64_t elems = 0;      // dy/x elements the busiest core computes on
  uint64_t pieces = 0;     // row pieces among them
  uint64_t syncs = 0;      // SyncAlls every core waits for
  double hiddenUs = 0;     // of the last one: the core's busy time between a split-phase set and wait
  uint64_t copySlots = 0;  // pieces of its typical dy load (the pipeline fill)
};
// max(HBM time of one pass, the busiest core's time) + its SyncAlls, as the simulator prices a
// launch (docs/cost-model.md §2) with kTilingCost: the core's time is its busiest pipe (port or
// the tile's vector cycles, an instruction-mix estimate) plus a pipeline fill (one dy load and
// one chunk of dx) at the start and after each SyncAll (group_norm_grad_tiling_reread_groups.cpp).
double GngModeledUs(const GroupNormGradTiling& t, uint64_t s, const GngLoad& load);

// One candidate: returns true when it takes the request, with *t filled or, if no tiling exists
// after all, *why set. The group-phase candidates read the shared plan through `cache`.
using GngCandidate = bool (*)(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t,
                              std::string* why);

bool GngPlanSampleRows(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanChannelSlab(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanParamsOnly(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanWholeGroup(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanWholeGroupSplit(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanSplitGroup(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanRereadGroups(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);
bool GngPlanTwoPass(const GngPlanInput& in, GngGroupPhases* cache, GroupNormGradTiling* t, std::string* why);

}  // namespace normgrad
