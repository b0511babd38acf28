// The pipe-hazard tracker: every hazard kind fires on a kernel that lacks the sync, with the
// message naming the pipes, the UB or GM range and the earlier instruction, and the same kernel
// passes once it has the right SetFlag/WaitFlag, PipeBarrier, SyncAll or queue discipline.
#include <cstdlib>

#include "ascendc/hazard.h"
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

namespace {

constexpr uint32_t kN = 64;  // floats: 256 bytes, eight UB blocks

class Hazard : public ::testing::Test {
 protected:
  void SetUp() override { sim::SetHazardTracking(sim::HazardMode::kOn); }
  void TearDown() override { sim::SetHazardTracking(sim::HazardMode::kEnvironment); }
};

template <HardEvent E>
void Fence() {
  SetFlag<E>(0);
  WaitFlag<E>(0);
}

// Two 256-byte TBufs at UB 0 and 256.
struct Bufs {
  TPipe pipe;
  TBuf<> a, b;
  Bufs() {
    pipe.InitBuffer(a, kN * sizeof(float));
    pipe.InitBuffer(b, kN * sizeof(float));
  }
  LocalTensor<float> A() { return a.Get<float>(); }
  LocalTensor<float> B() { return b.Get<float>(); }
};

// ---------------------------------------------------------------- RAW MTE2 -> V

TEST_F(Hazard, VectorReadOfLoadedTBufWithoutFlagFires) {
  GmBuf<float> in(kN);
  auto r = Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Muls(u.B(), u.A(), 2.0f, kN);
  });
  EXPECT_LAUNCH_ERROR(r, "core 0: Muls: read-after-write hazard on UB [0, 256): written by MTE2 (DataCopy, "
                         "instruction #1) with no MTE2_V SetFlag/WaitFlag or PipeBarrier<PIPE_ALL> since (this "
                         "access is on V)");
}

TEST_F(Hazard, VectorReadOfLoadedTBufAfterMte2VFlagOrBarrierPasses) {
  GmBuf<float> in(kN);
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Fence<HardEvent::MTE2_V>();
    Muls(u.B(), u.A(), 2.0f, kN);
  }));
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    PipeBarrier<PIPE_ALL>();
    Muls(u.B(), u.A(), 2.0f, kN);
  }));
}

TEST_F(Hazard, FlagOfAnotherPipePairDoesNotOrderTheRead) {
  GmBuf<float> in(kN);
  auto r = Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Fence<HardEvent::MTE3_V>();  // MTE3 is idle; says nothing about MTE2
    PipeBarrier<PIPE_V>();
    Muls(u.B(), u.A(), 2.0f, kN);
  });
  EXPECT_LAUNCH_ERROR(r, "Muls: read-after-write hazard on UB [0, 256): written by MTE2");
}

TEST_F(Hazard, FlagSetBeforeTheLoadDoesNotOrderIt) {
  GmBuf<float> in(kN);
  auto r = Run1([&] {
    Bufs u;
    SetFlag<HardEvent::MTE2_V>(0);
    DataCopy(u.A(), in.Tensor(), kN);  // issued after the flag captured MTE2's progress
    WaitFlag<HardEvent::MTE2_V>(0);
    Muls(u.B(), u.A(), 2.0f, kN);
  });
  EXPECT_LAUNCH_ERROR(r, "Muls: read-after-write hazard on UB [0, 256)");
}

TEST_F(Hazard, OnlyTheConflictingBlocksMatter) {
  GmBuf<float> in(kN);
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Muls(u.B(), u.B(), 2.0f, kN);  // another TBuf: no conflict (V writes poison, which is fine here)
  }));
  auto r = Run1([&] {
    Bufs u;
    DataCopy(u.A()[8], in.Tensor(), 8);  // block 1 only
    Muls(u.B(), u.A(), 2.0f, kN);
  });
  EXPECT_LAUNCH_ERROR(r, "read-after-write hazard on UB [32, 64): written by MTE2");
}

