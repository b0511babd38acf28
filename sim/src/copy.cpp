// DMA engine of the simulator: range and alignment checks once per call, memcpy per block,
// DataCopyPad padding/dummy layout, atomic accumulation under a GM-wide lock, GM fills.
#include "ascendc/copy.h"

#include <atomic>
#include <mutex>

#include "ascendc/hazard.h"
#include "ascendc/pipe.h"
#include "ascendc/race.h"
#include "core_runtime.h"

namespace sim {
namespace {

std::mutex g_atomicMutex;  // atomic DMAs of all cores are applied one at a time
std::atomic<DummyFill> g_dummyFill{DummyFill::kPoison};

constexpr uint32_t kMaxBlockCount = 4095;
constexpr uint32_t kMaxPadBlockLen = 2097151;

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

// Tells the hazard tracker about n UB blocks of rowBytes each, pitch bytes apart.
void TrackUbRows(int pipe, bool write, const char* api, uint32_t addr, uint32_t n, uint64_t rowBytes, uint64_t pitch) {
  hazard::Tracker* t = hazard::Active();
  if (t == nullptr) return;
  uint32_t rows = pitch == rowBytes ? 1 : n;
  uint64_t bytes = pitch == rowBytes ? rowBytes * n : rowBytes;
  for (uint32_t i = 0; i < rows; ++i) {
    uint32_t a = addr + static_cast<uint32_t>(i * pitch);
    if (write) {
      t->UbWrite(pipe, api, a, bytes);
    } else {
      t->UbRead(pipe, api, a, bytes);
    }
  }
}

void CheckBlockCount(const char* api, uint32_t blockCount) {
  if (blockCount > kMaxBlockCount) Fail(api, "blockCount %u exceeds %u", blockCount, kMaxBlockCount);
}

// `used` bytes must lie inside the view; `touched` bytes (dummy included) inside the UB.
void CheckUb(const char* api, const char* role, copy::Ub v, uint64_t used, uint64_t touched) {
  const CoreContext& c = Core();
  if (v.addr % 32 != 0) Fail(api, "%s UB address %u is not 32-byte aligned", role, v.addr);
  if (used > v.len) {
    Fail(api, "%s needs %llu bytes from UB address %u but its tensor has %u bytes", role, U(used), v.addr, v.len);
  }
  if (v.addr + touched > c.ub.size()) {
    Fail(api, "%s touches UB bytes [%u, %llu), beyond the UB of %zu bytes", role, v.addr, U(v.addr + touched),
         c.ub.size());
  }
}

void CheckGmAligned(const char* api, const char* role, const void* gm, uint32_t elemBytes) {
  if (reinterpret_cast<uintptr_t>(gm) % elemBytes != 0) {
    Fail(api, "%s GM address %p is not aligned to the %u-byte element", role, gm, elemBytes);
  }
}

void CopyBlocks(uint8_t* dst, const uint8_t* src, uint32_t n, uint64_t bytes, uint64_t srcPitch, uint64_t dstPitch) {
  if (srcPitch == bytes && dstPitch == bytes) {
    std::memmove(dst, src, n * bytes);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) std::memmove(dst + i * dstPitch, src + i * srcPitch, bytes);
}

// CopyBlocks with a GM source: through gm::Read, which serves view regions (gm::RegisterView).
void ReadBlocks(uint8_t* dst, const uint8_t* gm, uint32_t n, uint64_t bytes, uint64_t gmPitch, uint64_t dstPitch) {
  if (gmPitch == bytes && dstPitch == bytes) {
    gm::Read(dst, gm, n * bytes);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) gm::Read(dst + i * dstPitch, gm + i * gmPitch, bytes);
}

template <typename T, typename F>
void AddEach(uint8_t* gm, const uint8_t* ub, uint64_t bytes, F add) {
  for (uint64_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T a, b;
    std::memcpy(&a, gm + i, sizeof(T));
    std::memcpy(&b, ub + i, sizeof(T));
    T r = add(a, b);
    std::memcpy(gm + i, &r, sizeof(T));
  }
}

// gm += ub element-wise in the atomic type, rounding once in that type (a float sum of two
// 16-bit floats rounded to 16 bits is correctly rounded: 24 >= 2 * 11 + 2).
void AtomicAdd(uint8_t* gm, const uint8_t* ub, uint64_t bytes, int code) {
  switch (code) {
    case kElemFloat:
      AddEach<float>(gm, ub, bytes, [](float a, float b) { return a + b; });
      break;
    case kElemHalf:
      AddEach<uint16_t>(gm, ub, bytes, normgrad::isa::num::AtomicAddHalfBits);
      break;
    case kElemBf16:
      AddEach<uint16_t>(gm, ub, bytes, normgrad::isa::num::AtomicAddBf16Bits);
      break;
    case kElemInt32:
      AddEach<uint32_t>(gm, ub, bytes, [](uint32_t a, uint32_t b) { return a + b; });
      break;
    case kElemInt16:
      AddEach<uint16_t>(gm, ub, bytes, [](uint16_t a, uint16_t b) { return static_cast<uint16_t>(a + b); });
      break;
    case kElemInt8:
      AddEach<uint8_t>(gm, ub, bytes, [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a + b); });
      break;
    default:
      break;
  }
}

// The MTE3 store of n blocks, plain or atomic.
void StoreBlocks(const char* api, uint8_t* gm, const uint8_t* ub, int elemCode, uint32_t n, uint64_t bytes,
                 uint64_t ubPitch, uint64_t gmPitch) {
  CoreContext& c = Core();
  if (c.atomicType == kElemNone) {
    CopyBlocks(gm, ub, n, bytes, ubPitch, gmPitch);
    return;
  }
  if (elemCode != c.atomicType) {
    Warn(api, "the copy moves %s but SetAtomicAdd<%s> is on; the hardware adds the bytes as %s", ElemName(elemCode),
         ElemName(c.atomicType), ElemName(c.atomicType));
  }
  std::lock_guard<std::mutex> lock(g_atomicMutex);
  for (uint32_t i = 0; i < n; ++i) AtomicAdd(gm + i * gmPitch, ub + i * ubPitch, bytes, c.atomicType);
}

void CheckPadArgs(const char* api, const copy::PadArgs& a, uint32_t elemBytes) {
  const CoreContext& c = Core();
  if (!c.soc->hasDataCopyPad) {
    Fail(api, "does not exist on %s (Atlas training); use DataCopy with 32-byte multiples", c.soc->name);
  }
  CheckBlockCount(api, a.blockCount);
  if (a.blockLen > kMaxPadBlockLen) Fail(api, "blockLen %u bytes exceeds %u", a.blockLen, kMaxPadBlockLen);
  if (a.blockLen % elemBytes != 0) {
    Fail(api, "blockLen %u is in bytes and must be a multiple of sizeof(T) = %u", a.blockLen, elemBytes);
  }
  if (a.left * elemBytes > 32 || a.right * elemBytes > 32) {
    Fail(api, "padding of %u left and %u right elements of %u bytes exceeds 32 bytes per side", a.left, a.right,
         elemBytes);
  }
  if (elemBytes == 8 && a.isPad && a.padBits != 0) Fail(api, "paddingValue must be 0 for 64-bit types");
}

}  // namespace

