// The one tiling struct of LayerNorm backward, shared by the host tiling and the kernel, the UB
// layout of every mode (walked by the kernels' InitBuffers, summed by the host's UB figure), and
// the pure function that fills the struct. Plain C++, fixed-width fields, no CANN types.
//
// Work split: the M x D problem (rows x row length) is cut into `rowRanges` row ranges and each
// row into `colSplit` column slices of `sliceCols` columns; core (g, j) = blockIdx g*colSplit+j
// owns slice j of the rows of range g. Rows go through the Unified Buffer `rowsPerBatch` at a
// time; dy and x of a batch stay resident until dx is written, so both are read once. With
// colSplit > 1 the per-row partial sums are exchanged through the workspace after a SyncAll.
#pragma once
#include <cstdint>

#include "host_aicore.h"
#include "kernel_dtype.h"
#if !defined(__CCE_AICORE__)
#include <string>

#include "soc_features.h"
#endif

namespace normgrad {

// Mode = what stays resident in the Unified Buffer across a batch; one kernel header and one
// tiling candidate each (op_kernel/layer_norm_grad_<mode>.h, op_host/layer_norm_grad_tiling_<mode>.cpp).
enum LayerNormGradMode : uint32_t {
  kLnWholeRows = 0,  // colSplit == 1: whole rows resident, no exchange between cores per batch
  kLnRowSlices = 1,  // colSplit > 1: one slice of each row resident, row sums exchanged per batch
  kLnTwoPass = 2,    // rows too long for the above (M >= 2): every core streams its column slice of
                     // all rows twice, with one SyncAll between (A2/A3 only)
  kLnShortRows = 3,  // short whole rows (at most 2040 columns): math by level-0 instructions that
                     // repeat over the rows of a batch, row scalars Brcb'd (A2/A3 only)
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
// fp32 lanes of one row-sum accumulator row (one 256-byte repeat; op_kernel/common/row_sums.h).
constexpr uint32_t kLnRowSumLanes = 64;

// RowSlices only.
struct LayerNormGradRowSlicesTiling {
  uint32_t exchangeSync;    // the per-batch row-sum exchange: LayerNormGradExchangeSync
  uint32_t paramsAfterSet;  // chunks (the first of the slice) whose dgamma/dbeta sums are added
                            // between setting the exchange flag and waiting on it, from the resident
                            // 16-bit dy and x; 0: all in pass 1 (split flag and chunked slices only;
                            // docs/layer_norm_grad.md)
};

// Stage 2 (rowRanges > 1 and dgamma or dbeta asked for): the fixed-order sum of the partials.
struct LayerNormGradReduceTiling {
  uint32_t cols;        // columns per core
  uint32_t chunkCols;   // columns per chunk
  uint32_t splitPhase;  // how the cores wait for each other's partials before stage 2: 0 a SyncAll;
                        // 1 (A2/A3, batch modes) split phase: each core raises kLnParamsFlagId right
                        // after storing its partials, writes the dx of its last batch, then waits
};
// The hardware flag of reduce.splitPhase (RowSlices' exchange uses id 0; SyncAll uses 11-14).
constexpr uint16_t kLnParamsFlagId = 1;

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
  uint32_t mode;            // LayerNormGradMode: the kernel entry switches on it alone
  uint32_t blockDim;        // cores launched = rowRanges * colSplit
  uint32_t rowRanges;       // row ranges, one per group of colSplit cores
  uint32_t colSplit;        // cores sharing one row
  uint32_t sliceCols;       // columns per slice (the last slice may be shorter)
  uint32_t sliceStride;     // UB row stride of resident dy/x, elements (sliceCols rounded to 16)
  uint32_t rowsPerBatch;    // B
  uint32_t chunkCols;       // fp32 work is done on B x chunkCols blocks (multiple of 16)
  uint32_t bufferNum;       // 1 or 2 buffers for the dy/x queues (2 = next batch loads during compute)
  uint32_t gammaResident;   // 1: gamma of the slice kept in UB as fp32; 0: loaded per chunk
  uint32_t accResident;     // 1: dgamma/dbeta sums of the slice kept in UB; 0: one batch per range only
  uint32_t batchesPerRange; // batches of the largest range (every core runs this many for SyncAll)
  uint32_t mainUbBytes;     // Unified Buffer bytes the main phase allocates (LayerNormGradMainUbBytes)
  uint32_t blockCopy;       // 1: no DataCopyPad (Atlas training): whole-block copies, see docs
  uint32_t softSync;        // 1: no hard SyncAll: soft SyncAll on the zeroed flags at syncOffset
  uint32_t denseRows;       // 1: blockCopy and rows shorter than one block: each core packs its dx in order
  uint32_t denseRangeRows;  // denseRows: rows per range, a multiple of 32 / dtype bytes (so every
                            // range's dx starts on a block); the last range also takes the rest
  LayerNormGradRowSlicesTiling rowSlices;
  LayerNormGradReduceTiling reduce;
  uint64_t exchangeOffset;  // workspace byte offset of the row-sum exchange (RowSlices: 2 parities)
  uint64_t partialOffset;   // workspace byte offset of the per-range dgamma/dbeta partials
  uint64_t partialStride;   // floats per partial row (cols rounded to 16)
  uint64_t syncOffset;      // workspace byte offset of the soft SyncAll flags (blockDim * 32 bytes)
  uint64_t workspaceBytes;  // total kernel workspace
};

// ---- UB layouts: one list of buffers per kernel phase, in InitBuffer order ----
// The layout functions run on both sides, so they are NORMGRAD_HOST_AICORE (host_aicore.h).
// The kernel allocates entry i as `count` buffers of `bytes` (a queue when count > 1 or the entry
// is named a queue, else a TBuf); the host's UB figure is the sum of count * bytes rounded up to
// 32 (what TPipe::InitBuffer takes). An entry with count 0 is not allocated.
struct LnUbBuffer {
  uint32_t count;
  uint64_t bytes;
};

NORMGRAD_HOST_AICORE constexpr uint64_t LnAlign8(uint64_t v) { return (v + 7) / 8 * 8; }

// The batch modes (WholeRows, RowSlices, ShortRows: op_kernel/layer_norm_grad_batch.h).
enum LnBatchUb : uint32_t {
  kLnUbDyQue, kLnUbXQue, kLnUbDxQue,  // queues: dy, x resident per batch; ShortRows' dx
  kLnUbDyF, kLnUbXhat, kLnUbTmp,      // fp32 work rows (one row when chunks recompute)
  kLnUbMeanRaw, kLnUbRstdRaw, kLnUbMean, kLnUbRstd, kLnUbMeanB, kLnUbRstdB,
  kLnUbSum1, kLnUbSum2, kLnUbAcc1, kLnUbAcc2, kLnUbExch, kLnUbS1B, kLnUbS2B,
  kLnUbGamma, kLnUbDgamma, kLnUbDbeta, kLnUbStage,
  kLnUbScratch,  // block copies: one scratch block
  kLnUbDense,    // denseRows: the packed dx stage (DenseBlockWriter::Init's figure)
  kLnUbSync,     // soft SyncAll flags of RowSlices' exchange
  kLnBatchUbCount
};
struct LnBatchUbLayout {
  LnUbBuffer buf[kLnBatchUbCount];
};

// WholeRows and RowSlices with 16-bit data in one chunk per slice on A2/A3 (DataCopyPad): x-hat
// and dx take multiply-adds with Brcb'd row scalars (op_kernel/layer_norm_grad_tile.h). That
// saves per row three ops on every 64-lane repeat and one instruction (10 cycles) but costs about
// seven instructions per batch (the row scalars): only batches that win by that take it.
NORMGRAD_HOST_AICORE constexpr bool LnFusedTile(const LayerNormGradTiling& t) {
  return KernelDtypeBytes(t.dtype) == 2 && t.blockCopy == 0 && (t.mode == kLnWholeRows || t.mode == kLnRowSlices) &&
         t.chunkCols >= t.sliceCols && uint64_t(t.rowsPerBatch) * (3 * ((uint64_t(t.sliceCols) + 63) / 64) + 10) > 80;
}

// A fused tile forms no product tile: without a third fp32 work tile (more rows per batch) when
// the staging of dgamma/dbeta stores can wait for the end (resident sums, or none asked for); the
// staging then reuses the x-hat tile, as chunked slices do.
NORMGRAD_HOST_AICORE constexpr bool LnFusedTileNoTmp(const LayerNormGradTiling& t) {
  return LnFusedTile(t) && (t.accResident != 0 || (t.needDgamma == 0 && t.needDbeta == 0));
}

// The same modes in several chunks per slice: s2 (batches of several rows) and dx of rows with
// |mean| * rstd <= 64 take multiply-adds; their Brcb'd row scalars go to the row-sum partials,
// free by then, so the layout is the same. A lone row's pass 1 is DMA-bound: making its vector
// part shorter only lets less of the exchange's wait be covered (the busiest pipe's growth after
// the flag's set), so batches of one row keep the product row.
NORMGRAD_HOST_AICORE constexpr bool LnFusedChunks(const LayerNormGradTiling& t) {
  return KernelDtypeBytes(t.dtype) == 2 && t.blockCopy == 0 && (t.mode == kLnWholeRows || t.mode == kLnRowSlices) &&
         t.chunkCols < t.sliceCols;
}

NORMGRAD_HOST_AICORE constexpr LnBatchUbLayout LayerNormGradBatchUb(const LayerNormGradTiling& t) {
  LnBatchUbLayout l{};
  const uint64_t s = KernelDtypeBytes(t.dtype), b = t.rowsPerBatch, c = t.chunkCols, wp = t.sliceStride;
  const uint64_t bp = LnAlign8(b);
  const bool shortRows = t.mode == kLnShortRows, needX = t.needDx != 0 || t.needDgamma != 0;
  const bool rowScalars = shortRows || LnFusedTile(t);  // Brcb'd per-row scalars
  const bool needDx = t.needDx != 0, needParams = t.needDgamma != 0 || t.needDbeta != 0;
  // Chunked slices recompute x-hat and g for dx, so the fp32 work tiles hold one row; decided by
  // the widest slice, not by one core's.
  const bool recompute = c < t.sliceCols;
  const uint64_t w = recompute ? 1 : b;
  l.buf[kLnUbDyQue] = {t.bufferNum, b * wp * s};
  if (needX) l.buf[kLnUbXQue] = {t.bufferNum, b * wp * s};
  // ShortRows stage dx in their own queue; the other modes write it over the resident dy.
  if (needDx && shortRows) l.buf[kLnUbDxQue] = {2, b * c * s};
  if (s != 4 || shortRows) l.buf[kLnUbDyF] = {1, w * c * 4};  // fp32 dy is used in place
  if (needX) {
    l.buf[kLnUbXhat] = {1, w * c * 4};
    // chunked slices and fused tiles without streamed sums need no third work row
    if (!recompute && !LnFusedTileNoTmp(t)) l.buf[kLnUbTmp] = {1, w * c * 4};
    l.buf[kLnUbMeanRaw] = l.buf[kLnUbRstdRaw] = l.buf[kLnUbMean] = l.buf[kLnUbRstd] = {1, b * 4};
    if (rowScalars) l.buf[kLnUbMeanB] = l.buf[kLnUbRstdB] = {1, bp * 32};  // Brcb'd row scalars
  }
  if (needDx) {
    l.buf[kLnUbSum1] = l.buf[kLnUbSum2] = {1, bp * 4};
    // 64-lane row-sum partials; ShortRows fold through one, and only rows longer than 64.
    if (!shortRows || t.sliceCols > kLnRowSumLanes) l.buf[kLnUbAcc1] = {1, bp * kLnRowSumLanes * 4};
    if (!shortRows) l.buf[kLnUbAcc2] = {1, bp * kLnRowSumLanes * 4};
    if (t.colSplit > 1) l.buf[kLnUbExch] = {1, uint64_t(t.colSplit) * 2 * bp * 4};
    if (rowScalars) l.buf[kLnUbS1B] = l.buf[kLnUbS2B] = {1, bp * 32};
    if (t.hasWeight) l.buf[kLnUbGamma] = {1, (t.gammaResident ? wp : c) * 4};
  }
  const uint64_t accCols = t.accResident ? wp : c;
  if (t.needDgamma) l.buf[kLnUbDgamma] = {1, accCols * 4};
  if (t.needDbeta) l.buf[kLnUbDbeta] = {1, accCols * 4};
  // gamma load and dgamma/dbeta store staging reuse the x-hat work rows when x is loaded.
  if (needParams && !needX) l.buf[kLnUbStage] = {1, c * 4};
  if (t.blockCopy) l.buf[kLnUbScratch] = {1, 32};
  if (t.denseRows && needDx) l.buf[kLnUbDense] = {1, (b * t.cols + 2 * 32 / s) * s};
  if (t.softSync && t.colSplit > 1 && needDx) l.buf[kLnUbSync] = {1, uint64_t(t.blockDim) * 32};
  return l;
}

// TwoPass (op_kernel/layer_norm_grad_two_pass.h).
enum LnTwoPassUb : uint32_t {
  kLnTpDyQue, kLnTpXQue, kLnTpDxQue, kLnTpDyF, kLnTpXc, kLnTpGamma, kLnTpDgamma, kLnTpDbeta,
  kLnTpMeanRaw, kLnTpRstdRaw, kLnTpMean, kLnTpRstd,
  kLnTpAcc1, kLnTpAcc2, kLnTpSum1, kLnTpSum2, kLnTpRowS1, kLnTpRowS2, kLnTpRstdAll, kLnTpRstdAllRaw, kLnTpExch,
  kLnTwoPassUbCount
};
struct LnTwoPassUbLayout {
  LnUbBuffer buf[kLnTwoPassUbCount];
};

NORMGRAD_HOST_AICORE constexpr LnTwoPassUbLayout LayerNormGradTwoPassUb(const LayerNormGradTiling& t) {
  LnTwoPassUbLayout l{};
  const uint64_t s = KernelDtypeBytes(t.dtype), b = t.rowsPerBatch, w = t.chunkCols;
  const uint64_t bp = LnAlign8(b), mp = LnAlign8(t.rows);
  const bool needX = t.needDx != 0 || t.needDgamma != 0, needDx = t.needDx != 0;
  l.buf[kLnTpDyQue] = {2, b * w * s};
  if (needX) l.buf[kLnTpXQue] = {2, b * w * s};
  if (needDx) l.buf[kLnTpDxQue] = {2, b * w * s};
  if (s != 4) l.buf[kLnTpDyF] = {1, w * 4};
  // x - mean row; doubles as the staging of gamma loads and dgamma/dbeta stores (nothing live then).
  if (needX || t.needDbeta) l.buf[kLnTpXc] = {1, w * 4};
  if (needDx && t.hasWeight) l.buf[kLnTpGamma] = {1, w * 4};
  if (t.needDgamma) l.buf[kLnTpDgamma] = {1, w * 4};
  if (t.needDbeta) l.buf[kLnTpDbeta] = {1, w * 4};
  if (needX) l.buf[kLnTpMeanRaw] = l.buf[kLnTpRstdRaw] = l.buf[kLnTpMean] = l.buf[kLnTpRstd] = {1, b * 4};
  if (needDx) {
    l.buf[kLnTpAcc1] = l.buf[kLnTpAcc2] = {1, bp * kLnRowSumLanes * 4};
    l.buf[kLnTpSum1] = l.buf[kLnTpSum2] = {1, bp * 4};
    l.buf[kLnTpRowS1] = l.buf[kLnTpRowS2] = l.buf[kLnTpRstdAll] = l.buf[kLnTpRstdAllRaw] = {1, mp * 4};
    l.buf[kLnTpExch] = {1, 2ull * t.colSplit * bp * 4};  // gathered slice partials
  }
  return l;
}

// Stage 2 (op_kernel/layer_norm_grad_param_reduce.h), after the main phase's UB is released.
enum LnReduceUb : uint32_t { kLnRdSync, kLnRdPart, kLnRdSum, kLnRdStage, kLnRdScratch, kLnReduceUbCount };
struct LnReduceUbLayout {
  LnUbBuffer buf[kLnReduceUbCount];
};

NORMGRAD_HOST_AICORE constexpr LnReduceUbLayout LayerNormGradReduceUb(const LayerNormGradTiling& t) {
  LnReduceUbLayout l{};
  const uint64_t c = t.reduce.chunkCols;
  if (t.softSync) l.buf[kLnRdSync] = {1, uint64_t(t.blockDim) * 32};  // soft SyncAll before the reduce
  l.buf[kLnRdPart] = {1, uint64_t(t.rowRanges) * c * 4};
  l.buf[kLnRdSum] = l.buf[kLnRdStage] = {1, c * 4};
  if (t.blockCopy) l.buf[kLnRdScratch] = {1, 32};
  return l;
}

// Bytes TPipe takes for n layout entries (each buffer rounded up to 32 bytes).
NORMGRAD_HOST_AICORE constexpr uint64_t LnUbSum(const LnUbBuffer* buf, uint32_t n) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < n; ++i) bytes += uint64_t(buf[i].count) * ((buf[i].bytes + 31) / 32 * 32);
  return bytes;
}

// Host side only: the device compiler sees just the struct and layouts above.
#if !defined(__CCE_AICORE__)

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
LayerNormGradTilingResult LayerNormGradComputeTiling(const LayerNormGradTilingInput& in, const SocFeatures& soc);

// Bytes of UB the main phase of the kernel allocates for tiling t (the mode's layout, summed).
uint32_t LayerNormGradMainUbBytes(const LayerNormGradTiling& t);
// Bytes of UB the stage-2 reduction allocates.
uint32_t LayerNormGradReduceUbBytes(const LayerNormGradTiling& t);
// UB the kernel may use on a core of soc (its usable UB, UsableUbBytes, less a margin).
uint32_t LayerNormGradUbBudget(const SocFeatures& soc);
#endif  // !__CCE_AICORE__

}  // namespace normgrad