// ---------------------------------------------------------------- RAW V -> MTE3

TEST_F(Hazard, StoreOfVectorResultWithoutFlagFires) {
  GmBuf<float> out(kN);
  auto r = Run1([&] {
    Bufs u;
    Duplicate(u.A(), 1.0f, kN);
    DataCopyPad(out.Tensor(), u.A(), DataCopyExtParams(1, 40, 0, 0, 0));
  });
  EXPECT_LAUNCH_ERROR(r, "core 0: DataCopyPad: read-after-write hazard on UB [0, 64): written by V (Duplicate) "
                         "with no V_MTE3 SetFlag/WaitFlag or PipeBarrier<PIPE_ALL> since (this "
                         "access is on MTE3)");
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    Duplicate(u.A(), 1.0f, kN);
    Fence<HardEvent::V_MTE3>();
    DataCopyPad(out.Tensor(), u.A(), DataCopyExtParams(1, 40, 0, 0, 0));
  }));
  EXPECT_EQ(out[9], 1.0f);
}

TEST_F(Hazard, VectorToVectorNeedsNothing) {
  EXPECT_LAUNCH_OK(Run1([] {
    Bufs u;
    Duplicate(u.A(), 1.0f, kN);
    Muls(u.B(), u.A(), 2.0f, kN);
    Add(u.A(), u.A(), u.B(), kN);
  }));
}

// ---------------------------------------------------------------- WAR and WAW

TEST_F(Hazard, OverwritingABufferMte3StillReadsFires) {
  GmBuf<float> out(kN);
  auto body = [&](bool fence) {
    return Run1([&] {
      Bufs u;
      Duplicate(u.A(), 1.0f, kN);
      Fence<HardEvent::V_MTE3>();
      DataCopy(out.Tensor(), u.A(), kN);
      if (fence) Fence<HardEvent::MTE3_V>();
      Duplicate(u.A(), 2.0f, kN);
    });
  };
  EXPECT_LAUNCH_ERROR(body(false), "core 0: Duplicate: write-after-read hazard on UB [0, 32): read by MTE3 "
                                   "(DataCopy, instruction #1) with no MTE3_V SetFlag/WaitFlag or "
                                   "PipeBarrier<PIPE_ALL> since (this access is on V)");
  EXPECT_LAUNCH_OK(body(true));
}

TEST_F(Hazard, ReloadingABufferVectorStillReadsFires) {
  GmBuf<float> in(kN);
  auto body = [&](bool fence) {
    return Run1([&] {
      Bufs u;
      DataCopy(u.A(), in.Tensor(), kN);
      Fence<HardEvent::MTE2_V>();
      Muls(u.B(), u.A(), 2.0f, kN);
      if (fence) Fence<HardEvent::V_MTE2>();
      DataCopy(u.A(), in.Tensor(), kN);
    });
  };
  EXPECT_LAUNCH_ERROR(body(false), "DataCopy: write-after-read hazard on UB [0, 32): read by V (Muls) with no V_MTE2");
  EXPECT_LAUNCH_ERROR(body(false), "with no V_MTE2 SetFlag/WaitFlag");
  EXPECT_LAUNCH_OK(body(true));
}

TEST_F(Hazard, LoadOverVectorWrittenBufferFires) {
  GmBuf<float> in(kN);
  auto r = Run1([&] {
    Bufs u;
    Duplicate(u.A(), 0.0f, kN);
    DataCopy(u.A(), in.Tensor(), kN);
  });
  EXPECT_LAUNCH_ERROR(r, "DataCopy: write-after-write hazard on UB [0, 32): written by V (Duplicate");
}

