// GroupNormGrad's two copy paths, the policy the tile and the group-phase modes take
// (GroupNormGradTile<T, Copy>): every DMA whose form depends on the chip.
//   GngPadCopy    Atlas A2/A3: DataCopyPad moves exact bytes; a slot's tail up to 32 bytes is
//                 zero-filled, piece sums go to the workspace planes as plain copies.
//   GngBlockCopy  Atlas training (no DataCopyPad): whole 32-byte blocks only, never a GM byte
//                 outside the piece served (group_norm_grad_block_io.h); piece sums are added to
//                 the zeroed planes with DMA atomic add, 0.0 in the neighbours' lanes.
// The tiling picks the path from the chip (blockCopyOnly), the kernel entry the instantiation.
//
// A policy's `tile` argument is the GroupNormGradTile it serves, for the piece geometry (PieceOf,
// PieceLen, PaddedLen, PieceGmOffset, RowsInRun).
#pragma once
#include "kernel_operator.h"
#include "common/pad_copy.h"
#include "common/pipe_fence.h"
#include "group_norm_grad_block_io.h"
#include "group_norm_grad_scalars.h"

namespace normgrad {

template <typename T>
struct GngPadCopy {
  static constexpr bool kBlockCopy = false;

  __aicore__ inline void Init(const GroupNormGradTiling& t, AscendC::TPipe* pipe) {}
  // Lanes of a row's last piece the sums must skip (block copies' overlap): none.
  __aicore__ inline uint32_t OverlapStart() const { return 0; }
  __aicore__ inline uint32_t OverlapCount() const { return 0; }
  // UB lane of the first held piece's sums.
  __aicore__ inline uint32_t Lead(uint64_t piece0) const { return 0; }
  __aicore__ inline AscendC::RoundMode CastRound() const { return AscendC::RoundMode::CAST_RINT; }

