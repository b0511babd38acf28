// GroupNormGrad, whole groups resident: each core owns wholeGroupsPerCore complete groups and
// streams them wholeGroupsPerTile at a time (double-buffered when two tiles fit), so dy and x are
// read once and no core waits for another before writing dx.
#pragma once
#include "group_norm_grad_tile.h"
#include "common/arch.h"

namespace normgrad {

// Hardware flag of the split-phase barrier (ids 0-10 are the kernel's; SyncAll uses 11-14).
constexpr uint16_t kGngParamsFlagId = 0;

template <typename T, typename Copy>
class GroupNormGradWholeGroup {
 public:
  __aicore__ inline void Init(const GroupNormGradTiling& t, const GroupNormGradGm<T>& gm, AscendC::TPipe* pipe) {
    t_ = &t;
    tile_.Init(t, gm, pipe, static_cast<uint32_t>(t.wholeTileSlots), t.wholeBufferNum, 0);
  }

  __aicore__ inline void Process() {
    const uint64_t groups = t_->wholeGroupsPerCore;
    const uint64_t perTile = t_->wholeGroupsPerTile;
    const uint64_t firstGroup = static_cast<uint64_t>(AscendC::GetBlockIdx()) * groups;
    const uint64_t tiles = (groups + perTile - 1) / perTile;
    const bool toWorkspace = t_->needDgamma || t_->needDbeta;
    const bool prefetch = t_->wholeBufferNum == 2;
    if (prefetch) CopyIn(firstGroup, groups, perTile, 0);
    for (uint64_t i = 0; i < tiles; ++i) {
      if (!prefetch) CopyIn(firstGroup, groups, perTile, i);
      tile_.Hold(Piece0(firstGroup, perTile, i), Slots(groups, perTile, i));
      if (prefetch && i + 1 < tiles) CopyIn(firstGroup, groups, perTile, i + 1);
      tile_.Sums(toWorkspace);
      if (i + 1 == tiles) RaiseParamsFlag();
      tile_.Dx();
      tile_.Release();
    }
    tile_.FinishDx();
    // The next phase carves this UB anew after pipe.Reset(), which waits for no pipe: the last
    // output copies (MTE3) must finish before its first loads (MTE2) overwrite their buffers.
    AscendC::PipeBarrier<PIPE_ALL>();
  }

 private:
  // Split-phase barrier (paramsSplitPhase, A2/A3): every sum this core writes (its whole groups',
  // and with kGngWholeGroupSplit its wave slice's, stored before this phase) is stored once the
  // last tile's are, so the set rides the MTE3 queue behind those stores and the last tile's dx
  // (its own groups' sums only) runs before the entry waits (group_norm_grad.cpp) for the sums
  // dgamma/dbeta and the wave's dx read.
  __aicore__ inline void RaiseParamsFlag() {
#if !NORMGRAD_BLOCK_COPY_ARCH
    if (t_->paramsSplitPhase) AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(kGngParamsFlagId);
#endif
  }

  __aicore__ inline uint64_t Piece0(uint64_t firstGroup, uint64_t perTile, uint64_t i) const {
    return (firstGroup + i * perTile) * t_->groupSlots;
  }
  __aicore__ inline uint32_t Slots(uint64_t groups, uint64_t perTile, uint64_t i) const {
    uint64_t left = groups - i * perTile;
    return static_cast<uint32_t>((left < perTile ? left : perTile) * t_->groupSlots);
  }
  __aicore__ inline void CopyIn(uint64_t firstGroup, uint64_t groups, uint64_t perTile, uint64_t i) {
    tile_.CopyIn(Piece0(firstGroup, perTile, i), Slots(groups, perTile, i));
  }

  const GroupNormGradTiling* t_ = nullptr;
  GroupNormGradTile<T, Copy> tile_;
};

}  // namespace normgrad
