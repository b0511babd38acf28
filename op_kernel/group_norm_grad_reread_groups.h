// GroupNormGrad, re-read groups (mode kGngRereadGroups, A2/A3): each core owns whole (n, g) groups,
// so no core waits for another before writing dx. Layouts (GroupNormGradRereadLayout):
//   - kGngRereadOwner: core k owns group k of every sample (blockDim = g): groups k, g + k, ...
//     Its channel range in dgamma/dbeta is then exactly group k's, whose piece sums only it
//     wrote, so dgamma/dbeta follow without a SyncAll.
//   - kGngRereadRuns: core k owns a contiguous run of the n*g groups (sizes differ by at most
//     one); dgamma/dbeta follow one SyncAll.
//   - kGngRereadRunsSplitPhase: core k owns an even share of all pieces (a group may span two
//     cores). Pass 1 sums all of them, a split-phase flag is set once the sums are stored, pass 2
//     re-reads the pieces of the groups wholly inside the share for dx, then the core waits and
//     finishes the (at most two) groups it shares with its neighbours: the barrier costs what
//     pass 2 does not cover, and dgamma/dbeta need no other.
// Groups the tile holds go wholeGroupsPerTile to a tile (owner: as runs of one group each, their
// sums published run by run) and are read once. A group larger than the tile is streamed twice:
// pass 1 publishes its piece sums to the workspace, pass 2 reads dy and x again and writes dx from
// the sums it reads back. Between a byte's two reads the core moves at most about three of the
// bytes read in between (the group's, or with split phase the whole run's), which the tiling keeps
// within the core's share of the L2, so pass 2 costs the core's DMA port but no HBM traffic. The
// last tile of a group's pass 1 stays resident and is the first of its pass 2.
#pragma once
#include "group_norm_grad_tile.h"
#include "common/arch.h"

namespace normgrad {

template <typename T, typename Copy>
class GroupNormGradRereadGroups {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    tile_.Init(t, gm, pipe, static_cast<uint32_t>(t.splitTileSlots), 1,
               GroupNormGradTile<T, Copy>::WorkspaceBatch(t));
  }

  __aicore__ inline void Process() {
    const uint64_t core = static_cast<uint64_t>(AscendC::GetBlockIdx());
    const uint64_t cores = static_cast<uint64_t>(AscendC::GetBlockNum());
    uint64_t first = 0;  // the core's groups: first + i * step, i < count
    uint64_t count = 0;
    uint64_t step = 1;
    if (t_->rereadLayout == kGngRereadOwner) {
      first = core;
      count = core < t_->g ? t_->n : 0;
      step = t_->g;
    } else {
      const uint64_t groups = t_->n * t_->g;
      const uint64_t base = groups / cores;
      const uint64_t rem = groups % cores;
      first = core * base + (core < rem ? core : rem);
      count = base + (core < rem ? 1 : 0);
    }
    const uint64_t perTile = t_->wholeGroupsPerTile;  // 0: a group is larger than the tile
    if (t_->rereadLayout == kGngRereadRunsSplitPhase) {
      // An even share of all pieces: groups may span two cores.
      const uint64_t pieces = t_->n * t_->g * t_->groupSlots;
      const uint64_t base = pieces / cores;
      const uint64_t rem = pieces % cores;
      SplitPhaseRuns(core * base + (core < rem ? core : rem), base + (core < rem ? 1 : 0));
    } else if (perTile >= 1) {
      for (uint64_t i = 0; i < count; i += perTile) {
        Resident(first + i * step, count - i < perTile ? count - i : perTile, step);
      }
    } else {
      for (uint64_t i = 0; i < count; ++i) TwoPasses(first + i * step);
    }
    tile_.FinishDx();
    // The next phase carves this UB anew after pipe.Reset(), which waits for no pipe: the last
    // output copies (MTE3) must finish before its first loads (MTE2) overwrite their buffers.
    AscendC::PipeBarrier<PIPE_ALL>();
  }