const char* ElemName(int code) {
  static const char* const kNames[] = {"none", "int8_t", "uint8_t", "int16_t", "uint16_t", "half", "bfloat16_t",
                                       "int32_t", "uint32_t", "float", "int64_t", "uint64_t", "double", "other"};
  return code >= 0 && code <= kElemOther ? kNames[code] : "?";
}

void SetDataCopyPadDummyFill(DummyFill fill) { g_dummyFill = fill; }

namespace copy {

uint64_t CountBytes(const char* api, uint32_t count, uint32_t elemBytes) {
  uint64_t bytes = static_cast<uint64_t>(count) * elemBytes;
  if (bytes % 32 != 0) {
    Warn(api, "%llu bytes (%u elements) is not a multiple of 32; use DataCopyPad (the hardware copies only the "
         "first %llu bytes)", U(bytes), count, U(bytes / 32 * 32));
  }
  return bytes / 32 * 32;
}

void GmToUb(const char* api, Ub dst, const uint8_t* gm, uint32_t elemBytes, uint32_t blockCount, uint64_t blockBytes,
            uint64_t gmPitch, uint64_t ubPitch) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaIn;
  CheckBlockCount(api, blockCount);
  if (blockCount == 0 || blockBytes == 0) return;
  uint64_t ubSpan = (blockCount - 1) * ubPitch + blockBytes;
  CheckUb(api, "dst", dst, ubSpan, ubSpan);
  CheckGmAligned(api, "src", gm, elemBytes);
  gm::CheckRange(api, gm, (blockCount - 1) * gmPitch + blockBytes, false);
  TrackUbRows(hazard::kMte2, true, api, dst.addr, blockCount, blockBytes, ubPitch);
  hazard::GmRead(api, gm, blockCount, blockBytes, gmPitch);
  race::GmAccess(race::kRead, api, gm, blockCount, blockBytes, gmPitch);
  ReadBlocks(c.ub.data() + dst.addr, gm, blockCount, blockBytes, gmPitch, ubPitch);
  c.counters.gmToUbBytes += blockCount * blockBytes;
  c.counters.l2HitBytes += c.l2.Read(gm, blockCount, blockBytes, gmPitch);
}

