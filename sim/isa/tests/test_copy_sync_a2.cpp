// DMA, atomics, flags, scalar bit instructions and the trap on dav-c220.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

namespace isa_test {
namespace {

using CopySyncA2 = Model;

TEST_F(CopySyncA2, PlainCopiesMoveBlocksWithGaps) {
  uint8_t* g = Gm<uint8_t>(0);
  for (int i = 0; i < 1024; ++i) g[i] = static_cast<uint8_t>(i * 7);
  // 3 bursts of 2 blocks; GM gap 1 block, UB gap 2 blocks.
  copy_gm_to_ubuf(Ub<void>(0), Gm<void>(0), 0, uint16_t(3), uint16_t(2), uint16_t(1), uint16_t(2));
  for (int b = 0; b < 3; ++b) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(ub_[b * 128 + i], g[b * 96 + i]) << b << "," << i;
    for (int i = 64; i < 128; ++i) EXPECT_EQ(ub_[b * 128 + i], 0) << b << "," << i;
  }
  copy_ubuf_to_gm(Gm<void>(4096), Ub<void>(0), 0, 3, 2, 2, 0);  // back, packed
  for (int b = 0; b < 3; ++b) {
    for (int i = 0; i < 64; ++i) EXPECT_EQ(gm_[4096 + b * 64 + i], g[b * 96 + i]);
  }
  copy_ubuf_to_ubuf(Ub<void>(8192), Ub<void>(0), 0, uint16_t(1), uint16_t(2), uint16_t(0), uint16_t(0));
  EXPECT_EQ(std::memcmp(ub_ + 8192, ub_, 64), 0);
  const normgrad::isa::Counters& c = normgrad::isa::Core().counters;
  EXPECT_EQ(c.gmToUbBytes, 192u);
  EXPECT_EQ(c.ubToGmBytes, 192u);
  EXPECT_EQ(c.ubToUbBytes, 64u);
}

TEST_F(CopySyncA2, AlignCopyPadsInElementsGapsInBytesAndBlocks) {
  float* g = Gm<float>(0);
  for (int i = 0; i < 64; ++i) g[i] = static_cast<float>(i);
  float pad = -9.0f;
  uint32_t padBits;
  std::memcpy(&padBits, &pad, 4);
  set_mov_pad_val(uint64_t(padBits));
  // 2 bursts of 5 floats (20 bytes), GM gap 12 bytes (3 floats), left pad 1, right pad 2
  // (1 + 5 + 2 = 8 floats = one block), UB gap 1 block.
  copy_gm_to_ubuf_align_b32(Ub<float>(0), g, 0, uint16_t(2), uint32_t(20), uint8_t(1), uint8_t(2), uint32_t(12),
                            uint32_t(1));
  const float* u = Ub<float>(0);
  const float want0[8] = {-9, 0, 1, 2, 3, 4, -9, -9};
  const float want1[8] = {-9, 8, 9, 10, 11, 12, -9, -9};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(u[i], want0[i]) << i;
    EXPECT_EQ(u[8 + i], 0.0f) << "UB gap " << i;
    EXPECT_EQ(u[16 + i], want1[i]) << i;
  }
  // Back: 2 bursts of 6 floats (24 bytes, one 32-byte UB block each), UB gap 1 block, GM gap 4 bytes.
  copy_ubuf_to_gm_align_b32(Gm<float>(1024), Ub<float>(0), 0, uint16_t(2), uint32_t(24), uint8_t(0), uint8_t(0),
                            uint32_t(1), uint32_t(4));
  const float* o = Gm<float>(1024);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(o[i], want0[i]) << i;
    EXPECT_EQ(o[7 + i], want1[i]) << i;
  }
  EXPECT_EQ(o[6], 0.0f);  // the GM gap is untouched
}

int g_gmReads = 0;
void MarkingGmReader(void* dst, const void*, uint64_t bytes) {
  ++g_gmReads;
  std::memset(dst, 0x5a, bytes);
}

