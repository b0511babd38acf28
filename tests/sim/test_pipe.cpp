// TPipe, TQue and TBuf: pool layout, the buffer state machine and its errors, implicit queue
// events, event-id allocation, TBuf views, poisoning, Reset/Destroy.
#include "runtime_test_util.h"

using namespace AscendC;
using rt_test::GmBuf;
using rt_test::Run1;
using rt_test::RunOn;

TEST(TPipe, BuffersArePlacedConsecutivelyWithRoundUp) {
  std::vector<uint64_t> addr;
  std::vector<uint32_t> len;
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> in;
    TQue<TPosition::VECOUT, 1> out;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(in, 2, 100);  // 2 x 128
    pipe.InitBuffer(out, 1, 32);
    pipe.InitBuffer(tmp, 1);      // 32
    LocalTensor<float> a = in.AllocTensor<float>();
    LocalTensor<float> b = in.AllocTensor<float>();
    LocalTensor<half> c = out.AllocTensor<half>();
    LocalTensor<int8_t> d = tmp.Get<int8_t>();
    for (auto t : {a.GetPhyAddr(), b.GetPhyAddr(), c.GetPhyAddr(), d.GetPhyAddr()}) addr.push_back(t);
    len = {a.GetLength(), b.GetLength(), c.GetLength(), d.GetLength()};
    EXPECT_EQ(a.GetSize(), 32u);
    EXPECT_EQ(pipe.SimCursor(), 320u);
    in.FreeTensor(a);
    in.FreeTensor(b);
    out.FreeTensor(c);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(addr, (std::vector<uint64_t>{0, 128, 256, 288}));
  EXPECT_EQ(len, (std::vector<uint32_t>{128, 128, 32, 32}));
}

TEST(TPipe, PoolLimits) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TBuf<> a, b;
                        pipe.InitBuffer(a, 196608 - 32);
                        pipe.InitBuffer(b, 33);
                      }),
                      "TPipe::InitBuffer: 1 x 33 bytes (rounded up to 64) at UB offset 196576 exceed the UB of "
                      "196608 bytes on ascend910b");
  // The Atlas training UB is 256 KiB.
  EXPECT_LAUNCH_OK(RunOn("ascend910", 1, [] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 262144);
  }));
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TBuf<> a;
                        pipe.InitBuffer(a, 0);
                      }),
                      "TPipe::InitBuffer: len is 0 bytes");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 0, 32);
                      }),
                      "TPipe::InitBuffer: num 0 is outside [1, 64]");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TBuf<> bufs[65];
                        for (auto& b : bufs) pipe.InitBuffer(b, 32);
                      }),
                      "1 more buffers exceed the limit of 64 per TPipe (64 already)");
}

TEST(TPipe, OnePerKernelUntilDestroyed) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe a;
                        TPipe b;
                      }),
                      "core 0: TPipe: a second TPipe was constructed while another is live");
  EXPECT_LAUNCH_OK(Run1([] {
    TPipe a;
    a.Destroy();
    TPipe b;
    if (GetTPipePtr() != &b) sim::Fail("test", "GetTPipePtr");
  }));
  EXPECT_LAUNCH_ERROR(Run1([] { GetTPipePtr(); }), "GetTPipePtr: no TPipe has been constructed in this kernel");
}

TEST(TPipe, ResetInvalidatesQueuesAndRewindsThePool) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 1, 64);
                        pipe.Reset();
                        q.AllocTensor<float>();
                      }),
                      "TQue::AllocTensor: its TPipe was Reset(); call InitBuffer again");
  std::vector<uint64_t> addr;
  EXPECT_LAUNCH_OK(Run1([&] {
    TPipe pipe;
    TBuf<> a, b;
    pipe.InitBuffer(a, 64);
    pipe.Reset();
    pipe.InitBuffer(b, 64);
    addr.push_back(b.Get<float>().GetPhyAddr());
  }));
  EXPECT_EQ(addr, std::vector<uint64_t>{0});
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TBuf<> a;
                        {
                          TPipe pipe;
                          pipe.InitBuffer(a, 64);
                        }
                        TPipe other;
                        a.Get<float>();
                      }),
                      "TBuf::Get: its TPipe was destroyed");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TBuf<> a;
                        a.Get<float>();
                      }),
                      "TBuf::Get: used before TPipe::InitBuffer");
}

// ---- queue state machine

TEST(TQue, DepthTwoPreloadAndRoundRobin) {
  std::vector<uint64_t> order;
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 64);
    for (int i = 0; i < 3; ++i) {
      LocalTensor<float> a = q.AllocTensor<float>();
      LocalTensor<float> b = q.AllocTensor<float>();
      order.push_back(a.GetPhyAddr());
      order.push_back(b.GetPhyAddr());
      q.EnQue(a);
      q.EnQue(b);
      if (q.GetTensorCountInQue() != 2 || q.VacantInQue() || q.HasIdleBuffer()) sim::Fail("test", "queries");
      LocalTensor<float> x = q.DeQue<float>();
      LocalTensor<float> y = q.DeQue<float>();
      if (x.GetPhyAddr() != a.GetPhyAddr() || y.GetPhyAddr() != b.GetPhyAddr()) sim::Fail("test", "FIFO order");
      q.FreeTensor(x);
      q.FreeTensor(y);
    }
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(order, (std::vector<uint64_t>{0, 64, 0, 64, 0, 64}));
}

TEST(TQue, AllocWithNoFreeBufferFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 2, 64);
                        q.AllocTensor<float>();
                        q.AllocTensor<float>();
                        q.AllocTensor<float>();
                      }),
                      "core 0: TQue::AllocTensor: exceeds buffer number: all 2 VECIN buffers are allocated");
}

TEST(TQue, EnQuePastDepthFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECOUT, 1> q;
                        pipe.InitBuffer(q, 2, 64);
                        q.EnQue(q.AllocTensor<float>());
                        q.EnQue(q.AllocTensor<float>());
                      }),
                      "TQue::EnQue: the VECOUT queue already holds 1 tensors, its depth is 1");
}

TEST(TQue, DeQueEmptyFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 1, 64);
                        q.DeQue<float>();
                      }),
                      "TQue::DeQue: the VECIN queue is empty (DeQue without a matching EnQue)");
}

TEST(TQue, DoubleFreeFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 1, 64);
                        LocalTensor<float> t = q.AllocTensor<float>();
                        q.FreeTensor(t);
                        q.FreeTensor(t);
                      }),
                      "TQue::FreeTensor: double free: buffer 0 of the VECIN queue is already free");
}

TEST(TQue, ForeignTensorFails) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> a;
                        TQue<TPosition::VECIN, 1> b;
                        pipe.InitBuffer(a, 1, 64);
                        pipe.InitBuffer(b, 1, 64);
                        LocalTensor<float> t = a.AllocTensor<float>();
                        b.EnQue(t);
                      }),
                      "TQue::EnQue: the tensor was not allocated from this VECIN queue");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> a;
                        TBuf<> buf;
                        pipe.InitBuffer(a, 1, 64);
                        pipe.InitBuffer(buf, 64);
                        LocalTensor<float> t = buf.Get<float>();
                        a.FreeTensor(t);
                      }),
                      "TQue::FreeTensor: the tensor was not allocated from this VECIN queue");
}

TEST(TQue, WrongStateTransitionsFail) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 2> q;
                        pipe.InitBuffer(q, 1, 64);
                        LocalTensor<float> t = q.AllocTensor<float>();
                        q.EnQue(t);
                        q.EnQue(t);
                      }),
                      "TQue::EnQue: buffer 0 is ENQUE; EnQue takes a tensor from AllocTensor or DeQue");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 1, 64);
                        LocalTensor<float> t = q.AllocTensor<float>();
                        q.EnQue(t);
                        q.FreeTensor(t);
                      }),
                      "TQue::FreeTensor: buffer 0 is still in the VECIN queue; DeQue it first");
  // Re-enqueue after DeQue is legal.
  EXPECT_LAUNCH_OK(Run1([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    q.EnQue(t);
    t = q.DeQue<float>();
    q.EnQue(t);
    t = q.DeQue<float>();
    q.FreeTensor(t);
  }));
}

TEST(TQue, OutstandingTensorsPerPositionAreLimited) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> a, b;
                        pipe.InitBuffer(a, 5, 32);
                        pipe.InitBuffer(b, 5, 32);
                        for (int i = 0; i < 5; ++i) a.AllocTensor<float>();
                        for (int i = 0; i < 4; ++i) b.AllocTensor<float>();
                      }),
                      "TQue::AllocTensor: more than 8 TQue tensors outstanding on VECIN");
  // 4 on Atlas training, and the pool warns about the buffer count.
  auto r = RunOn("ascend910", 1, [] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> a;
    pipe.InitBuffer(a, 5, 32);
    for (int i = 0; i < 5; ++i) a.AllocTensor<float>();
  });
  EXPECT_LAUNCH_ERROR(r, "more than 4 TQue tensors outstanding on VECOUT");
}

