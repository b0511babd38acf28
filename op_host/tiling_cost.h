// The cost-model constants the tilings use to choose between splits (docs/cost-model.md §4).
// They are the Atlas A2 figures of the simulator's ascend910b profile; the tilings use them on
// every SoC, as a ranking of candidates rather than a prediction. Host only.
#pragma once

namespace normgrad {

struct TilingCostModel {
  double hbmBytesPerUs;      // sustained HBM bandwidth of the chip
  double coreDmaBytesPerUs;  // one core's DMA port: 32 bytes a cycle at 1.85 GHz
  double syncAllUs;          // one SyncAll over all cores
  double cyclesPerUs;        // vector clock
  // GroupNorm's wave ranking counts in bytes of one core's HBM share: a SyncAll is worth ~62 KiB
  // (2 us at 31 GB/s, an A2 core's share), issuing one DMA ~340 bytes.
  unsigned syncAllCoreShareBytes;
  unsigned dmaIssueBytes;
  // The chip's L2: a core's re-read hits when the bytes it moved since, times the launch's
  // cores, fit in it (the simulator's reuse model, docs/sim.md "L2 cache").
  unsigned long long l2Bytes;
  // Issue cost of one vector instruction, in cycles (the simulator's vec_issue_cycles, an ESTIMATE),
  // and of one DMA copy (dma_issue_cycles, fitted to the A2 copy measurements): the LayerNorm and
  // BatchNorm tilings count instructions with them.
  double vecIssueCycles;
  double dmaIssueCycles;
};

constexpr TilingCostModel kTilingCost{1.5e6, 59e3, 2.0, 1850.0, 62 * 1024, 340, 192ull * 1024 * 1024, 10.0, 20.0};

}  // namespace normgrad
