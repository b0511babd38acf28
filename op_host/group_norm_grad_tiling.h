// GroupNormGrad tiling: the one struct the host fills and the kernel reads, plus the pure host
// function that fills it. Plain fixed-width fields, no CANN types, so both sides share it.
//
// Vocabulary (kernel and host use the same words):
//   group      one (n, g): channelsPerGroup rows of hw contiguous elements, contiguous in GM.
//   piece      one row segment (n, c, j), j < hwParts; a row longer than a core can hold is split.
//   slot       the UB home of one piece: rowStride elements (the piece padded to 32 bytes), so
//              every row starts 32-byte aligned whatever hw is (DataCopyPad pads it with zeros).
//   wave       a set of whole groups whose pieces are spread evenly over all cores, held resident,
//              with piece sums exchanged through the workspace and one SyncAll.
// Phases of the group-phase modes (the mode lists which of them run):
//   1. whole groups: core k takes groups [k*wholeGroupsPerCore, (k+1)*wholeGroupsPerCore),
//      wholeGroupsPerTile at a time (double-buffered when wholeBufferNum == 2); no exchange.
//   2. split waves over the remaining groups [wholeGroupsPerCore*blockDim, n*g), wave by wave.
//      When a core's share of a wave exceeds splitTileSlots it streams tiles twice (two passes).
//   3. after the last SyncAll: dgamma/dbeta, channels split over cores, n summed in order.
// Re-read groups (kGngRereadGroups, A2/A3) replace phases 1-2: each core owns whole groups, as
// rereadLayout says (GroupNormGradRereadLayout). Groups the tile (splitTileSlots) holds are read
// once, several per tile; a larger group is streamed twice, pass 2 served by the L2 (the core moved
// about three group tensors since), with its last tile of pass 1 kept resident. Piece sums go to
// the workspace, then dgamma/dbeta.
// Channel slabs (kGngChannelSlab) replace the three phases when every core can hold all n of its
// channel range (the dgamma/dbeta split above) at once: the core sums its rows, publishes per n
// its partial gamma-weighted sums of the (at most two) groups it shares with its neighbours,
// and after one SyncAll adds its neighbours' partials in core order and writes dx, then dgamma
// and dbeta of its own channels from the row sums in UB. No per-(n, c) sums go through the
// workspace: 16 bytes per (n, c) less traffic, which is 4-6 % of the minimum for 16-bit rows of
// <= 64 elements. Where the ranges are whole groups (GngSlabExchanges false: fewer cores, chosen
// when modeled faster) nothing is shared and there is no barrier at all.
// Block-copy mode (blockCopyOnly, Atlas training: no DataCopyPad): every DMA moves whole 32-byte
// blocks (GngBlockCopy, op_kernel/group_norm_grad_copy_path.h). A piece of len >= one block is
// loaded as its whole blocks plus the block ending at the piece's end (overlapping the head; the
// overlapped lanes are zeroed for the sums) and dx is written the same way, so the overlap
// rewrites identical bytes and no DMA touches a byte outside its own piece. Rows shorter than a
// block run on one core that packs dx densely. Piece sums go to the workspace planes as whole
// blocks with DMA atomic add: the planes start zeroed and a tile adds 0.0 in the lanes of its
// neighbours' pieces, so cores sharing a block never overwrite each other and the result does not
// depend on their order (x + 0.0 is exact). dx / dgamma / dbeta shorter than one block must be
// given in a buffer of whole blocks (the aclnn layer stages them through its workspace).
#pragma once
#include <cstdint>

#include "group_norm_grad_ub_layout.h"
#include "kernel_dtype.h"

