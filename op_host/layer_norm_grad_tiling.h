// The one tiling struct of LayerNorm backward, shared by the host tiling and the kernel, and the
// pure function that fills it. Plain C++, fixed-width fields, no CANN types.
//
// Work split: the M x D problem (rows x row length) is cut into `groups` row ranges and each
// row into `colSplit` column slices of `sliceCols` columns; core (g, j) = blockIdx g*colSplit+j
// owns slice j of the rows of group g. Rows go through the Unified Buffer `rowsPerBatch` at a
// time; dy and x of a batch stay resident until dx is written, so both are read once. With
// colSplit > 1 the per-row partial sums are exchanged through the workspace after a SyncAll.
#pragma once
#include <cstdint>

#include "kernel_dtype.h"
#if !defined(__CCE_AICORE__)
#include <string>
#endif

namespace normgrad {

// Mode = what stays resident in the Unified Buffer across a batch.
enum LayerNormGradMode : uint32_t {
  kLnWholeRows = 0,  // colSplit == 1: whole rows resident, no exchange between cores per batch
  kLnRowSlices = 1,  // colSplit > 1: one slice of each row resident, row sums exchanged per batch
  kLnTwoPass = 2,    // rows too long for the above (M >= 2): every core streams its column slice of
                     // all rows twice, with one SyncAll between (A2/A3 only)
};
// How the cores of RowSlices wait for each other's row sums, once per batch (docs/layer_norm_grad.md).
enum LayerNormGradExchangeSync : uint32_t {
  kLnExchangeSyncAll = 0,    // PipeBarrier<PIPE_ALL> + SyncAll (hard, or soft on the training series)
  kLnExchangeSplitFlag = 1,  // split phase: CrossCoreSetFlag on MTE3 after the store, CrossCoreWaitFlag
                             // before the read; no pipe drain (A2/A3: needs the hardware flags)
};
// TwoPass batches: at most this many rows (a multiple of 8 keeps each batch's row sums 32-byte
// aligned in UB; more rows per batch would only narrow the column chunks).
constexpr uint32_t kLnTwoPassMaxBatch = 8;

struct LayerNormGradTiling {
  uint64_t rows;            // M = product of the leading dims
  uint64_t cols;            // D = product of normalizedShape
  uint32_t dtype;           // KernelDtype of dy, x and dx
  uint32_t statsDtype;      // of mean and rstd
  uint32_t weightDtype;     // of gamma, dgamma and dbeta
  uint32_t hasWeight;       // 0: gamma is all ones (weightOptional null), never read
  uint32_t needDx;          // outputMask[0]
  uint32_t needDgamma;      // outputMask[1]
  uint32_t needDbeta;       // outputMask[2]
  uint32_t mode;            // LayerNormGradMode
  uint32_t blockDim;        // cores launched = groups * colSplit
  uint32_t groups;          // row ranges
  uint32_t colSplit;        // cores sharing one row
  uint32_t sliceCols;       // columns per slice (the last slice may be shorter)
  uint32_t sliceStride;     // UB row stride of resident dy/x, elements (sliceCols rounded to 16)
  uint32_t rowsPerBatch;    // B
  uint32_t chunkCols;       // fp32 work is done on B x chunkCols blocks (multiple of 16)
  uint32_t bufferNum;       // 1 or 2 buffers for the dy/x queues (2 = next batch loads during compute)
  uint32_t gammaResident;   // 1: gamma of the slice kept in UB as fp32; 0: loaded per chunk
  uint32_t accResident;     // 1: dgamma/dbeta sums of the slice kept in UB; 0: one batch per group only
  uint32_t rowRepeat;       // 1: short whole rows, math by level-0 instructions repeating over rows (Brcb)
  uint32_t batchesPerGroup; // batches of the largest group (every core runs this many for SyncAll)
  uint32_t reduceCols;      // stage 2 (groups > 1): columns per core of the fixed-order group sum
  uint32_t reduceChunkCols; // stage 2 chunk width
  uint32_t ubBytes;         // Unified Buffer bytes the main phase allocates (checked by tests)
  uint32_t blockCopy;       // 1: no DataCopyPad (Atlas training): whole-block copies, see docs
  uint32_t softSync;        // 1: no hard SyncAll: soft SyncAll on the zeroed flags at syncOffset
  uint32_t denseRows;       // 1: blockCopy and rows shorter than one block: each core packs its dx in order
  uint32_t denseGroupRows;  // denseRows: rows per group, a multiple of 32 / dtype bytes (so every
                            // group's dx starts on a block); the last group also takes the rest
  uint32_t exchangeSync;    // RowSlices' per-batch row-sum exchange: LayerNormGradExchangeSync
  uint64_t exchangeOffset;  // workspace byte offset of the row-sum exchange (2 parities)
  uint64_t partialOffset;   // workspace byte offset of the per-group dgamma/dbeta partials
  uint64_t partialStride;   // floats per partial row (cols rounded to 16)
  uint64_t syncOffset;      // workspace byte offset of the soft SyncAll flags (blockDim * 32 bytes)
  uint64_t workspaceBytes;  // total kernel workspace
};

// Host side only: the device compiler sees just the struct above.
#if !defined(__CCE_AICORE__)

struct LayerNormGradSocInfo {
  uint32_t coreCount;       // vector cores a launch may use
  uint32_t ubBytes;         // Unified Buffer per core
  bool hasHardSyncAll;      // A2/A3; the training series has only soft SyncAll
  bool hasBrcb = true;      // A2/A3; not on the training series
  bool hasDataCopyPad = true;  // A2/A3; the training series copies whole 32-byte blocks only
};

struct LayerNormGradTilingInput {
  uint64_t rows;
  uint64_t cols;
  KernelDtype dtype;
  KernelDtype statsDtype;
  KernelDtype weightDtype;
  bool hasWeight;
  bool needDx;
  bool needDgamma;
  bool needDbeta;
};

struct LayerNormGradTilingResult {
  bool ok = false;
  std::string error;  // why no tiling exists (e.g. a row longer than all cores' UB together)
  LayerNormGradTiling tiling{};
};

// Pure: (shape, dtypes, mask, SoC) -> tiling. rows >= 1, cols >= 1, at least one output.
LayerNormGradTilingResult LayerNormGradComputeTiling(const LayerNormGradTilingInput& in,
                                                     const LayerNormGradSocInfo& soc);

// Bytes of UB the main phase of the kernel allocates for tiling t (InitBuffer rounding included).
uint32_t LayerNormGradMainUbBytes(const LayerNormGradTiling& t);
// Bytes of UB the stage-2 reduction allocates.
uint32_t LayerNormGradReduceUbBytes(const LayerNormGradTiling& t);
// UB the kernel may use on a core of ubBytes (the top 8 KiB stay reserved for the runtime).
uint32_t LayerNormGradUbBudget(uint32_t ubBytes);
#endif  // !__CCE_AICORE__

}  // namespace normgrad
