// GroupNormGrad tiling candidate: channel slabs (mode kGngChannelSlab, kernel
// op_kernel/group_norm_grad_channel_slab.h). Core k holds rows (n, c) for every n and the
// channels c of the dgamma/dbeta split, all resident, so it adds dgamma/dbeta over n in UB and
// only the group sums it shares with its neighbours cross the workspace. Taken when dx and dgamma
// or dbeta are wanted on a chip with DataCopyPad and hard SyncAll, rows are at most
// kSlabMaxRowBytes, the busiest core has at most 1/0.9 of the mean rows, and the slab fits one
// core's UB with a working chunk of 1024 to 8192 elements. A core may instead take whole groups
// (no shared group, no barrier) on the most cores that divide the groups evenly, when modeled
// 2 % faster.
// The other plans send 16 bytes of sums per row through the workspace, >= 0.5 % of the row's
// minimum traffic (3 x 1 KiB) up to here; longer rows gain less than a slab's few big loads
// cost (SD 640ch 32x32 fp16: traffic 1.0036 -> 1.0002 but +2 % modeled time).
#include "group_norm_grad_tiling_plan.h"
#include "tiling_math.h"

namespace normgrad {
namespace {

constexpr uint64_t kSlabMaxRowBytes = 1024;

// The busiest core of a slab tiling as GngModeledUs prices it: its rows once, one barrier
// unless every range is whole groups (the work between set and wait, dgamma/dbeta of a few
// channels, is not counted).
double SlabUs(const GroupNormGradTiling& t, uint64_t s) {
  const uint64_t most = t.paramChannelsPerCore + (t.paramChannelsRemainder > 0 ? 1 : 0);
  GngLoad load;
  load.elems = t.n * most * t.hw;
  load.pieces = t.n * most;
  load.inBytes = 2 * load.elems * s;
  load.syncs = GngSlabExchanges(t) ? 1 : 0;
  load.copySlots = most;
  return GngModeledUs(t, s, load);
}

// The slab tiling over `cores` cores (channels split as evenly as possible) with the largest
// working chunk whose slab fits one core's UB, or false when none does. Bigger chunks issue
// fewer vector instructions (16-bit SD-UNet 1280 ch 16x16 on 32 cores: 8.66 us with 2048, 8.27
// with 8192; no suite case slower in the simulator, where GngModeledUs's instruction estimate
// for short rows picks smaller chunks that are up to 1.5 % slower); 8192 floats are 128
// repeats, under the 255 limit.
bool PlanSlab(const GngPlanInput& in, uint64_t cores, GroupNormGradTiling* out) {
  GroupNormGradTiling t = in.base;
  const uint64_t s = in.elemBytes;
  const uint64_t most = CeilDiv(t.c, cores);
  const uint64_t slots = t.n * most;
  const uint64_t stride = AlignUp(t.hw, 32 / s);
  if (slots > kGngMaxSlotsPerTile) return false;
  t.mode = kGngChannelSlab;
  t.blockDim = static_cast<uint32_t>(cores);
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
  // Ranges of whole groups have no barrier at all (GngSlabExchanges).
  t.paramsSplitPhase = GngSlabExchanges(t) ? 1 : 0;
  // Between 4096 and 8192, the tile itself rounded up to 64 when 8192 does not fit: one chunk,
  // so 16-bit dy and x are cast once (SD-UNet 1280 ch 8x8 fp16, 80 rows of 64: 5.83 -> 5.78 us).
  const uint64_t whole = AlignUp(slots * stride, 64);
  const uint64_t exact = whole > 4096 && whole < 8192 ? whole : 8192;
  for (uint64_t chunk : {uint64_t{8192}, exact, uint64_t{4096}, uint64_t{2048}, uint64_t{1024}}) {
    const uint32_t dxBuffers = GngSlabDxBuffers(chunk, stride, slots);
    if (GngTilePlanBytes(s, chunk, stride, slots, 1, 0, in.path, dxBuffers) + GngSlabUbBytes(t, most) > in.budget) {
      continue;
    }
    t.chunkElems = chunk;
    t.ubBytesUsed = GroupNormGradUbBytes(t);
    *out = t;
    return true;
  }
  return false;
}

}  // namespace

bool GngPlanChannelSlab(const GngPlanInput& in, GngGroupPhases* /*cache*/, GroupNormGradTiling* out,
                        std::string* /*why*/) {
  const GroupNormGradTiling& base = in.base;
  const uint64_t s = in.elemBytes;
  const uint64_t cores = in.coreCount;
  if (!base.needDx || !(base.needDgamma || base.needDbeta) || base.blockCopyOnly || base.softSync) return false;
  if (base.hw * s > kSlabMaxRowBytes) return false;
  // All cores, when the busiest holds at most 1/0.9 of the mean channels: every group shared
  // with a neighbour has its sums exchanged behind one barrier.
  GroupNormGradTiling spread{};
  const uint64_t most = CeilDiv(base.c, cores);
  const bool spreadOk = base.c >= cores && base.c * 10 >= most * cores * 9 && PlanSlab(in, cores, &spread);
  // Whole groups a core (the most cores that divide the groups evenly, however few: the model
  // weighs the idle cores): no group is shared, so no barrier at all; taken when modeled 2 %
  // faster than the spread.
  GroupNormGradTiling aligned{};
  uint64_t groupCores = std::min<uint64_t>(base.g, cores);
  while (base.g % groupCores != 0) --groupCores;
  const bool alignedOk = PlanSlab(in, groupCores, &aligned);
  if (alignedOk && (!spreadOk || SlabUs(aligned, s) < 0.98 * SlabUs(spread, s))) {
    *out = aligned;
    return true;
  }
  if (!spreadOk) return false;
  *out = spread;
  return true;
}

}  // namespace normgrad