void UbToGm(const char* api, uint8_t* gm, Ub src, uint32_t elemBytes, int elemCode, uint32_t blockCount,
            uint64_t blockBytes, uint64_t ubPitch, uint64_t gmPitch) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaOut;
  CheckBlockCount(api, blockCount);
  if (blockCount == 0 || blockBytes == 0) return;
  uint64_t ubSpan = (blockCount - 1) * ubPitch + blockBytes;
  CheckUb(api, "src", src, ubSpan, ubSpan);
  CheckGmAligned(api, "dst", gm, elemBytes);
  gm::CheckRange(api, gm, (blockCount - 1) * gmPitch + blockBytes, true);
  TrackUbRows(hazard::kMte3, false, api, src.addr, blockCount, blockBytes, ubPitch);
  hazard::GmWrite(api, gm, blockCount, blockBytes, gmPitch, c.ub.data() + src.addr, ubPitch,
                  c.atomicType != kElemNone);
  race::GmAccess(c.atomicType != kElemNone ? race::kAtomic : race::kWrite, api, gm, blockCount, blockBytes, gmPitch,
                 c.ub.data() + src.addr, ubPitch);
  StoreBlocks(api, gm, c.ub.data() + src.addr, elemCode, blockCount, blockBytes, ubPitch, gmPitch);
  c.counters.ubToGmBytes += blockCount * blockBytes;
  c.l2.Write(gm, blockCount, blockBytes, gmPitch);
}

void UbToUb(const char* api, Ub dst, Ub src, uint32_t blockCount, uint64_t blockBytes, uint64_t srcPitch,
            uint64_t dstPitch) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.vecInstr;  // a UB->UB DataCopy is issued on PIPE_V
  CheckBlockCount(api, blockCount);
  if (blockCount == 0 || blockBytes == 0) return;
  uint64_t srcSpan = (blockCount - 1) * srcPitch + blockBytes;
  uint64_t dstSpan = (blockCount - 1) * dstPitch + blockBytes;
  CheckUb(api, "src", src, srcSpan, srcSpan);
  CheckUb(api, "dst", dst, dstSpan, dstSpan);
  TrackUbRows(hazard::kV, false, api, src.addr, blockCount, blockBytes, srcPitch);
  TrackUbRows(hazard::kV, true, api, dst.addr, blockCount, blockBytes, dstPitch);
  CopyBlocks(c.ub.data() + dst.addr, c.ub.data() + src.addr, blockCount, blockBytes, srcPitch, dstPitch);
  c.counters.ubToUbBytes += blockCount * blockBytes;
}

void PadGmToUb(Ub dst, const uint8_t* gm, uint32_t elemBytes, const PadArgs& a) {
  const char* api = "DataCopyPad";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaIn;
  CheckPadArgs(api, a, elemBytes);
  if (a.blockCount == 0 || a.blockLen == 0) return;
  uint64_t leftBytes = a.left * elemBytes, rightBytes = a.right * elemBytes;
  uint64_t usedBytes = leftBytes + a.blockLen + rightBytes;
  uint64_t ubBlockBytes = (usedBytes + 31) / 32 * 32;
  uint64_t ubPitch = ubBlockBytes + a.dstStride * 32ull;
  uint64_t gmPitch = static_cast<uint64_t>(a.blockLen) + a.srcStride;
  uint64_t last = (a.blockCount - 1) * ubPitch;
  CheckUb(api, "dst", dst, last + usedBytes, last + ubBlockBytes);
  gm::CheckRange(api, gm, (a.blockCount - 1) * gmPitch + a.blockLen, false);
  TrackUbRows(hazard::kMte2, true, api, dst.addr, a.blockCount, ubBlockBytes, ubPitch);
  hazard::GmRead(api, gm, a.blockCount, a.blockLen, gmPitch);
  race::GmAccess(race::kRead, api, gm, a.blockCount, a.blockLen, gmPitch);

  uint8_t padValue[8];
  std::memcpy(padValue, &a.padBits, 8);
  bool noPadding = a.left == 0 && a.right == 0;
  bool firstElementDummy = noPadding && g_dummyFill.load() == DummyFill::kFirstElement;
  for (uint32_t i = 0; i < a.blockCount; ++i) {
    uint32_t base = dst.addr + static_cast<uint32_t>(i * ubPitch);
    uint8_t* p = c.ub.data() + base;
    gm::Read(p + leftBytes, gm + i * gmPitch, a.blockLen);
    // Padding holds paddingValue when isPad, else whatever the pad register held ("random").
    if (a.isPad) {
      FillRepeating(p, leftBytes, padValue, elemBytes);
      FillRepeating(p + leftBytes + a.blockLen, rightBytes, padValue, elemBytes);
    } else {
      PoisonUb(base, leftBytes);
      PoisonUb(base + static_cast<uint32_t>(leftBytes + a.blockLen), rightBytes);
    }
    uint64_t dummyBytes = ubBlockBytes - usedBytes;
    uint8_t* dummy = p + usedBytes;
    if (firstElementDummy) {
      FillRepeating(dummy, dummyBytes, p, elemBytes);
    } else if (a.isPad && !noPadding) {
      FillRepeating(dummy, dummyBytes, padValue, elemBytes);
    } else {
      PoisonUb(base + static_cast<uint32_t>(usedBytes), dummyBytes);
    }
  }
  c.counters.gmToUbBytes += static_cast<uint64_t>(a.blockCount) * a.blockLen;
  c.counters.l2HitBytes += c.l2.Read(gm, a.blockCount, a.blockLen, gmPitch);
}

