// The cost model (ascendc/cost.h) against figures computed by hand from given counters.
#include <gtest/gtest.h>

#include <string>

#include "ascendc/cost.h"

namespace {

// Round numbers so every figure below is easy to check by hand: 1 GHz, 32 B/cycle per core
// (32000 B/us), 20-cycle DMA issue (0.02 us), 10-cycle vector issue, 1 TB/s HBM (1e6 B/us).
sim::SocProfile RoundSoc() {
  sim::SocProfile s = *sim::FindSoc("ascend910b");
  s.name = "round";
  s.aivCores = 4;
  s.clockGHz = 1.0;
  s.hbmSustainedTBs = 1.0;
  s.coreDmaBytesPerCycle = 32.0;
  s.dmaIssueCycles = 20.0;
  s.vecIssueCycles = 10.0;
  s.launchUs = 5.0;
  s.syncAllUs = 2.0;
  return s;
}

sim::CoreCounters BusyCore() {
  sim::CoreCounters c;
  c.gmToUbBytes = 64000;
  c.dmaIn = 2;
  c.ubToGmBytes = 32000;
  c.dmaOut = 1;
  c.vecRepeats[static_cast<int>(sim::OpClass::kElementwise)] = 1000;
  c.vecRepeats[static_cast<int>(sim::OpClass::kReduce)] = 100;
  c.vecRepeats[static_cast<int>(sim::OpClass::kTranscendental)] = 10;
  c.vecRepeats[static_cast<int>(sim::OpClass::kCast)] = 200;
  c.vecInstr = 50;
  c.ubToUbBytes = 512;
  c.syncAll = 1;
  c.drains = 1;  // the SyncAll, after DMA
  return c;
}

sim::CoreCounters LoadOnlyCore() {
  sim::CoreCounters c;
  c.gmToUbBytes = 32000;
  c.dmaIn = 1;
  c.syncAll = 1;
  c.drains = 1;
  return c;
}

constexpr double kEps = 1e-9;  // only floating-point rounding of exact decimal figures

TEST(Cost, CyclesPerRepeatArePerformanceModelConstants) {
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kElementwise), 1.0);
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kReduce), 3.0);
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kTranscendental), 3.0);
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kCast), 1.0);
}

TEST(Cost, CoreTimeByHand) {
  sim::CoreTime t = sim::ModelCore(BusyCore(), RoundSoc());
  EXPECT_NEAR(t.mte2Us, 64000.0 / 32000 + 2 * 0.02, kEps);  // 2.04
  EXPECT_NEAR(t.mte3Us, 32000.0 / 32000 + 1 * 0.02, kEps);  // 1.02
  // 1000*1 + 100*3 + 10*3 + 200*1 repeats, 2 UB->UB repeats, 50 issues * 10 cycles = 2032 cycles.
  EXPECT_NEAR(t.vecUs, 2.032, kEps);
  EXPECT_NEAR(t.fillUs, 2.04 / 2 + 1.02 / 1, kEps);  // one average MTE2 + one average MTE3
  EXPECT_EQ(t.refills, 2u);                           // the start, and again after the SyncAll
  EXPECT_NEAR(t.coreUs, 2.04 + 2 * 2.04, kEps);       // max(2.04, 1.02, 2.032) + 2 fills
}

TEST(Cost, EveryFullPipeBarrierCostsAPipelineRefill) {
  sim::CoreCounters c = BusyCore();
  c.fullBarriers = 3;
  c.drains = 4;  // the 3 barriers and the SyncAll, each after DMA: 5 fills
  sim::CoreTime t = sim::ModelCore(c, RoundSoc());
  EXPECT_EQ(t.refills, 5u);
  EXPECT_NEAR(t.coreUs, 2.04 + 5 * 2.04, kEps);
  c.drains = 0;
  EXPECT_NEAR(sim::ModelCore(c, RoundSoc()).coreUs, 2.04 + 2.04, kEps);
}

TEST(Cost, L2HitsLeaveTheHbmTermButNotTheCorePort) {
  sim::CoreCounters c = BusyCore();
  c.gmToUbBytes = 64000 + 32000;  // the second 32000 bytes re-read while still in the L2
  c.l2HitBytes = 32000;
  sim::KernelTime k = sim::ModelKernel({c}, RoundSoc());
  EXPECT_EQ(k.bytesIn, 96000u);   // still moved from GM to the core
  EXPECT_EQ(k.l2HitBytes, 32000u);
  EXPECT_NEAR(k.hbmUs, (96000.0 - 32000 + 32000) / 1e6, kEps);
  EXPECT_NEAR(k.cores[0].mte2Us, 96000.0 / 32000 + 2 * 0.02, kEps);
}