// A front end's GM reader (SetGmReader: front end A reads views of strided tensors through it) serves
// every GM -> UB copy, plain and _align, one call per burst or one for contiguous bursts; none is the
// default (GM is plain memory).
TEST_F(CopySyncA2, GmReaderServesTheGmToUbCopies) {
  g_gmReads = 0;
  normgrad::isa::SetGmReader(MarkingGmReader);
  copy_gm_to_ubuf(Ub<void>(0), Gm<void>(0), 0, uint16_t(2), uint16_t(1), uint16_t(1), uint16_t(0));  // 2 bursts
  copy_gm_to_ubuf(Ub<void>(256), Gm<void>(0), 0, uint16_t(3), uint16_t(1), uint16_t(0), uint16_t(0));  // contiguous
  copy_gm_to_ubuf_align_b32(Ub<float>(1024), Gm<float>(0), 0, uint16_t(1), uint32_t(12), uint8_t(0), uint8_t(0),
                            uint32_t(0), uint32_t(0));
  normgrad::isa::SetGmReader(nullptr);
  EXPECT_EQ(g_gmReads, 4);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(ub_[i], 0x5a) << i;
  for (int i = 0; i < 96; ++i) EXPECT_EQ(ub_[256 + i], 0x5a) << i;
  for (int i = 0; i < 12; ++i) EXPECT_EQ(ub_[1024 + i], 0x5a) << i;
  copy_gm_to_ubuf(Ub<void>(0), Gm<void>(0), 0, uint16_t(1), uint16_t(1), uint16_t(0), uint16_t(0));
  EXPECT_EQ(g_gmReads, 4);
  EXPECT_EQ(ub_[0], 0);  // read from memory again
}

TEST_F(CopySyncA2, AlignCopyChecksItsFields) {
  copy_gm_to_ubuf_align_b16(Ub<half>(0), Gm<half>(0), 0, uint16_t(1), uint32_t(3), uint8_t(0), uint8_t(0), 0u, 0u);
  EXPECT_TRUE(Violated("not a multiple"));
  Violations().clear();
  copy_gm_to_ubuf_align_b16(Ub<half>(0), Gm<half>(0), 0, uint16_t(1), uint32_t(4), uint8_t(17), uint8_t(0), 0u, 0u);
  EXPECT_TRUE(Violated("leftPad"));
  Violations().clear();
  copy_gm_to_ubuf(Ub<void>(0), Gm<void>(0), 0, 4096, 1, 0, 0);
  EXPECT_TRUE(Violated("nBurst"));
}