TEST_F(Hazard, TwoLoadsIntoOneBufferNeedPipeBarrierMte2) {
  GmBuf<float> in(kN);
  auto body = [&](bool barrier) {
    return Run1([&] {
      Bufs u;
      DataCopy(u.A(), in.Tensor(), kN);
      if (barrier) PipeBarrier<PIPE_MTE2>();
      DataCopy(u.A()[8], in.Tensor(), 8);
    });
  };
  EXPECT_LAUNCH_ERROR(body(false), "core 0: DataCopy: write-after-write hazard on UB [32, 64): written by MTE2 "
                                   "(DataCopy, instruction #1) with no PipeBarrier<PIPE_MTE2> since");
  EXPECT_LAUNCH_OK(body(true));
}

TEST_F(Hazard, HappensBeforeIsTransitive) {
  // MTE2 -> V -> MTE3: the store may read the loaded block without an MTE2_MTE3 flag.
  GmBuf<float> in(kN), out(kN);
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Fence<HardEvent::MTE2_V>();
    Muls(u.B(), u.A(), 2.0f, kN);
    Fence<HardEvent::V_MTE3>();
    DataCopy(out.Tensor(), u.A(), kN);
  }));
  auto r = Run1([&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    DataCopy(out.Tensor(), u.A(), kN);
  });
  EXPECT_LAUNCH_ERROR(r, "with no MTE2_MTE3 SetFlag/WaitFlag");
}

TEST_F(Hazard, ScalarAccessesAreAutoSynchronised) {
  // The compiler's auto-sync waits V before GetValue; the scalar unit then issues the store.
  GmBuf<float> out(8);
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    Duplicate(u.A(), 3.0f, kN);
    float v = u.A().GetValue(0);
    u.A().SetValue(1, v);
    DataCopy(out.Tensor(), u.A(), 8);
  }));
  EXPECT_EQ(out[1], 3.0f);
}

// ---------------------------------------------------------------- GM

TEST_F(Hazard, ReadingBackOwnGmWritesNeedsMte3Mte2) {
  GmBuf<float> ws(kN);
  auto body = [&](int sync) {
    return Run1([&] {
      Bufs u;
      Duplicate(u.A(), 1.0f, kN);
      Fence<HardEvent::V_MTE3>();
      DataCopyPad(ws.Tensor()[4], u.A(), DataCopyExtParams(1, 16, 0, 0, 0));
      if (sync == 1) Fence<HardEvent::MTE3_MTE2>();
      if (sync == 2) PipeBarrier<PIPE_ALL>();
      DataCopy(u.B(), ws.Tensor(), kN);
    });
  };
  EXPECT_LAUNCH_ERROR(body(0), "core 0: DataCopy: read-after-write hazard on GM [");
  EXPECT_LAUNCH_ERROR(body(0), ", +16 bytes): written by this core's MTE3 (DataCopyPad, instruction #1) with no "
                               "MTE3_MTE2 SetFlag/WaitFlag, PipeBarrier<PIPE_ALL> or SyncAll since");
  EXPECT_LAUNCH_OK(body(1));
  EXPECT_LAUNCH_OK(body(2));
  // A disjoint read needs nothing.
  EXPECT_LAUNCH_OK(Run1([&] {
    Bufs u;
    Duplicate(u.A(), 1.0f, kN);
    Fence<HardEvent::V_MTE3>();
    DataCopyPad(ws.Tensor()[4], u.A(), DataCopyExtParams(1, 16, 0, 0, 0));
    DataCopy(u.B(), ws.Tensor()[8], 8);
  }));
}

TEST_F(Hazard, StridedGmWritesTrackOnlyTheirRows) {
  // Rows of 8 bytes every 32 bytes: the gaps may be read back at once.
  GmBuf<float> ws(kN);
  auto r = Run1([&] {
    Bufs u;
    Duplicate(u.A(), 1.0f, kN);
    Fence<HardEvent::V_MTE3>();
    DataCopyPad(ws.Tensor(), u.A(), DataCopyExtParams(4, 8, 0, 24, 0));
    DataCopyPad(u.B(), ws.Tensor()[2], DataCopyExtParams(4, 24, 8, 0, 0), DataCopyPadExtParams<float>());
    DataCopyPad(u.B()[32], ws.Tensor()[1], DataCopyExtParams(1, 4, 0, 0, 0), DataCopyPadExtParams<float>());
  });
  EXPECT_LAUNCH_ERROR(r, "hazard on GM [");
  EXPECT_LAUNCH_ERROR(r, "+4 bytes)");
}