TEST(Cost, WhatIfConstantsReplaceTheProfilesAndClearAgain) {
  std::string error;
  ASSERT_TRUE(sim::SetCostOverrides("launch_us=3,sync_us=1,cpr_reduce=5,l2_mb=96", &error)) << error;
  sim::SocProfile s = sim::EffectiveSoc(*sim::FindSoc("ascend910b"));
  EXPECT_EQ(s.launchUs, 3.0);
  EXPECT_EQ(s.syncAllUs, 1.0);
  EXPECT_EQ(s.l2Bytes, 96ull << 20);
  EXPECT_EQ(s.hbmSustainedTBs, 1.5);  // not named: the profile's own
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kReduce), 5.0);
  sim::LaunchReport r;
  r.soc = sim::FindSoc("ascend910b");
  r.blockDim = 1;
  r.cores = {LoadOnlyCore()};
  EXPECT_NEAR(sim::ModelLaunch(r).syncUs, 1.0, kEps);
  EXPECT_FALSE(sim::SetCostOverrides("launch=3", &error));
  EXPECT_NE(error.find("launch_us"), std::string::npos) << error;  // names the known keys
  EXPECT_EQ(sim::EffectiveSoc(*sim::FindSoc("ascend910b")).launchUs, 3.0);  // a bad spec changes nothing
  EXPECT_FALSE(sim::SetCostOverrides("hbm_tbs=0", &error));
  EXPECT_FALSE(sim::SetCostOverrides("sync_us=-1", &error));
  ASSERT_TRUE(sim::SetCostOverrides("", &error));
  EXPECT_EQ(sim::EffectiveSoc(*sim::FindSoc("ascend910b")).launchUs, 5.0);
  EXPECT_EQ(sim::CyclesPerRepeat(sim::OpClass::kReduce), 3.0);
}

TEST(Cost, ScalarGmTrafficIsPricedOnTheCoreGmPortAndInTheHbmTerm) {
  sim::CoreCounters c = BusyCore();
  c.scalarGmBytesIn = 32000;   // 1.0 us at 32000 B/us
  c.scalarGmBytesOut = 16000;  // 0.5 us
  sim::CoreTime t = sim::ModelCore(c, RoundSoc());
  EXPECT_NEAR(t.mte2Us, 2.04 + 1.0, kEps);
  EXPECT_NEAR(t.mte3Us, 1.02 + 0.5, kEps);
  EXPECT_NEAR(t.fillUs, 2.04 / 2 + 1.02 / 1, kEps);  // DMA copies only: unchanged
  EXPECT_NEAR(t.coreUs, 3.04 + 2 * 2.04, kEps);
  sim::KernelTime k = sim::ModelKernel({c}, RoundSoc());
  EXPECT_EQ(k.bytesIn, 64000u + 32000u);
  EXPECT_EQ(k.bytesOut, 32000u + 16000u);
  EXPECT_EQ(k.scalarBytesIn, 32000u);
  EXPECT_EQ(k.scalarBytesOut, 16000u);
  EXPECT_NEAR(k.hbmUs, 144000.0 / 1e6, kEps);
}

TEST(Cost, ACoreWithOnlyScalarGmReadsIsBusy) {
  sim::CoreCounters c;
  c.scalarGm = 100;
  c.scalarGmBytesIn = 6400;
  sim::KernelTime k = sim::ModelKernel({c}, RoundSoc());
  EXPECT_NEAR(k.cores[0].coreUs, 0.2, kEps);  // no DMA: no fill
  EXPECT_EQ(k.busyCores, 1);
}

TEST(Cost, IdleCoreCostsNothing) {
  sim::CoreTime t = sim::ModelCore(sim::CoreCounters{}, RoundSoc());
  EXPECT_EQ(t.coreUs, 0.0);
  EXPECT_EQ(t.fillUs, 0.0);
}