 private:
  // `groups` whole groups q0, q0 + step, ... in one tile: summed and written from UB.
  __aicore__ inline void Resident(uint64_t q0, uint64_t groups, uint64_t step) {
    const uint64_t gs = t_->groupSlots;
    const uint32_t runs = static_cast<uint32_t>(step == 1 ? 1 : groups);
    const uint32_t slots = static_cast<uint32_t>(step == 1 ? groups * gs : gs);
    tile_.CopyIn(q0 * gs, slots, runs, step * gs);
    tile_.Hold(q0 * gs, slots, runs, step * gs);
    tile_.Sums(t_->needDgamma || t_->needDbeta);
    tile_.Dx();
    tile_.Release();
  }

  // Pieces [p0, p0 + pieces), the core's even share: every sum, the flag, dx of the groups wholly
  // inside the share (their sums are all this core's), the wait, dx of the (at most two) groups
  // it shares with its neighbours, whose other sums are now stored.
  __aicore__ inline void SplitPhaseRuns(uint64_t p0, uint64_t pieces) {
    const uint64_t gs = t_->groupSlots;
    const uint64_t end = p0 + pieces;
    uint64_t inner0 = (p0 + gs - 1) / gs * gs;  // the whole groups' pieces: [inner0, inner1)
    uint64_t inner1 = end / gs * gs;
    if (inner1 < inner0) inner0 = inner1 = end;  // inside one group: all of it waits
    DxOrSums(p0, end, true);
#if !NORMGRAD_BLOCK_COPY_ARCH  // split-phase flags: A2/A3 (the tiling's choice)
    // The set rides the MTE3 queue behind this core's stores of its sums; the fence orders this
    // core's own reads of them after those stores (the flag orders other cores only).
    AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(kGngRereadFlagId);
#endif
    PipeFence<AscendC::HardEvent::MTE3_MTE2>();
    DxOrSums(inner0, inner1, false);
#if !NORMGRAD_BLOCK_COPY_ARCH
    AscendC::CrossCoreWaitFlag(kGngRereadFlagId);  // every core's sums are stored
#endif
    DxOrSums(p0, inner0, false);
    DxOrSums(inner1, end, false);
  }

  // Pieces [p, end) in tiles: their sums to the workspace, or their dx.
  __aicore__ inline void DxOrSums(uint64_t p, uint64_t end, bool sums) {
    tile_.StreamPieces(p, end, t_->splitTileSlots, sums);
  }

  // One group larger than the tile: pass 1 for its sums, pass 2 (L2 hits) for dx.
  __aicore__ inline void TwoPasses(uint64_t q) {
    const uint64_t cap = t_->splitTileSlots;
    const uint64_t p0 = q * t_->groupSlots;
    const uint64_t end = p0 + t_->groupSlots;
    const uint64_t last = p0 + (t_->groupSlots - 1) / cap * cap;  // the tile kept resident
    for (uint64_t p = p0; p < end; p += cap) {
      const uint32_t slots = static_cast<uint32_t>(end - p < cap ? end - p : cap);
      tile_.CopyIn(p, slots);
      tile_.Hold(p, slots);
      tile_.Sums(true);
      if (p != last) tile_.Release();
    }
    // The group's piece sums are in the workspace before Dx reads them back (this core wrote
    // them; no other core touches them). A pipe fence, not PIPE_ALL: that would drain the
    // pipeline once per group.
    PipeFence<AscendC::HardEvent::MTE3_MTE2>();
    tile_.Dx();
    tile_.Release();
    for (uint64_t p = p0; p < last; p += cap) {
      tile_.CopyIn(p, static_cast<uint32_t>(cap));
      tile_.Hold(p, static_cast<uint32_t>(cap));
      tile_.Dx();
      tile_.Release();
    }
  }

  // Hardware flag of the split-phase barrier (ids 0-10 are the kernel's; SyncAll uses 11-14).
  static constexpr uint16_t kGngRereadFlagId = 0;

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradTile<T, Copy> tile_;
};

}  // namespace normgrad