namespace normgrad {

// Group piece sums read back from the workspace per copy in split waves (kernel and host agree).
constexpr uint64_t kGngWorkspaceBatchFloats = 1024;

// The kernel entry switches on this alone; each mode is one candidate of the host tiling
// (op_host/group_norm_grad_tiling_<mode>.cpp, the five group-phase modes in
// group_norm_grad_tiling_group_phases.cpp) and one line of its ordered list.
enum GroupNormGradMode : uint32_t {
  kGngWholeGroup = 0,        // every group on one core, no split waves
  kGngWholeGroupSplit = 1,   // whole groups, then the remainder split over all cores
  kGngSplitGroup = 2,        // groups split over cores, each slice resident (single read)
  kGngTwoPass = 3,           // a group exceeds all cores' UB: slices streamed twice
  kGngParamsOnly = 4,        // dx not requested: one streaming pass for the sums
  kGngChannelSlab = 5,       // every core holds all n of its channel range: no per-(n, c) workspace
  kGngSampleRows = 6,        // HxW = 1: tiles of sample rows, full-width vector ops over segments
  kGngRereadGroups = 7,      // A2/A3: whole groups per core, one larger than the tile read twice (L2)
};

// Mode kGngSampleRows (HxW = 1): core k = pn * groupSplit + pg takes samples of chunk pn
// (sampleSplit chunks, sizes differing by at most one) and groups [pg * groups, (pg + 1) * groups).
// A UB row is one sample's `groups` segments of S = C/G elements, each padded to segStride
// elements (32 bytes; segStride = 1 when S = 1, rows of `groups` elements). dgamma/dbeta: per-core
// fp32 partials of its channels; with sampleSplit > 1 they go to the workspace ([chunk][C] for
// dgamma, then for dbeta) and after one SyncAll each core adds the chunks in order 0.. for its
// stage-2 channel range.
// How mode kGngRereadGroups gives groups to cores and orders dgamma/dbeta after them.
enum GroupNormGradRereadLayout : uint32_t {
  kGngRereadRuns = 0,            // core k: a contiguous run of the n*g groups; one SyncAll, dgamma/dbeta
  kGngRereadOwner = 1,           // core k: group k of every sample (blockDim = g); its dgamma/dbeta
                                 // channels are group k's, whose sums only it wrote: no SyncAll
  kGngRereadRunsSplitPhase = 2,  // core k: an even share of all pieces; pass 1 sums them, a
                                 // split-phase flag is set, pass 2 (re-read from L2) writes dx of
                                 // the groups wholly inside the share, then the wait and dx of the
                                 // two edge groups: the barrier's latency runs under pass 2
};

struct GroupNormGradSampleRowsTiling {
  uint64_t sampleSplit;     // Pn
  uint64_t groupSplit;      // Pg (divides g)
  uint64_t groups;          // groups per core: g / Pg
  uint64_t segStride;       // UB elements per segment
  uint64_t rowsPerTile;     // samples per tile
  uint64_t bufferNum;       // 1 or 2 buffers per input queue
  uint64_t stage2Channels;  // stage-2 channels per core (ceil(c / blockDim)); 0 without stage 2
  uint64_t stage2Batch;     // stage-2 channels per UB batch
};

struct GroupNormGradTiling {
  // shape
  uint64_t n;
  uint64_t c;
  uint64_t hw;
  uint64_t g;
  uint64_t channelsPerGroup;
  uint64_t hwParts;          // pieces per row
  uint64_t segLen;           // elements of pieces j < hwParts - 1
  uint64_t lastSegLen;       // elements of the last piece of a row
  uint64_t rowStride;        // UB elements per slot: segLen rounded up to 32 bytes
  uint64_t groupSlots;       // channelsPerGroup * hwParts
  // phase 1: whole groups
  uint64_t wholeGroupsPerCore;
  uint64_t wholeGroupsPerTile;
  uint64_t wholeTileSlots;   // UB slots per input per buffer in phase 1
  // phase 2: split waves
  uint64_t waveGroups;       // groups per wave (the last wave may have fewer)
  uint64_t splitTileSlots;   // UB slots per input in phase 2
  // phase 3: dgamma/dbeta
  uint64_t paramChannelsPerCore;   // channels of core k: base + (k < remainder)
  uint64_t paramChannelsRemainder;
  uint64_t paramBatchChannels;     // channels per UB batch (all n at once or n in batches)
  uint64_t paramBatchRows;         // n rows per UB batch
  // compute
  uint64_t chunkElems;       // fp32 working chunk, elements (multiple of 64)
  uint64_t workspaceBytes;   // user workspace: two fp32 planes of n*c*hwParts piece sums
  uint32_t blockDim;
  uint32_t dtype;            // KernelDtype of dy, x, dx, mean, rstd, gamma, dgamma, dbeta
  uint32_t mode;             // GroupNormGradMode
  uint32_t wholeBufferNum;   // 1 or 2
  uint32_t needDx;
  uint32_t needDgamma;
  uint32_t needDbeta;
  uint32_t hasGamma;         // 0: gamma is all ones (aclnn passes no gamma)
  uint32_t ubBytesUsed;      // the mode's UB peak: its largest phase layout (GroupNormGradUbBytes)
  uint32_t blockCopyOnly;    // 1: no DataCopyPad on the SoC: whole-block DataCopy only
  uint32_t softSync;         // 1: no hard SyncAll: soft SyncAll on the zeroed flags at syncOffset
  uint32_t rereadLayout;     // kGngRereadGroups: GroupNormGradRereadLayout
  uint32_t paramsSplitPhase; // 1 = split-phase barrier (A2/A3): kGngWholeGroup before dgamma/dbeta,
                             // kGngWholeGroupSplit (one wave) around the whole groups, channel slabs
  uint64_t planeBytes;       // bytes of one piece-sum plane; the ds plane starts here
  uint64_t syncOffset;       // workspace byte offset of the soft SyncAll flags (blockDim * 32 bytes)
  // channel slabs (mode kGngChannelSlab; channels split as paramChannelsPerCore/Remainder)
  uint64_t slabTileSlots;    // UB slots per input: n * the most channels of a core
  GroupNormGradSampleRowsTiling sampleRows;  // mode kGngSampleRows only
};

// Channel slabs: some core's channel range shares a group with a neighbour, so the cores exchange
// partial sums behind a barrier. Ranges of whole groups (every core the same multiple of
// channelsPerGroup) exchange nothing and need no barrier.
NORMGRAD_HOST_AICORE inline bool GngSlabExchanges(const GroupNormGradTiling& t) {
  return t.paramChannelsRemainder != 0 || t.paramChannelsPerCore % t.channelsPerGroup != 0;
}

}  // namespace normgrad