TEST(Cost, KernelTimeByHandCountsIdleLaunchedCoresInLoadBalance) {
  sim::KernelTime k = sim::ModelKernel({BusyCore(), LoadOnlyCore(), sim::CoreCounters{}}, RoundSoc());
  ASSERT_EQ(k.cores.size(), 3u);
  EXPECT_NEAR(k.cores[1].coreUs, 1.02 + 2 * 1.02, kEps);  // a fill before and after its SyncAll
  EXPECT_EQ(k.bytesIn, 96000u);
  EXPECT_EQ(k.bytesOut, 32000u);
  EXPECT_NEAR(k.hbmUs, 128000.0 / 1e6, kEps);
  EXPECT_NEAR(k.maxCoreUs, 6.12, kEps);
  EXPECT_NEAR(k.meanCoreUs, (6.12 + 3.06 + 0) / 3, kEps);
  EXPECT_NEAR(k.loadBalance, 0.5, kEps);
  EXPECT_NEAR(k.chipUtilization, (6.12 + 3.06) / (4 * 6.12), kEps);  // 4 AIV cores, 3 launched
  EXPECT_EQ(k.busyCores, 2);
  EXPECT_NEAR(k.syncUs, 2.0, kEps);  // one SyncAll
  EXPECT_NEAR(k.launchUs, 5.0, kEps);
  EXPECT_NEAR(k.totalUs, 5.0 + 6.12 + 2.0, kEps);  // core-bound: 6.12 > 0.128
}

TEST(Cost, HbmBoundKernel) {
  sim::SocProfile soc = RoundSoc();
  soc.hbmSustainedTBs = 0.001;  // 1000 B/us: 128000 bytes take 128 us, more than any core
  sim::KernelTime k = sim::ModelKernel({BusyCore(), LoadOnlyCore()}, soc);
  EXPECT_NEAR(k.hbmUs, 128.0, kEps);
  EXPECT_NEAR(k.totalUs, 5.0 + 128.0 + 2.0, kEps);
}

TEST(Cost, NoWorkGivesLaunchOnlyAndBalanceOne) {
  sim::KernelTime k = sim::ModelKernel({sim::CoreCounters{}, sim::CoreCounters{}}, RoundSoc());
  EXPECT_NEAR(k.totalUs, 5.0, kEps);
  EXPECT_EQ(k.loadBalance, 1.0);
  EXPECT_EQ(k.busyCores, 0);
}

TEST(Cost, Ascend910bSingleCopyExampleFromHeader) {
  sim::CoreCounters c;
  c.gmToUbBytes = 59200;
  c.dmaIn = 1;
  sim::CoreTime t = sim::ModelCore(c, *sim::FindSoc("ascend910b"));
  EXPECT_NEAR(t.mte2Us, 59200.0 / (32 * 1850) + 20.0 / 1850, kEps);
}

TEST(Cost, CallTimeIsTheSumOfItsLaunches) {
  sim::SocProfile soc = RoundSoc();
  sim::LaunchReport a;
  a.soc = &soc;
  a.blockDim = 3;
  a.cores = {BusyCore(), LoadOnlyCore(), sim::CoreCounters{}};
  sim::LaunchReport b;
  b.soc = &soc;
  b.blockDim = 1;
  b.cores = {LoadOnlyCore()};
  // a: 5 + 6.12 + 2 = 13.12; b: 5 + 3.06 + 2 = 10.06
  EXPECT_NEAR(sim::ModelCallUs({a, b}), 13.12 + 10.06, kEps);
  EXPECT_EQ(sim::ModelCallUs({}), 0.0);
}

TEST(Cost, Ascend910bProfileHasPerformanceModelConstants) {
  // docs/sim.md, "Cost-model constants": f 1.85 GHz, 48 AIV, 1.5 TB/s sustained, 32 B/cycle per
  // core, t_dma 20 cycles, t_issue 10 cycles, T_launch 5 us, T_sync 1-3 us, L2 192 MB.
  const sim::SocProfile& s = *sim::FindSoc("ascend910b");
  EXPECT_EQ(s.clockGHz, 1.85);
  EXPECT_EQ(s.aivCores, 48);
  EXPECT_EQ(s.hbmSustainedTBs, 1.5);
  EXPECT_EQ(s.coreDmaBytesPerCycle, 32.0);
  EXPECT_EQ(s.dmaIssueCycles, 20.0);
  EXPECT_EQ(s.vecIssueCycles, 10.0);
  EXPECT_EQ(s.launchUs, 5.0);
  EXPECT_GE(s.syncAllUs, 1.0);
  EXPECT_LE(s.syncAllUs, 3.0);
  EXPECT_EQ(s.l2Bytes, 192ull << 20);
}

}  // namespace