TEST_F(Hazard, SyncAllOrdersGmRoundTrips) {
  GmBuf<float> ws(8 * 4);
  EXPECT_LAUNCH_OK(RunOn("ascend910b", 4, [&] {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    Bufs u;
    Duplicate(u.A(), static_cast<float>(GetBlockIdx()), 8);
    Fence<HardEvent::V_MTE3>();
    DataCopy(ws.Tensor()[GetBlockIdx() * 8], u.A(), 8);
    SyncAll();
    DataCopy(u.B(), ws.Tensor(), 32);
  }));
}

TEST_F(Hazard, OverlappingGmStoresNeedPipeBarrierMte3UnlessEqualOrAtomic) {
  GmBuf<float> out(kN);
  auto body = [&](bool barrier, float second, bool atomic) {
    return Run1([&] {
      Bufs u;
      Duplicate(u.A(), 1.0f, kN);
      Duplicate(u.B(), second, kN);
      Fence<HardEvent::V_MTE3>();
      if (atomic) SetAtomicAdd<float>();
      DataCopy(out.Tensor(), u.A(), 16);
      if (barrier) PipeBarrier<PIPE_MTE3>();
      DataCopy(out.Tensor()[8], u.B(), 16);
      if (atomic) SetAtomicNone();
    });
  };
  EXPECT_LAUNCH_ERROR(body(false, 2.0f, false), "core 0: DataCopy: write-after-write hazard on GM [");
  EXPECT_LAUNCH_ERROR(body(false, 2.0f, false), ", +32 bytes): written by this core's MTE3 (DataCopy, instruction "
                                                "#1) with no PipeBarrier<PIPE_MTE3> since");
  EXPECT_LAUNCH_OK(body(true, 2.0f, false));
  EXPECT_LAUNCH_OK(body(false, 1.0f, false));  // rewrites the bytes it overlaps with equal values
  EXPECT_LAUNCH_OK(body(false, 2.0f, true));   // atomic adds commute
}

// ---------------------------------------------------------------- queues

TEST_F(Hazard, QueueEventsOrderLoadComputeStore) {
  GmBuf<float> in(kN), out(kN);
  EXPECT_LAUNCH_OK(Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qi;
    TQue<TPosition::VECOUT, 1> qo;
    pipe.InitBuffer(qi, 1, kN * sizeof(float));
    pipe.InitBuffer(qo, 1, kN * sizeof(float));
    for (int t = 0; t < 3; ++t) {
      LocalTensor<float> x = qi.AllocTensor<float>();
      DataCopy(x, in.Tensor(), kN);
      qi.EnQue(x);
      x = qi.DeQue<float>();
      LocalTensor<float> y = qo.AllocTensor<float>();
      Muls(y, x, 2.0f, kN);
      qi.FreeTensor(x);
      qo.EnQue(y);
      y = qo.DeQue<float>();
      DataCopy(out.Tensor(), y, kN);
      qo.FreeTensor(y);
    }
  }));
}

TEST_F(Hazard, QueueTensorUsedWithoutEnQueDeQueFires) {
  GmBuf<float> in(kN);
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qi;
    TBuf<> tmp;
    pipe.InitBuffer(qi, 1, kN * sizeof(float));
    pipe.InitBuffer(tmp, kN * sizeof(float));
    LocalTensor<float> x = qi.AllocTensor<float>();
    DataCopy(x, in.Tensor(), kN);
    Muls(tmp.Get<float>(), x, 2.0f, kN);
    qi.FreeTensor(x);
  });
  EXPECT_LAUNCH_ERROR(r, "Muls: read-after-write hazard on UB [0, 256): written by MTE2");
}

