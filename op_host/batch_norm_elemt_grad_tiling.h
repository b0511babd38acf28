// The one tiling of BatchNormElemtGrad (aclnnBatchNormElemtBackward), shared by host and kernel.
//
// dx = (dy - sumDy/total - (x - mean) * invstd^2 * sumDyXmu/total) * invstd * weight, channel axis 1,
// total = the sum of every element of counter. The input is viewed as [n, c, hw] (hw = product of
// the dims after the channel axis); a "row" is the hw elements of one (n, c) pair, which share
// one set of per-channel coefficients.
#pragma once
#include <cstdint>

#include "batch_norm_elemt_grad_ub_layout.h"
#include "kernel_dtype.h"
#ifndef __CCE_AICORE__
#include "soc_features.h"
#endif

namespace normgrad {

// Named after what the Unified Buffer holds besides the streamed tiles.
enum BatchNormElemtGradMode : uint32_t {
  // Long rows: the flat range is split across cores in 512-byte-aligned chunks and every tile
  // lies inside one row, so its coefficients are 4 scalars; nothing else stays resident.
  kBnElemtRowScalars = 0,
  // Short rows (small hw, [N, C] inputs): each core owns a block of channels x batches; the
  // coefficients of its channels, expanded along a row, stay resident for the whole kernel.
  kBnElemtChannelSlabs = 1,
  // Short rows of a few 32-byte blocks (ResNet 7 x 7, 14 x 14) on few batches: the channel slabs'
  // blocks of channels x batches, but every (n, c) row starts its own 32-byte-aligned UB row and
  // the coefficients are Brcb'd to one block per row, so each step of the math is one level-0
  // instruction repeating over up to 255 rows; nothing is expanded along a row.
  kBnElemtChannelRows = 2,
};

// Which per-channel vector sits at which index of statDtype / the kernel's stat arguments.
enum BatchNormElemtGradStat : uint32_t { kBnMean = 0, kBnInvstd, kBnWeight, kBnSumDy, kBnSumDyXmu, kBnStatCount };

struct BatchNormElemtGradRowScalarsTiling {
  int64_t chunkElems;  // flat elements per core, a multiple of 512 bytes; the last core gets the rest
  uint32_t tileElems;  // most elements in one tile (a tile also ends at a row end)
  uint32_t reserved;
};

// Channel slabs and channel rows: the same blocks of channels x batches per core.
struct BatchNormElemtGradChannelSlabsTiling {
  uint32_t channelsPerCore;  // channels of one core's block (the last channel group may have fewer)
  uint32_t batchesPerCore;   // batches of one core's block (the last batch group may have fewer)
  uint32_t batchGroups;      // core b owns channel group b / batchGroups, batch group b % batchGroups
  uint32_t rowPitch;         // UB elements per slab row: channelsPerCore * hw rounded up to 32 bytes;
                             // channel rows: per (n, c) row, hw rounded up to 32 bytes
  uint32_t rowsPerTile;      // batches per tile (slab rows; channel rows: channelsPerCore rows each)
  uint32_t statsInUb;        // 1: the statistics and the counter are copied into the UB (DataCopyPad)
};

struct BatchNormElemtGradTiling {
  uint32_t mode;      // BatchNormElemtGradMode
  uint32_t blockDim;  // cores launched
  uint32_t dyDtype;
  uint32_t xDtype;
  uint32_t dxDtype;
  uint32_t counterDtype;
  uint32_t statDtype[kBnStatCount];  // indexed by BatchNormElemtGradStat
  uint32_t hasWeight;                // 0: weight is all ones
  int64_t n;
  int64_t c;
  int64_t hw;
  int64_t counterNumel;
  BatchNormElemtGradRowScalarsTiling rowScalars;
  BatchNormElemtGradChannelSlabsTiling channelSlabs;
};

// Channel rows: the rows of one tile (rowsPerTile batches of channelsPerCore channels).
NORMGRAD_HOST_AICORE inline uint64_t BnElemtChannelRowsTileRows(const BatchNormElemtGradTiling& t) {
  return uint64_t{t.channelSlabs.channelsPerCore} * t.channelSlabs.rowsPerTile;
}

// The UB layout of a tiling's mode for tiles of `tileElems` elements.
NORMGRAD_HOST_AICORE inline BnElemtUbLayout BnElemtUbOf(const BatchNormElemtGradTiling& t, uint64_t tileElems) {
  const BatchNormElemtGradChannelSlabsTiling& s = t.channelSlabs;
  const uint64_t coefBytes =
      t.mode == kBnElemtChannelSlabs ? tileElems * 4
      : t.mode == kBnElemtChannelRows
          ? BnElemtChannelRowsCoefBytes(BnElemtChannelRowsTileRows(t), s.channelsPerCore)
          : 0;
  return BnElemtUb(KernelDtypeBytes(t.dyDtype), KernelDtypeBytes(t.xDtype), KernelDtypeBytes(t.dxDtype), coefBytes,
                   tileElems, s.statsInUb ? BnElemtStatSlotBytes(s.channelsPerCore, t.counterNumel) : 0);
}

// Elements of one tile of the tiling's mode (the kernels' tiles and the host's UB figure).
NORMGRAD_HOST_AICORE inline uint64_t BnElemtTileElems(const BatchNormElemtGradTiling& t) {
  if (t.mode == kBnElemtChannelRows) return uint64_t{t.channelSlabs.rowPitch} * BnElemtChannelRowsTileRows(t);
  return t.mode == kBnElemtChannelSlabs ? uint64_t{t.channelSlabs.rowPitch} * t.channelSlabs.rowsPerTile
                                        : t.rowScalars.tileElems;
}

#ifndef __CCE_AICORE__
// What the tiling needs to know about the call.
struct BatchNormElemtGradProblem {
  int64_t n = 0;
  int64_t c = 0;
  int64_t hw = 0;
  int64_t counterNumel = 0;
  uint32_t dyDtype = kDtypeFloat32;
  uint32_t xDtype = kDtypeFloat32;
  uint32_t dxDtype = kDtypeFloat32;
  uint32_t counterDtype = kDtypeFloat32;
  uint32_t statDtype[kBnStatCount] = {};
  bool hasWeight = true;
};

// Fills *tiling for a non-empty problem (n * c * hw > 0). Returns false with *why pointing at a
// static explanation when the chip cannot run the kernel (no DataCopyPad, no bf16).
bool BatchNormElemtGradTilingFor(const BatchNormElemtGradProblem& problem, const SocFeatures& soc,
                                 BatchNormElemtGradTiling* tiling, const char** why);

// UB bytes per tile element the kernel allocates (the layout of one element, before rounding).
inline uint32_t BnElemtUbBytesPerElem(const BatchNormElemtGradTiling& t) {
  return static_cast<uint32_t>(BnElemtUbRawSum(BnElemtUbOf(t, 1)));
}

// UB bytes the kernel allocates for a tiling: the sum of its layout.
inline uint64_t BatchNormElemtGradUbBytes(const BatchNormElemtGradTiling& t) {
  return BnElemtUbSum(BnElemtUbOf(t, BnElemtTileElems(t)));
}
#endif  // !__CCE_AICORE__

}  // namespace normgrad