TEST_F(CopySyncA2, AtomicAddOnStoreWhileEnabled) {
  float* g = Gm<float>(0);
  float* u = Ub<float>(0);
  for (int i = 0; i < 8; ++i) {
    g[i] = 1.0f;
    u[i] = 0.5f * static_cast<float>(i);
  }
  set_atomic_f32();
  set_atomic_add();
  copy_ubuf_to_gm(g, u, 0, 1, 1, 0, 0);
  copy_ubuf_to_gm_align_b32(g, u, 0, uint16_t(1), uint32_t(8), uint8_t(0), uint8_t(0), 0u, 0u);  // 2 floats
  for (int i = 0; i < 8; ++i) EXPECT_EQ(g[i], 1.0f + (i < 2 ? 1.0f : 0.5f) * static_cast<float>(i)) << i;
  set_atomic_none();
  copy_ubuf_to_gm(g, u, 0, 1, 1, 0, 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(g[i], 0.5f * static_cast<float>(i)) << i;
}

TEST_F(CopySyncA2, AtomicHalfSaturates) {
  half* g = Gm<half>(0);
  half* u = Ub<half>(0);
  for (int i = 0; i < 16; ++i) {
    SetHalfBits(g + i, 0x7bff);  // 65504
    SetHalfBits(u + i, 0x7bff);
  }
  set_atomic_f16();
  copy_ubuf_to_gm(g, u, 0, 1, 1, 0, 0);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(HalfBits(g + i), 0x7bff) << i;
}

TEST_F(CopySyncA2, AtomicAddIsAtomicAcrossProcesses) {
  // GM shared between processes, as CANN's GmAlloc maps it: 4 children add 1.0 to the same
  // float 2000 times each.
  void* shared = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  float* g = static_cast<float*>(shared);
  for (int i = 0; i < 8; ++i) g[i] = 0.0f;
  float* u = Ub<float>(0);
  for (int i = 0; i < 8; ++i) u[i] = 1.0f;
  std::vector<pid_t> kids;
  for (int k = 0; k < 4; ++k) {
    pid_t pid = fork();
    if (pid == 0) {
      set_atomic_f32();
      for (int n = 0; n < 2000; ++n) copy_ubuf_to_gm(g, u, 0, 1, 1, 0, 0);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int i = 0; i < 8; ++i) EXPECT_EQ(g[i], 8000.0f) << i;
  munmap(shared, 4096);
}

TEST_F(CopySyncA2, AtomicListenerFollowsTheMode) {
  static bool enabled = false;
  normgrad::isa::SetAtomicListener([](bool on, normgrad::isa::AtomicOp) { enabled = on; });
  set_atomic_f32();
  EXPECT_TRUE(enabled);
  set_atomic_none();
  EXPECT_FALSE(enabled);
  normgrad::isa::SetAtomicListener(nullptr);
}

TEST_F(CopySyncA2, FlagsPairAndBalance) {
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  EXPECT_TRUE(normgrad::isa::CheckFlagsBalanced());
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  EXPECT_TRUE(Violated("has no earlier set_flag"));
  Violations().clear();
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  EXPECT_FALSE(normgrad::isa::CheckFlagsBalanced());
  EXPECT_TRUE(Violated("never waited for"));
  pipe_barrier(PIPE_V);
  EXPECT_EQ(normgrad::isa::Core().counters.barriers, 1u);
}

TEST_F(CopySyncA2, ScalarBitInstructions) {
  EXPECT_EQ(sff0(uint64_t(0)), 0);
  EXPECT_EQ(sff0(uint64_t(0x17)), 3);
  EXPECT_EQ(sff0(~uint64_t(0)), -1);
  EXPECT_EQ(sbitset1(uint64_t(0), int64_t(5)), 32u);
  EXPECT_EQ(sbitset0(uint64_t(0xff), int8_t(0)), 0xfeu);
  sbitset1(uint64_t(0), int64_t(64));
  EXPECT_TRUE(Violated("idx"));
}

TEST_F(CopySyncA2, MaskRegisterIsReadable) {
  set_vector_mask(uint64_t(3), uint64_t(5));
  set_mask_count();
  const normgrad::isa::State& s = normgrad::isa::Core();
  EXPECT_EQ(s.maskHi, 3u);
  EXPECT_EQ(s.maskLo, 5u);
  EXPECT_TRUE(s.counterMode);
}

using CopySyncA2Death = CopySyncA2;
TEST_F(CopySyncA2Death, UnmodelledIntrinsicTrapsNamingIt) {
  EXPECT_EXIT(dcci(static_cast<int64_t*>(nullptr), cache_line_t::SINGLE_CACHE_LINE, dcci_dst_t::CACHELINE_OUT),
              ::testing::ExitedWithCode(4), "dcci");
  EXPECT_EXIT(copy_gm_to_cbuf(Ub<void>(0), Gm<void>(0), int8_t(0), uint16_t(1), uint16_t(1), uint16_t(0),
                              uint16_t(0), PAD_NONE),
              ::testing::ExitedWithCode(4), "copy_gm_to_cbuf");
  EXPECT_EXIT(scatter_vnchwconv_b16(VA0, VA2, uint8_t(1), uint16_t(0), uint16_t(0)), ::testing::ExitedWithCode(4),
              "scatter_vnchwconv_b16");
}

TEST_F(CopySyncA2Death, DefaultViolationHookExits) {
  normgrad::isa::SetViolationHook(nullptr);
  EXPECT_EXIT(wait_flag(PIPE_S, PIPE_V, EVENT_ID3), ::testing::ExitedWithCode(3), "wait_flag");
}

}  // namespace
}  // namespace isa_test