TEST_F(Hazard, ReusingAVecinBufferHonoursFreeTensorEvent) {
  // The second load into the single VECIN buffer is ordered after the vector read by
  // FreeTensor (sets V_MTE2) and the next AllocTensor (waits it).
  GmBuf<float> in(kN);
  EXPECT_LAUNCH_OK(Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qi;
    TBuf<> tmp;
    pipe.InitBuffer(qi, 1, kN * sizeof(float));
    pipe.InitBuffer(tmp, kN * sizeof(float));
    for (int t = 0; t < 2; ++t) {
      LocalTensor<float> x = qi.AllocTensor<float>();
      DataCopy(x, in.Tensor(), kN);
      qi.EnQue(x);
      x = qi.DeQue<float>();
      Muls(tmp.Get<float>(), x, 2.0f, kN);
      qi.FreeTensor(x);
    }
  }));
}

TEST_F(Hazard, DoubleBufferedQueuesPass) {
  constexpr int kTiles = 6;
  GmBuf<float> in(kN * kTiles), out(kN * kTiles);
  for (uint32_t i = 0; i < kN * kTiles; ++i) in[i] = static_cast<float>(i);
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> qi;
    TQue<TPosition::VECOUT, 2> qo;
    pipe.InitBuffer(qi, 2, kN * sizeof(float));
    pipe.InitBuffer(qo, 2, kN * sizeof(float));
    auto copyIn = [&](int t) {
      LocalTensor<float> x = qi.AllocTensor<float>();
      DataCopy(x, in.Tensor()[t * kN], kN);
      qi.EnQue(x);
    };
    copyIn(0);
    for (int t = 0; t < kTiles; ++t) {
      if (t + 1 < kTiles) copyIn(t + 1);  // the next tile loads while this one computes
      LocalTensor<float> x = qi.DeQue<float>();
      LocalTensor<float> y = qo.AllocTensor<float>();
      Muls(y, x, 2.0f, kN);
      qi.FreeTensor(x);
      qo.EnQue(y);
      y = qo.DeQue<float>();
      DataCopy(out.Tensor()[t * kN], y, kN);
      qo.FreeTensor(y);
    }
  });
  EXPECT_LAUNCH_OK(r);
  for (uint32_t i = 0; i < kN * kTiles; ++i) ASSERT_EQ(out[i], 2.0f * static_cast<float>(i)) << i;
}

// ---------------------------------------------------------------- switch

TEST(HazardSwitch, OffLetsTheBrokenKernelRunAndEnvironmentIsReadAtLaunch) {
  GmBuf<float> in(kN);
  auto broken = [&] {
    Bufs u;
    DataCopy(u.A(), in.Tensor(), kN);
    Muls(u.B(), u.A(), 2.0f, kN);
  };
  sim::SetHazardTracking(sim::HazardMode::kOff);
  EXPECT_FALSE(sim::HazardTrackingEnabled());
  EXPECT_LAUNCH_OK(Run1(broken));

  const char* saved = std::getenv("NORMGRAD_SIM_HAZARDS");
  std::string savedValue = saved ? saved : "";
  sim::SetHazardTracking(sim::HazardMode::kEnvironment);
  setenv("NORMGRAD_SIM_HAZARDS", "1", 1);
  EXPECT_TRUE(sim::HazardTrackingEnabled());
  EXPECT_LAUNCH_ERROR(Run1(broken), "read-after-write hazard");
  setenv("NORMGRAD_SIM_HAZARDS", "0", 1);
  EXPECT_FALSE(sim::HazardTrackingEnabled());
  EXPECT_LAUNCH_OK(Run1(broken));
  if (saved) {
    setenv("NORMGRAD_SIM_HAZARDS", savedValue.c_str(), 1);
  } else {
    unsetenv("NORMGRAD_SIM_HAZARDS");
  }
}

}  // namespace
