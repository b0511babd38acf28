// GroupNormGrad tiling candidate: channel slabs (mode kGngChannelSlab, kernel
// op_kernel/group_norm_grad_channel_slab.h). Core k holds rows (n, c) for every n and the
// channels c of the dgamma/dbeta split, all resident, so it adds dgamma/dbeta over n in UB and
// only the group sums it shares with its neighbours cross the workspace. Taken when dx and dgamma
// or dbeta are wanted on a chip with DataCopyPad and hard SyncAll, rows are at most
// kSlabMaxRowBytes, the busiest core has at most 1/0.9 of the mean rows, and the slab fits one
// core's UB with a 2048 (else 1024) chunk.
// The other plans send 16 bytes of sums per row through the workspace, >= 0.5 % of the row's
// minimum traffic (3 x 1 KiB) up to here; longer rows gain less than a slab's few big loads
// cost (SD 640ch 32x32 fp16: traffic 1.0036 -> 1.0002 but +2 % modeled time).
#include "group_norm_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr uint64_t kSlabMaxRowBytes = 1024;

}  // namespace

bool GngPlanChannelSlab(const GngPlanInput& in, GngGroupPhases* /*cache*/, GroupNormGradTiling* out,
                        std::string* /*why*/) {
  GroupNormGradTiling t = in.base;
  const uint64_t s = in.elemBytes;
  const uint64_t cores = in.coreCount;
  if (!t.needDx || !(t.needDgamma || t.needDbeta) || t.blockCopyOnly || t.softSync) return false;
  if (t.hw * s > kSlabMaxRowBytes) return false;
  const uint64_t most = CeilDiv(t.c, cores);
  if (t.c < cores || t.c * 10 < most * cores * 9) return false;
  const uint64_t slots = t.n * most;
  const uint64_t stride = AlignUp(t.hw, 32 / s);
  if (slots > kGngMaxSlotsPerTile) return false;
  for (uint64_t chunk : {2048u, 1024u}) {
    if (GngTilePlanBytes(s, chunk, stride, slots, 1, 0, in.path) + GngSlabUbBytes(t, most) > in.budget) continue;
    t.mode = kGngChannelSlab;
    t.blockDim = static_cast<uint32_t>(cores);
    t.chunkElems = chunk;
    t.hwParts = 1;
    t.segLen = t.hw;
    t.lastSegLen = t.hw;
    t.rowStride = stride;
    t.groupSlots = t.channelsPerGroup;
    t.slabTileSlots = slots;
    t.paramChannelsPerCore = t.c / cores;
    t.paramChannelsRemainder = t.c % cores;
    // Workspace: per core, n (db, ds) partials of its head group then n of its tail group.
    t.workspaceBytes = AlignUp(uint64_t{t.blockDim} * t.n * 4 * sizeof(float), 512);
    t.syncOffset = t.workspaceBytes;
    // The one barrier is split phase (A2/A3, as this mode): set behind the partials, dgamma/dbeta
    // of the core's channels in between, then the wait. Never slower than SyncAll in the cost
    // model (a wait costs what the work since the set does not cover, docs/cost-model.md §2).
    t.paramsSplitPhase = 1;
    t.ubBytesUsed = GroupNormGradUbBytes(t);
    *out = t;
    return true;
  }
  return false;
}

}  // namespace normgrad