#ifndef __CCE_AICORE__
#include <string>

#include "soc_features.h"
#include "tiling_math.h"

namespace normgrad {

struct GroupNormGradRequest {
  int64_t n = 0;
  int64_t c = 0;
  int64_t hw = 0;
  int64_t group = 0;
  KernelDtype dtype = kDtypeFloat32;
  bool needDx = true;
  bool needDgamma = true;
  bool needDbeta = true;
  bool hasGamma = true;
};

// UB bytes the kernel plans in: the usable UB (UsableUbBytes) less a 256-byte margin.
inline uint32_t GngUbBudget(const SocFeatures& soc) {
  const uint32_t usable = UsableUbBytes(soc);
  return usable > 256 ? usable - 256 : 0;
}

// Fills *tiling for a non-empty problem (n, c, hw, group > 0, c % group == 0). Returns "" on
// success, else why no tiling exists (the aclnn layer reports it with 161002).
std::string GroupNormGradTilingFor(const GroupNormGradRequest& req, const SocFeatures& soc,
                                   GroupNormGradTiling* tiling);

// The mode's UB peak: the largest of its phases' layouts (group_norm_grad_ub_layout.h), what the
// simulator records as the launch's peak (tests/ops/test_ub_peak.cpp).
uint32_t GroupNormGradUbBytes(const GroupNormGradTiling& t);
// UB bytes of each phase's layout (0 when the tiling has no such phase).
uint32_t GroupNormGradWholeUbBytes(const GroupNormGradTiling& t);
uint32_t GroupNormGradSplitUbBytes(const GroupNormGradTiling& t);
uint32_t GroupNormGradParamUbBytes(const GroupNormGradTiling& t);
uint32_t GroupNormGradSlabUbBytes(const GroupNormGradTiling& t);
uint32_t GroupNormGradSampleRowsUbBytes(const GroupNormGradTiling& t);

}  // namespace normgrad
#endif