TEST(TQue, ImplicitEventsHoldIdsAndCountAsSyncs) {
  std::vector<int> fetched;
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<float> t = q.AllocTensor<float>();       // no event yet
    q.EnQue(t);                                            // SetFlag MTE2_V id 0
    fetched.push_back(GetTPipePtr()->FetchEventID<HardEvent::MTE2_V>());
    t = q.DeQue<float>();                                  // WaitFlag MTE2_V id 0, released
    fetched.push_back(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
    q.FreeTensor(t);                                       // SetFlag V_MTE2 id 0
    fetched.push_back(GetTPipePtr()->FetchEventID<HardEvent::V_MTE2>());
    t = q.AllocTensor<float>();                            // WaitFlag V_MTE2 id 0
    fetched.push_back(GetTPipePtr()->FetchEventID<HardEvent::V_MTE2>());
    q.FreeTensor(t);                                       // SetFlag V_MTE2, cleared by the pipe
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(fetched, (std::vector<int>{1, 0, 1, 0}));
  EXPECT_EQ(r.cores[0].syncs, 6u);  // the 5 flags and the TPipe's closing PipeBarrier<PIPE_ALL>
}

TEST(TQue, UserEventCollidingWithAQueueEventFails) {
  // EnQue holds MTE2_V id 0; a literal EVENT_ID0 SetFlag on the same event collides, as on hardware.
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        TQue<TPosition::VECIN, 1> q;
                        pipe.InitBuffer(q, 1, 64);
                        q.EnQue(q.AllocTensor<float>());
                        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
                      }),
                      "SetFlag: HardEvent::MTE2_V id 0 is already set");
}

TEST(TQue, LeakedBufferWarns) {
  auto r = Run1([] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 2, 64);
    q.AllocTensor<float>();
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_TRUE(rt_test::HasWarning(r, "TQue: VECOUT queue destroyed with 1 of 2 buffers allocated or queued"));
}

TEST(TQue, AllocatedTensorsArePoisoned) {
  int poisoned = 0;
  auto r = Run1([&] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<uint32_t> t = q.AllocTensor<uint32_t>();
    for (uint32_t i = 0; i < 16; ++i) t.SetValue(i, 1u);
    q.FreeTensor(t);
    t = q.AllocTensor<uint32_t>();  // the same buffer, poisoned again
    for (uint32_t i = 0; i < 16; ++i) poisoned += t.GetValue(i) == sim::kUbPoisonWord;
    q.FreeTensor(t);
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(poisoned, 16);
}

// ---- event ids

TEST(TPipeEvents, AllocReleaseFetch) {
  std::vector<int> ids;
  auto r = Run1([&] {
    TPipe pipe;
    ids.push_back(pipe.AllocEventID<HardEvent::V_MTE3>());
    ids.push_back(pipe.AllocEventID<HardEvent::V_MTE3>());
    ids.push_back(pipe.FetchEventID<HardEvent::V_MTE3>());
    ids.push_back(pipe.FetchEventID<HardEvent::V_MTE3>());  // Fetch does not occupy
    pipe.ReleaseEventID<HardEvent::V_MTE3>(0);
    ids.push_back(pipe.FetchEventID<HardEvent::V_MTE3>());
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2, 2, 0}));
}

TEST(TPipeEvents, ExhaustionAndBadRelease) {
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        for (int i = 0; i < 9; ++i) pipe.AllocEventID<HardEvent::S_V>();
                      }),
                      "TPipe::AllocEventID: no free event id for HardEvent::S_V: all 8 are held");
  EXPECT_LAUNCH_ERROR(Run1([] {
                        TPipe pipe;
                        pipe.ReleaseEventID<HardEvent::S_V>(3);
                      }),
                      "TPipe::ReleaseEventID: HardEvent::S_V id 3 was not allocated with AllocEventID");
}

// ---- TBuf

TEST(TBuf, ViewsAliasAndAreChecked) {
  std::vector<uint64_t> addr;
  std::vector<uint32_t> len;
  auto r = Run1([&] {
    TPipe pipe;
    TBuf<> pad, buf;
    pipe.InitBuffer(pad, 32);
    pipe.InitBuffer(buf, 250);  // 256
    LocalTensor<float> whole = buf.Get<float>(), part = buf.Get<float>(10);
    LocalTensor<half> off = buf.GetWithOffset<half>(16, 64);
    addr = {whole.GetPhyAddr(), part.GetPhyAddr(), off.GetPhyAddr()};
    len = {whole.GetLength(), part.GetLength(), off.GetLength()};
  });
  EXPECT_LAUNCH_OK(r);
  EXPECT_EQ(addr, (std::vector<uint64_t>{32, 32, 96}));
  EXPECT_EQ(len, (std::vector<uint32_t>{256, 40, 32}));
  auto one = [](const std::function<void(TBuf<>&)>& f) {
    return Run1([&] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 256);
      f(buf);
    });
  };
  EXPECT_LAUNCH_ERROR(one([](TBuf<>& b) { b.Get<float>(65); }),
                      "TBuf::Get: 260 bytes at offset 0 exceed the buffer of 256 bytes");
  EXPECT_LAUNCH_ERROR(one([](TBuf<>& b) { b.GetWithOffset<float>(4, 16); }),
                      "TBuf::GetWithOffset: bufOffset 16 bytes is not a multiple of 32");
  EXPECT_LAUNCH_ERROR(one([](TBuf<>& b) { b.GetWithOffset<float>(57, 32); }),
                      "TBuf::GetWithOffset: 228 bytes at offset 32 exceed the buffer of 256 bytes");
}