  // One DataCopyPad for a run of whole rows (uniform GM stride hw), else one per piece; each
  // slot's tail up to 32 bytes is zero-filled so sums may run over it.
  template <typename Tile>
  __aicore__ inline void Load(const Tile& tile, const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                              uint64_t piece0, uint32_t slots) {
    const GroupNormGradTiling& t = tile.Tiling();
    const uint32_t rs = static_cast<uint32_t>(t.rowStride);
    if (t.hwParts == 1) {
      AscendC::DataCopyExtParams p(static_cast<uint16_t>(slots), static_cast<uint32_t>(t.hw * sizeof(T)), 0, 0, 0);
      AscendC::DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(rs - t.hw), static_cast<T>(0.0f));
      PadCopy(dst, src[piece0 * t.hw], p, pad);
      return;
    }
    for (uint32_t s = 0; s < slots; ++s) {
      uint64_t len = tile.PieceLen(piece0 + s);
      AscendC::DataCopyExtParams p(1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0);
      AscendC::DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(tile.PaddedLen(piece0 + s) - len),
                                           static_cast<T>(0.0f));
      PadCopy(dst[s * rs], src[tile.PieceGmOffset(piece0 + s)], p, pad);
    }
  }

  // The held pieces' sums (db, ds from lane `lead`) to the workspace planes at piece0.
  __aicore__ inline void PublishSums(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<float>& db,
                                     const AscendC::LocalTensor<float>& ds, uint64_t piece0, uint32_t lead,
                                     uint32_t slots) {
    PipeFence<AscendC::HardEvent::V_MTE3>();
    AscendC::DataCopyExtParams p(1, slots * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    PadCopy(gm.wsDb[piece0], db[lead], p);
    PadCopy(gm.wsDs[piece0], ds[lead], p);
    PipeFence<AscendC::HardEvent::MTE3_V>();
  }

  // Reads the sums of pieces [first, first + n) into db, ds; returns the UB lane of `first`.
  __aicore__ inline uint32_t ReadSums(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<float>& db,
                                      const AscendC::LocalTensor<float>& ds, uint64_t first, uint32_t n,
                                      uint64_t waveEnd) {
    AscendC::DataCopyExtParams p(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    AscendC::DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    PadCopy(db, gm.wsDb[first], p, pad);
    PadCopy(ds, gm.wsDs[first], p, pad);
    return 0;
  }

  // dx of whole rows [s, s + rows) of the tile (hwParts == 1), one output copy per run.
  template <typename Tile>
  __aicore__ inline void StoreRows(const Tile& tile, const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<T>& out,
                                   uint32_t s, uint32_t rows) {
    const GroupNormGradTiling& t = tile.Tiling();
    const uint32_t rs = static_cast<uint32_t>(t.rowStride);
    for (uint32_t r = 0; r < rows;) {
      const uint32_t n = tile.RowsInRun(s + r, rows - r);
      AscendC::DataCopyExtParams p(static_cast<uint16_t>(n), static_cast<uint32_t>(t.hw * sizeof(T)), 0, 0, 0);
      PadCopy(gm.dx[tile.PieceOf(s + r) * t.hw], out[r * rs], p);
      r += n;
    }
  }

  // dx of `real` elements at GM offset off (the chunk holds n >= real).
  __aicore__ inline void StoreSegment(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<T>& out, uint64_t off,
                                      uint64_t real, uint32_t n) {
    AscendC::DataCopyExtParams p(1, static_cast<uint32_t>(real * sizeof(T)), 0, 0, 0);
    PadCopy(gm.dx[off], out, p);
  }

  __aicore__ inline void Finish(const GroupNormGradGm<T>& gm, const GroupNormGradTiling& t) {}
};

template <typename T>
struct GngBlockCopy {
  static constexpr bool kBlockCopy = true;

  // Allocates the packed-dx writer for rows shorter than a block (the layout's `dense` member).
  __aicore__ inline void Init(const GroupNormGradTiling& t, AscendC::TPipe* pipe) {
    const uint32_t pb = 32 / sizeof(T);
    const uint64_t len = t.lastSegLen;
    overlapStart_ = static_cast<uint32_t>(len >= pb ? len / pb * pb : len);
    overlapCount_ = static_cast<uint32_t>(len % pb == 0 ? 0 : (len >= pb ? pb - len % pb : pb - len));
    dense_ = t.hw < pb;
    if (dense_) denseOut_.Init(pipe, static_cast<uint32_t>(t.chunkElems));
  }
  __aicore__ inline uint32_t OverlapStart() const { return overlapStart_; }
  __aicore__ inline uint32_t OverlapCount() const { return overlapCount_; }
  // Sums sit at lane piece0 % 8 so they can be added to the planes as whole blocks.
  __aicore__ inline uint32_t Lead(uint64_t piece0) const { return static_cast<uint32_t>(piece0 % 8); }
  // Both round to nearest even; Atlas training has no CAST_RINT from float to half.
  __aicore__ inline AscendC::RoundMode CastRound() const { return AscendC::RoundMode::CAST_NONE; }

  // Whole rows of hw % 32 bytes == 0 in one copy, else per piece (block_io.h).
  template <typename Tile>
  __aicore__ inline void Load(const Tile& tile, const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                              uint64_t piece0, uint32_t slots) {
    const GroupNormGradTiling& t = tile.Tiling();
    const uint32_t rs = static_cast<uint32_t>(t.rowStride);
    if (t.hwParts == 1 && t.hw % (32 / sizeof(T)) == 0) {
      AscendC::DataCopy(dst, src[piece0 * t.hw], static_cast<uint32_t>(slots * t.hw));
      return;
    }
    const uint64_t total = t.n * t.c * t.hw;
    bool scalar = false;
    for (uint32_t s = 0; s < slots; ++s) {
      scalar = GngLoadPieceBlocks(dst[s * rs], src, tile.PieceGmOffset(piece0 + s), tile.PieceLen(piece0 + s), total) ||
               scalar;
    }
    if (scalar) PipeFence<AscendC::HardEvent::S_V>();
  }

  // The held pieces' sums sit at lanes [lead, lead + slots) of whole blocks that start at
  // piece0 - lead in the planes. The other lanes, which belong to pieces of neighbouring tiles
  // (maybe other cores), are set to 0.0 and the blocks are added with DMA atomic add into the
  // zeroed planes: a neighbour's sum gets + 0.0 (exact, in any order).
  __aicore__ inline void PublishSums(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<float>& db,
                                     const AscendC::LocalTensor<float>& ds, uint64_t piece0, uint32_t lead,
                                     uint32_t slots) {
    const uint32_t end = (lead + slots + 7) / 8 * 8;
    PipeFence<AscendC::HardEvent::V_S>();
    for (uint32_t i = 0; i < lead; ++i) {
      db.SetValue(i, 0.0f);
      ds.SetValue(i, 0.0f);
    }
    for (uint32_t i = lead + slots; i < end; ++i) {
      db.SetValue(i, 0.0f);
      ds.SetValue(i, 0.0f);
    }
    PipeFence<AscendC::HardEvent::S_MTE3>();
    AscendC::SetAtomicAdd<float>();
    AscendC::DataCopy(gm.wsDb[piece0 - lead], db, end);
    AscendC::DataCopy(gm.wsDs[piece0 - lead], ds, end);
    AscendC::SetAtomicNone();
    PipeFence<AscendC::HardEvent::MTE3_V>();
  }

  // Whole blocks, as a window of n rounded up to 8 lanes that ends by this wave's last piece
  // (waveEnd): the extra lanes are then sums of this or earlier waves, all complete after the
  // wave's SyncAll, never lanes the next wave's cores are adding to meanwhile.
  __aicore__ inline uint32_t ReadSums(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<float>& db,
                                      const AscendC::LocalTensor<float>& ds, uint64_t first, uint32_t n,
                                      uint64_t waveEnd) {
    const uint64_t len = (n + 7) / 8 * 8;
    uint64_t start = first;
    if (start + len > waveEnd) start = waveEnd >= len ? waveEnd - len : 0;
    AscendC::DataCopy(db, gm.wsDb[start], static_cast<uint32_t>(len));
    AscendC::DataCopy(ds, gm.wsDs[start], static_cast<uint32_t>(len));
    return static_cast<uint32_t>(first - start);
  }

  // dx of whole rows [s, s + rows) of the tile.
  template <typename Tile>
  __aicore__ inline void StoreRows(const Tile& tile, const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<T>& out,
                                   uint32_t s, uint32_t rows) {
    const GroupNormGradTiling& t = tile.Tiling();
    const uint32_t rs = static_cast<uint32_t>(t.rowStride);
    const uint64_t hw = t.hw;
    if (dense_) {
      denseOut_.Append(gm.dx, out, rows, rs, static_cast<uint32_t>(hw));
    } else if (hw == rs) {
      AscendC::DataCopy(gm.dx[tile.PieceOf(s) * hw], out, static_cast<uint32_t>(rows * hw));
    } else {
      for (uint32_t i = 0; i < rows; ++i) GngStorePieceBlocks(gm.dx, out[i * rs], (tile.PieceOf(s) + i) * hw, hw);
    }
  }

  // n = real rounded up to whole blocks; only the piece's last segment holds the tail block.
  __aicore__ inline void StoreSegment(const GroupNormGradGm<T>& gm, const AscendC::LocalTensor<T>& out, uint64_t off,
                                      uint64_t real, uint32_t n) {
    if (real == n) {
      AscendC::DataCopy(gm.dx[off], out, n);
    } else {
      GngStorePieceBlocks(gm.dx, out, off, real);
    }
  }

  // Rows shorter than a block: the last partial block of the packed dx, once after the last Dx
  // of the launch (one core owns all of dx then).
  __aicore__ inline void Finish(const GroupNormGradGm<T>& gm, const GroupNormGradTiling& t) {
    if (dense_ && t.needDx) denseOut_.Finish(gm.dx);
  }

 private:
  GngDenseWriter<T> denseOut_;
  uint32_t overlapStart_ = 0;  // lanes of a row's last piece the sums must skip
  uint32_t overlapCount_ = 0;
  bool dense_ = false;
};

}  // namespace normgrad