void PadUbToGm(uint8_t* gm, Ub src, uint32_t elemBytes, int elemCode, const PadArgs& a) {
  const char* api = "DataCopyPad";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaOut;
  CheckPadArgs(api, a, elemBytes);
  if (a.blockCount == 0 || a.blockLen == 0) return;
  uint64_t ubBlockBytes = (a.blockLen + 31ull) / 32 * 32;
  uint64_t ubPitch = ubBlockBytes + a.srcStride * 32ull;
  uint64_t gmPitch = static_cast<uint64_t>(a.blockLen) + a.dstStride;
  uint64_t last = (a.blockCount - 1) * ubPitch;
  CheckUb(api, "src", src, last + a.blockLen, last + ubBlockBytes);
  gm::CheckRange(api, gm, (a.blockCount - 1) * gmPitch + a.blockLen, true);
  TrackUbRows(hazard::kMte3, false, api, src.addr, a.blockCount, a.blockLen, ubPitch);
  hazard::GmWrite(api, gm, a.blockCount, a.blockLen, gmPitch, c.ub.data() + src.addr, ubPitch,
                  c.atomicType != kElemNone);
  race::GmAccess(c.atomicType != kElemNone ? race::kAtomic : race::kWrite, api, gm, a.blockCount, a.blockLen,
                 gmPitch, c.ub.data() + src.addr, ubPitch);
  StoreBlocks(api, gm, c.ub.data() + src.addr, elemCode, a.blockCount, a.blockLen, ubPitch, gmPitch);
  c.counters.ubToGmBytes += static_cast<uint64_t>(a.blockCount) * a.blockLen;
  c.l2.Write(gm, a.blockCount, a.blockLen, gmPitch);
}

void SetAtomic(const char* api, int elemCode) {
  CoreContext& c = Core();
  if (elemCode != kElemNone && elemCode != kElemFloat && !c.soc->hasBf16) {
    Fail(api, "atomic add in %s does not exist on %s (float only)", ElemName(elemCode), c.soc->name);
  }
  c.atomicType = elemCode;
}

void FillGm(const char* api, uint8_t* gm, uint64_t count, uint32_t elemBytes, const void* value, uint64_t chunkBytes) {
  CoreContext& c = Core();
  if (c.pipe != nullptr && static_cast<AscendC::TPipe*>(c.pipe)->SimCursor() > 0) {
    Warn(api, "called after TPipe::InitBuffer; it stages the value in UB the pipe has not allocated, so call it "
         "before any InitBuffer");
  }
  uint64_t bytes = count * elemBytes;
  if (bytes == 0) return;
  gm::CheckRange(api, gm, bytes, true);
  hazard::GmWrite(api, gm, 1, bytes, bytes, nullptr, 0, false);  // staged in UB by V, stored by MTE3 (§3.7)
  race::GmAccess(race::kWrite, api, gm, 1, bytes, bytes);
  FillRepeating(gm, bytes, static_cast<const uint8_t*>(value), elemBytes);
  c.counters.dmaOut += (bytes + chunkBytes - 1) / chunkBytes;
  c.counters.ubToGmBytes += bytes;
  c.l2.Write(gm, 1, bytes, bytes);
}

}  // namespace copy
}  // namespace sim
