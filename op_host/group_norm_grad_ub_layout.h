// GroupNormGrad's Unified Buffer layouts, one description per kernel phase, written once: each
// phase's Init allocates exactly these buffers in this order (one InitBuffer per member), and the
// tiling's UB figures are their sums (GngUbSum). Shared by host and kernel, so plain constexpr
// structs and functions only (the device compiler sees them; no std).
//
// TPipe rounds every buffer up to 32 bytes (docs/hardware-rules.md §1); GngUbSum does the same.
#pragma once
#include <cstdint>

#include "ub_layout.h"

namespace normgrad {

// GroupNorm's names for the shared layout vocabulary (op_host/ub_layout.h): one definition.
using GngUbBuffer = UbBuffer;
NORMGRAD_HOST_AICORE constexpr uint64_t GngAlign(uint64_t v, uint64_t a) { return UbAlign(v, a); }
NORMGRAD_HOST_AICORE constexpr uint64_t GngUbBytesOf(const GngUbBuffer& b) { return UbBytesOf(b); }
NORMGRAD_HOST_AICORE constexpr GngUbBuffer GngBufIf(bool on, uint64_t bytes, uint32_t num = 1) {
  return UbBufIf(on, bytes, num);
}

// Groups a UB copy of gamma/mean/rstd may span for `channels` consecutive channels starting
// anywhere: (channels - 1) / d + 2 at most, never more than g.
constexpr uint64_t GngStatsSpan(uint64_t channels, uint64_t d, uint64_t g) {
  const uint64_t span = channels == 0 ? 0 : (channels + 2 * d - 2) / d;
  return span < g ? span : g;
}

// ---- the tile (group_norm_grad_tile_sums.h, group_norm_grad_tile.h): whole groups, split waves, channel slabs ----
// What the copy path adds: block copies keep an fp32 dy copy whose overlap lanes are zeroed (fp32
// data; 16-bit data has one anyway), one more block per sum buffer (sums start at lane piece0 % 8)
// and, for rows shorter than a block, the packed-dx writer (chunk plus two blocks).
struct GngTileUbLayout {
  GngUbBuffer dy, x;         // native-dtype tiles, `bufferNum` deep
  GngUbBuffer dx;            // output chunk queue, 2 deep
  GngUbBuffer dyF, xF;       // fp32 chunks
  GngUbBuffer dense;         // block copies, rows < one block: packed dx
  GngUbBuffer work, fold;    // dy*x or fp32 dx; row-sum fold
  GngUbBuffer db, ds;        // per-slot sums
  GngUbBuffer wsDb, wsDs;    // group sums read back from the workspace
  GngUbBuffer scratch;       // two 64-lane accumulators
  GngUbBuffer sync;          // soft SyncAll scratch (split waves on the training series)
};

struct GngTileShape {
  uint64_t elemBytes;
  uint64_t chunkElems;
  uint64_t rowStride;
  uint64_t slots;      // slots per input per buffer
  uint32_t bufferNum;
  uint64_t wsBatch;    // 0: no workspace read-back
  bool blockCopy;      // no DataCopyPad
  bool dense;          // block copies and rows shorter than a block
  uint64_t syncBytes;  // soft SyncAll scratch held with the tile (0: none)
  uint32_t dxBuffers = 2;  // dx output chunks in flight (GngSlabDxBuffers)
};

// A channel slab is one tile a core, Dx'd once: when that tile is also one chunk, its dx leaves in
// one store and the output queue needs no second buffer (the UB goes to the chunk instead).
constexpr uint32_t GngSlabDxBuffers(uint64_t chunkElems, uint64_t rowStride, uint64_t slots) {
  return slots * rowStride <= chunkElems ? 1 : 2;
}

constexpr GngTileUbLayout GngTileUb(const GngTileShape& k) {
  const uint64_t s = k.elemBytes;
  const uint64_t chunk = k.chunkElems;
  const uint64_t sums = (GngAlign(k.slots, 8) + (k.blockCopy ? 8 : 0)) * 4;
  return GngTileUbLayout{
      GngUbBuffer{k.slots * k.rowStride * s, k.bufferNum},
      GngUbBuffer{k.slots * k.rowStride * s, k.bufferNum},
      GngUbBuffer{chunk * s, k.dxBuffers},
      GngBufIf(s != 4 || k.blockCopy, chunk * 4),
      GngBufIf(s != 4, chunk * 4),
      GngBufIf(k.blockCopy && k.dense, (chunk + 64 / s) * s),
      GngUbBuffer{chunk * 4, 1},
      GngUbBuffer{chunk * 4, 1},
      GngUbBuffer{sums, 1},
      GngUbBuffer{sums, 1},
      GngBufIf(k.wsBatch > 0, k.wsBatch * 4),
      GngBufIf(k.wsBatch > 0, k.wsBatch * 4),
      GngUbBuffer{2 * 64 * 4, 1},
      GngBufIf(k.syncBytes > 0, k.syncBytes),
  };
}

constexpr uint64_t GngUbSum(const GngTileUbLayout& l) {
  return GngUbBytesOf(l.dy) + GngUbBytesOf(l.x) + GngUbBytesOf(l.dx) + GngUbBytesOf(l.dyF) + GngUbBytesOf(l.xF) +
         GngUbBytesOf(l.dense) + GngUbBytesOf(l.work) + GngUbBytesOf(l.fold) + GngUbBytesOf(l.db) +
         GngUbBytesOf(l.ds) + GngUbBytesOf(l.wsDb) + GngUbBytesOf(l.wsDs) + GngUbBytesOf(l.scratch) +
         GngUbBytesOf(l.sync);
}

// ---- dgamma/dbeta after the waves (group_norm_grad_params.h) ----
// With DataCopyPad a batch's mean/rstd rows are copied into UB (one 32-byte row per sample).
struct GngParamUbLayout {
  GngUbBuffer db, ds;        // piece sums of the batch, rows x channels x hwParts
  GngUbBuffer accG, accB;    // fp32 dgamma, dbeta
  GngUbBuffer outG, outB;    // cast outputs
  GngUbBuffer mean, rstd;    // stats rows (DataCopyPad only)
};

constexpr GngParamUbLayout GngParamUb(uint64_t elemBytes, uint64_t channels, uint64_t rows, uint64_t hwParts,
                                      uint64_t channelsPerGroup, uint64_t g, bool blockCopy) {
  const uint64_t sums = rows * GngAlign(channels * hwParts, 8) * 4;
  const uint64_t statsRow = GngAlign(GngStatsSpan(channels, channelsPerGroup, g) * elemBytes, 32);
  return GngParamUbLayout{
      GngUbBuffer{sums, 1},
      GngUbBuffer{sums, 1},
      GngUbBuffer{GngAlign(channels, 8) * 4, 1},
      GngUbBuffer{GngAlign(channels, 8) * 4, 1},
      GngUbBuffer{GngAlign(channels, 16) * elemBytes, 1},
      GngUbBuffer{GngAlign(channels, 16) * elemBytes, 1},
      GngBufIf(!blockCopy, rows * statsRow),
      GngBufIf(!blockCopy, rows * statsRow),
  };
}

constexpr uint64_t GngUbSum(const GngParamUbLayout& l) {
  return GngUbBytesOf(l.db) + GngUbBytesOf(l.ds) + GngUbBytesOf(l.accG) + GngUbBytesOf(l.accB) +
         GngUbBytesOf(l.outG) + GngUbBytesOf(l.outB) + GngUbBytesOf(l.mean) + GngUbBytesOf(l.rstd);
}

// ---- channel slabs (group_norm_grad_channel_slab.h): what they hold beside their tile ----
// `most`: the most channels of any core's range.
struct GngSlabUbLayout {
  GngUbBuffer own, peer, gathered;  // head/tail partials (n x 4), a neighbour's side (n x 2), group sums (n x 4)
  GngUbBuffer accG, accB, outG, outB;
  GngUbBuffer gamma, mean, rstd;    // UB copies of gamma and of every sample's stats
  GngUbBuffer gammaF, gammaBlocks;  // 16-bit with gamma: gamma in fp32, one 32-byte block per slot
};

// gammaBlocks: slot (sample r, channel i) at block r * most + i, filled sample by sample with
// Brcb, whose last repeat spills up to 7 blocks past the last sample's channels.
constexpr GngSlabUbLayout GngSlabUb(uint64_t elemBytes, uint64_t n, uint64_t most, uint64_t channelsPerGroup,
                                    uint64_t g, bool hasGamma) {
  const uint64_t statsRow = GngAlign(GngStatsSpan(most, channelsPerGroup, g) * elemBytes, 32);
  return GngSlabUbLayout{
      GngUbBuffer{n * 4 * 4, 1},
      GngUbBuffer{n * 2 * 4, 1},
      GngUbBuffer{n * 4 * 4, 1},
      GngUbBuffer{GngAlign(most, 8) * 4, 1},
      GngUbBuffer{GngAlign(most, 8) * 4, 1},
      GngUbBuffer{GngAlign(most, 16) * elemBytes, 1},
      GngUbBuffer{GngAlign(most, 16) * elemBytes, 1},
      GngUbBuffer{GngAlign(most * elemBytes, 32), 1},
      GngUbBuffer{n * statsRow, 1},
      GngUbBuffer{n * statsRow, 1},
      GngBufIf(hasGamma && elemBytes != 4, GngAlign(most, 8) * 4),
      GngBufIf(hasGamma && elemBytes != 4, ((n - 1) * most + GngAlign(most, 8)) * 32),
  };
}

constexpr uint64_t GngUbSum(const GngSlabUbLayout& l) {
  return GngUbBytesOf(l.own) + GngUbBytesOf(l.peer) + GngUbBytesOf(l.gathered) + GngUbBytesOf(l.accG) +
         GngUbBytesOf(l.accB) + GngUbBytesOf(l.outG) + GngUbBytesOf(l.outB) + GngUbBytesOf(l.gamma) +
         GngUbBytesOf(l.mean) + GngUbBytesOf(l.rstd) + GngUbBytesOf(l.gammaF) + GngUbBytesOf(l.gammaBlocks);
}

// ---- sample rows, HxW = 1 (group_norm_grad_sample_rows.h) ----
// A tile of `rows` samples x `groups` segments of S = seg elements padded to segStride.
struct GngSampleRowsShape {
  uint64_t elemBytes;
  uint64_t rows;
  uint64_t groups;
  uint64_t segStride;
  uint64_t seg;          // channels per group
  uint64_t statsStride;  // UB elements between stats rows
  uint32_t bufferNum;
  bool needDx, needDgamma, needDbeta, hasGamma;
};

struct GngSampleRowsUbLayout {
  GngUbBuffer dy, x, dx;               // tiles, bufferNum deep
  GngUbBuffer dyF, xF, tmp;            // fp32 tiles (dyF, xF for 16-bit data)
  GngUbBuffer mean, rstd, raw;         // stats rows (raw: 16-bit before the cast)
  GngUbBuffer s1, s2;                  // segment sums / dx coefficients
  GngUbBuffer bMean, bRstd, bExtra;    // Brcb'd per-segment scalars (S > 1)
  GngUbBuffer fold;                    // RowsSum fold (S > 64) or block-pair folds (S = 8/16/32)
  GngUbBuffer gammaRow, accG, accB;    // per-channel rows
};

// Contiguous segments of 8, 16 or 32 floats are summed by block-pair folds.
constexpr bool GngBlockSums(uint64_t seg, uint64_t segStride) {
  return segStride == seg && (seg == 8 || seg == 16 || seg == 32);
}

constexpr GngSampleRowsUbLayout GngSampleRowsUb(const GngSampleRowsShape& k) {
  const uint64_t s = k.elemBytes;
  const uint64_t rowElems = k.groups * k.segStride;
  const uint64_t tile = k.rows * rowElems;
  const uint64_t segs = k.rows * k.groups;
  const uint64_t segsA = GngAlign(segs, 8);
  const uint64_t statsA = GngAlign(k.rows * k.statsStride, 8);
  const bool wide = k.seg > 1;
  const uint64_t fold = k.seg > 64 ? segs * 64 * 4 : (segs * k.seg * 3 / 4 + 128) * 4;
  return GngSampleRowsUbLayout{
      GngUbBuffer{tile * s, k.bufferNum},
      GngUbBuffer{tile * s, k.bufferNum},
      GngBufIf(k.needDx, tile * s, k.bufferNum),
      GngBufIf(s != 4, tile * 4),
      GngBufIf(s != 4, tile * 4),
      GngUbBuffer{tile * 4, 1},
      GngUbBuffer{statsA * 4, 1},
      GngUbBuffer{statsA * 4, 1},
      GngBufIf(s != 4, statsA * s),
      GngBufIf(k.needDx, GngAlign(segs, 32) * 4),
      GngBufIf(k.needDx, GngAlign(segs, 32) * 4),
      GngBufIf(wide, (segsA + 8) * 32),
      GngBufIf(wide, (segsA + 8) * 32),
      GngBufIf(wide && k.needDx, segsA * 32),
      GngBufIf(wide && k.needDx && (k.seg > 64 || GngBlockSums(k.seg, k.segStride)), fold),
      GngBufIf(k.needDx && k.hasGamma, rowElems * 4),
      GngBufIf(k.needDgamma, rowElems * 4),
      GngBufIf(k.needDbeta, rowElems * 4),
  };
}

constexpr uint64_t GngUbSum(const GngSampleRowsUbLayout& l) {
  return GngUbBytesOf(l.dy) + GngUbBytesOf(l.x) + GngUbBytesOf(l.dx) + GngUbBytesOf(l.dyF) + GngUbBytesOf(l.xF) +
         GngUbBytesOf(l.tmp) + GngUbBytesOf(l.mean) + GngUbBytesOf(l.rstd) + GngUbBytesOf(l.raw) +
         GngUbBytesOf(l.s1) + GngUbBytesOf(l.s2) + GngUbBytesOf(l.bMean) + GngUbBytesOf(l.bRstd) +
         GngUbBytesOf(l.bExtra) + GngUbBytesOf(l.fold) + GngUbBytesOf(l.gammaRow) + GngUbBytesOf(l.accG) +
         GngUbBytesOf(l.accB);
}

// Sample rows' stage 2: the Pn fp32 partials of a batch of channels, their sum and its cast.
struct GngStage2UbLayout {
  GngUbBuffer parts, sum, stage;
};

constexpr GngStage2UbLayout GngStage2Ub(uint64_t elemBytes, uint64_t chunks, uint64_t batch) {
  return GngStage2UbLayout{
      GngUbBuffer{chunks * GngAlign(batch, 8) * 4, 1},
      GngUbBuffer{GngAlign(batch, 8) * 4, 1},
      GngUbBuffer{GngAlign(batch, 16) * elemBytes, 1},
  };
}

constexpr uint64_t GngUbSum(const GngStage2UbLayout& l) {
  return GngUbBytesOf(l.parts) + GngUbBytesOf(l.sum) + GngUbBytesOf(l.stage);
}

}  // namespace normgrad
