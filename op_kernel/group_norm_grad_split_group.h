// GroupNormGrad, groups split over cores: the groups left after the whole-group rounds go in
// waves; a wave's pieces are spread evenly over all cores, each core keeps its slice resident,
// publishes per-piece sums to the workspace, and after one SyncAll reads back the sums of the
// groups it shares to write dx. A slice larger than the UB (a group bigger than every core's UB
// together) is streamed twice instead (re-read groups, group_norm_grad_reread_groups.h, also
// read dy and x twice, from the L2).
#pragma once
#include "group_norm_grad_tile.h"

namespace normgrad {

template <typename T, typename Copy>
class GroupNormGradSplitGroup {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    tile_.Init(t, gm, pipe, static_cast<uint32_t>(t.splitTileSlots), 1,
               GroupNormGradTile<T, Copy>::WorkspaceBatch(t));
    syncFlags_ = gm.syncFlags;
    // The layout's sync member (GngTileUbLayout), held beside the tile through the waves.
    GngAllocBuf(pipe, syncUb_, GngBufIf(t.softSync != 0, t.blockDim * 32));
  }

  // Every core runs every wave and its SyncAll, also with an empty slice.
  __aicore__ inline void Process() {
    const uint64_t groups = t_->n * t_->g;
    const uint64_t cores = static_cast<uint64_t>(AscendC::GetBlockNum());
    for (uint64_t w0 = t_->wholeGroupsPerCore * cores; w0 < groups; w0 += t_->waveGroups) {
      uint64_t first = 0;
      uint64_t count = 0;
      Slice(w0, &first, &count);
      Wave(first, count);
    }
    Finish();
  }

  // Split phase around the whole groups (kGngWholeGroupSplit with paramsSplitPhase: one wave, A2/A3).
  // sums: the slice's piece sums, streamed a tile at a time and not kept, because the whole
  // groups that run next need the UB (their phase raises the flag behind its own last sums, which
  // also cover this slice's stores, earlier on the same MTE3 queue). Then, after the wait: the
  // slice read again (an L2 hit: the tiling checks the bytes in between fit the core's L2 share)
  // and its dx written with every core's sums.
  __aicore__ inline void SplitPhase(bool sums) {
    uint64_t first = 0;
    uint64_t count = 0;
    Slice(t_->wholeGroupsPerCore * AscendC::GetBlockNum(), &first, &count);
    ForTiles(first, count, sums);
    Finish();
  }

 private:
  // This core's even share [first, first + count) of the pieces of the wave starting at group w0.
  __aicore__ inline void Slice(uint64_t w0, uint64_t* first, uint64_t* count) const {
    const uint64_t groups = t_->n * t_->g;
    const uint64_t cores = static_cast<uint64_t>(AscendC::GetBlockNum());
    const uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    uint64_t waveGroups = groups - w0 < t_->waveGroups ? groups - w0 : t_->waveGroups;
    uint64_t pieces = waveGroups * t_->groupSlots;
    uint64_t base = pieces / cores;
    uint64_t rem = pieces % cores;
    *first = w0 * t_->groupSlots + core * base + (core < rem ? core : rem);
    *count = base + (core < rem ? 1 : 0);
  }

  // The slice a tile at a time: its sums to the workspace (sums), or its dx from the workspace.
  __aicore__ inline void ForTiles(uint64_t first, uint64_t count, bool sums) {
    if (sums || t_->needDx) tile_.StreamPieces(first, first + count, t_->splitTileSlots, sums);
  }

  __aicore__ inline void Finish() {
    tile_.FinishDx();
    // The next phase carves this UB anew after pipe.Reset(), which waits for no pipe: the last
    // output copies (MTE3) must finish before its first loads (MTE2) overwrite their buffers.
    AscendC::PipeBarrier<PIPE_ALL>();
  }

  __aicore__ inline void Wave(uint64_t first, uint64_t count) {
    const uint64_t cap = t_->splitTileSlots;
    const bool resident = count <= cap;
    for (uint64_t p = first; p < first + count; p += cap) {
      uint32_t slots = static_cast<uint32_t>(first + count - p < cap ? first + count - p : cap);
      tile_.CopyIn(p, slots);
      tile_.Hold(p, slots);
      tile_.Sums(true);
      if (!resident) tile_.Release();
    }
    AscendC::PipeBarrier<PIPE_ALL>();  // workspace writes land before other cores read them
    if (t_->softSync) {
      AscendC::SyncAll(syncFlags_, syncUb_.template Get<int32_t>());
    } else {
      AscendC::SyncAll();
    }
    if (resident) {
      if (count > 0 && t_->needDx) tile_.Dx();
      if (count > 0) tile_.Release();
      return;
    }
    ForTiles(first, count, false);
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradTile<T, Copy> tile_;
  AscendC::GlobalTensor<int32_t> syncFlags_;
  AscendC::TBuf<AscendC::TPosition::VECCALC> syncUb_;
};

}  // namespace normgrad
