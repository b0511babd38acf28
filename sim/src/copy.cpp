// DataCopy / DataCopyPad of front end A: the API's checks (errors name the API), the hazard tracker,
// the race detector and the cost counters, then the DMA instructions CANN's implementation issues
// (asc-devkit impl/basic_api/dav_c220 and dav_c100 kernel_operator_data_copy_impl.h) to the
// instruction-level model, which moves the bytes and does the atomic adds; then A's poison on the pad
// bytes the documentation leaves unspecified. GM fills.
#include "ascendc/copy.h"

#include <atomic>

#include "ascendc/hazard.h"
#include "ascendc/isa_issue.h"
#include "ascendc/pipe.h"
#include "ascendc/race.h"
#include "core_runtime.h"

namespace sim {
namespace {

namespace isa = normgrad::isa;

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
void CheckUb(const char* api, const char* role, const CoreContext& c, copy::Ub v, uint64_t used, uint64_t touched) {
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

// An empty copy (no block, or blocks of no byte) copies nothing here. CANN's implementation issues it
// as a DMA instruction with nBurst or lenBurst 0, outside the instruction's documented ranges (nBurst
// 1..4095, lenBurst from 1; the model reports it), and what the hardware does then is not documented:
// a warning says so instead of the instruction.
bool IsEmpty(const char* api, uint32_t blockCount, uint64_t blockBytes) {
  if (blockCount != 0 && blockBytes != 0) return false;
  Warn(api, "an empty copy (blockCount %u, %llu bytes a block) is not issued; CANN issues it with a zero "
       "nBurst or lenBurst, outside the DMA instruction's range, and the hardware's behaviour is not documented",
       blockCount, U(blockBytes));
  return true;
}

// The model's atomic register (set_atomic_<type>) for an element type code; kNone for the others.
isa::AtomicType AtomicTypeOf(int code) {
  switch (code) {
    case kElemFloat: return isa::AtomicType::kF32;
    case kElemHalf: return isa::AtomicType::kF16;
    case kElemBf16: return isa::AtomicType::kBf16;
    case kElemInt32: return isa::AtomicType::kS32;
    case kElemInt16: return isa::AtomicType::kS16;
    case kElemInt8: return isa::AtomicType::kS8;
    default: return isa::AtomicType::kNone;
  }
}

// The atomic-add mode of a store that is about to be issued (kElemNone: plain), with A's warning when
// the copy's element type is not the one the atomic register adds in.
int StoreAtomic(const char* api, int elemCode) {
  const int atomic = copy::AtomicElem();
  if (atomic != kElemNone && elemCode != atomic) {
    Warn(api, "the copy moves %s but SetAtomicAdd<%s> is on; the hardware adds the bytes as %s", ElemName(elemCode),
         ElemName(atomic), ElemName(atomic));
  }
  return atomic;
}

// The _align copies take 8-, 16- or 32-bit elements; CANN issues 64-bit ones as b32 with doubled pads.
uint32_t AlignElemBytes(uint32_t elemBytes) { return elemBytes == 8 ? 4 : elemBytes; }

void CheckPadArgs(const char* api, const CoreContext& c, const copy::PadArgs& a, uint32_t elemBytes) {
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
  if (IsEmpty(api, blockCount, blockBytes)) return;
  uint64_t ubSpan = (blockCount - 1) * ubPitch + blockBytes;
  CheckUb(api, "dst", c, dst, ubSpan, ubSpan);
  CheckGmAligned(api, "src", gm, elemBytes);
  gm::CheckRange(api, gm, (blockCount - 1) * gmPitch + blockBytes, false);
  TrackUbRows(hazard::kMte2, true, api, dst.addr, blockCount, blockBytes, ubPitch);
  hazard::GmRead(api, gm, blockCount, blockBytes, gmPitch);
  race::GmAccess(race::kRead, api, gm, blockCount, blockBytes, gmPitch);
  // copy_gm_to_ubuf(dst, src, sid 0, nBurst, lenBurst, srcGap, dstGap): 32-byte units.
  isa::CopyGmToUb(c.ub.data() + dst.addr, gm, 0, blockCount, blockBytes / 32, (gmPitch - blockBytes) / 32,
                  (ubPitch - blockBytes) / 32);
  c.counters.gmToUbBytes += blockCount * blockBytes;
  c.counters.l2HitBytes += c.l2.Read(gm, blockCount, blockBytes, gmPitch);
}

void UbToGm(const char* api, uint8_t* gm, Ub src, uint32_t elemBytes, int elemCode, uint32_t blockCount,
            uint64_t blockBytes, uint64_t ubPitch, uint64_t gmPitch) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaOut;
  CheckBlockCount(api, blockCount);
  if (IsEmpty(api, blockCount, blockBytes)) return;
  uint64_t ubSpan = (blockCount - 1) * ubPitch + blockBytes;
  CheckUb(api, "src", c, src, ubSpan, ubSpan);
  CheckGmAligned(api, "dst", gm, elemBytes);
  gm::CheckRange(api, gm, (blockCount - 1) * gmPitch + blockBytes, true);
  TrackUbRows(hazard::kMte3, false, api, src.addr, blockCount, blockBytes, ubPitch);
  const bool atomic = StoreAtomic(api, elemCode) != kElemNone;
  hazard::GmWrite(api, gm, blockCount, blockBytes, gmPitch, c.ub.data() + src.addr, ubPitch, atomic);
  race::GmAccess(atomic ? race::kAtomic : race::kWrite, api, gm, blockCount, blockBytes, gmPitch,
                 c.ub.data() + src.addr, ubPitch);
  // copy_ubuf_to_gm(dst, src, sid 0, nBurst, lenBurst, srcGap, dstGap): 32-byte units.
  isa::CopyUbToGm(vec::CoreArch(c), gm, c.ub.data() + src.addr, 0, blockCount, blockBytes / 32,
                  (ubPitch - blockBytes) / 32, (gmPitch - blockBytes) / 32);
  c.counters.ubToGmBytes += blockCount * blockBytes;
  c.l2.Write(gm, blockCount, blockBytes, gmPitch);
}

void UbToUb(const char* api, Ub dst, Ub src, uint32_t blockCount, uint64_t blockBytes, uint64_t srcPitch,
            uint64_t dstPitch) {
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.vecInstr;  // a UB->UB DataCopy is issued on PIPE_V
  CheckBlockCount(api, blockCount);
  if (IsEmpty(api, blockCount, blockBytes)) return;
  uint64_t srcSpan = (blockCount - 1) * srcPitch + blockBytes;
  uint64_t dstSpan = (blockCount - 1) * dstPitch + blockBytes;
  CheckUb(api, "src", c, src, srcSpan, srcSpan);
  CheckUb(api, "dst", c, dst, dstSpan, dstSpan);
  TrackUbRows(hazard::kV, false, api, src.addr, blockCount, blockBytes, srcPitch);
  TrackUbRows(hazard::kV, true, api, dst.addr, blockCount, blockBytes, dstPitch);
  // copy_ubuf_to_ubuf(dst, src, sid 0, nBurst, lenBurst, srcGap, dstGap): 32-byte units.
  isa::CopyUbToUb(c.ub.data() + dst.addr, c.ub.data() + src.addr, 0, blockCount, blockBytes / 32,
                  (srcPitch - blockBytes) / 32, (dstPitch - blockBytes) / 32);
  c.counters.ubToUbBytes += blockCount * blockBytes;
}

void PadGmToUb(Ub dst, const uint8_t* gm, uint32_t elemBytes, const PadArgs& a) {
  const char* api = "DataCopyPad";
  CoreContext& c = Core();
  ThrowIfLaunchAborted();
  ++c.counters.dmaIn;
  CheckPadArgs(api, c, a, elemBytes);
  if (IsEmpty(api, a.blockCount, a.blockLen)) return;
  uint64_t leftBytes = a.left * elemBytes, rightBytes = a.right * elemBytes;
  uint64_t usedBytes = leftBytes + a.blockLen + rightBytes;
  uint64_t ubBlockBytes = (usedBytes + 31) / 32 * 32;
  uint64_t ubPitch = ubBlockBytes + a.dstStride * 32ull;
  uint64_t gmPitch = static_cast<uint64_t>(a.blockLen) + a.srcStride;
  uint64_t last = (a.blockCount - 1) * ubPitch;
  CheckUb(api, "dst", c, dst, last + usedBytes, last + ubBlockBytes);
  gm::CheckRange(api, gm, (a.blockCount - 1) * gmPitch + a.blockLen, false);
  TrackUbRows(hazard::kMte2, true, api, dst.addr, a.blockCount, ubBlockBytes, ubPitch);
  hazard::GmRead(api, gm, a.blockCount, a.blockLen, gmPitch);
  race::GmAccess(race::kRead, api, gm, a.blockCount, a.blockLen, gmPitch);

  // What CANN issues: set_mov_pad_val(the value's bits) when isPad, then copy_gm_to_ubuf_align_b<8|16|32>
  // (dst, src, sid 0, nBurst, lenBurst bytes, leftPad, rightPad elements, srcGap bytes, dstGap blocks).
  if (a.isPad) isa::SetMovPadVal(a.padBits);
  const uint32_t scale = elemBytes / AlignElemBytes(elemBytes);
  uint8_t* ubDst = c.ub.data() + dst.addr;
  isa::CopyGmToUbAlign(AlignElemBytes(elemBytes), ubDst, gm, 0, a.blockCount, a.blockLen, a.left * scale,
                       a.right * scale, a.srcStride, a.dstStride);
  // Front end A's overlay on the bytes the documentation leaves unspecified (the model leaves the pad
  // register's value in the pads and the bytes past the right pad unwritten): pads without isPad hold
  // "random" values, so A writes its poison there; the bytes from the right pad to the 32-byte boundary
  // get the poison too, or the pad value when padding with isPad, or the block's first element in
  // DummyFill::kFirstElement mode.
  uint8_t padValue[8];
  std::memcpy(padValue, &a.padBits, 8);
  const bool noPadding = a.left == 0 && a.right == 0;
  const bool firstElementDummy = noPadding && g_dummyFill.load() == DummyFill::kFirstElement;
  const uint64_t dummyBytes = ubBlockBytes - usedBytes;
  const bool poisonPads = !a.isPad && !noPadding;
  for (uint32_t i = 0; (poisonPads || dummyBytes != 0) && i < a.blockCount; ++i) {
    uint32_t base = dst.addr + static_cast<uint32_t>(i * ubPitch);
    uint8_t* p = c.ub.data() + base;
    if (poisonPads) {
      PoisonUb(base, leftBytes);
      PoisonUb(base + static_cast<uint32_t>(leftBytes + a.blockLen), rightBytes);
    }
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
  CheckPadArgs(api, c, a, elemBytes);
  if (IsEmpty(api, a.blockCount, a.blockLen)) return;
  uint64_t ubBlockBytes = (a.blockLen + 31ull) / 32 * 32;
  uint64_t ubPitch = ubBlockBytes + a.srcStride * 32ull;
  uint64_t gmPitch = static_cast<uint64_t>(a.blockLen) + a.dstStride;
  uint64_t last = (a.blockCount - 1) * ubPitch;
  CheckUb(api, "src", c, src, last + a.blockLen, last + ubBlockBytes);
  gm::CheckRange(api, gm, (a.blockCount - 1) * gmPitch + a.blockLen, true);
  TrackUbRows(hazard::kMte3, false, api, src.addr, a.blockCount, a.blockLen, ubPitch);
  const bool atomic = StoreAtomic(api, elemCode) != kElemNone;
  hazard::GmWrite(api, gm, a.blockCount, a.blockLen, gmPitch, c.ub.data() + src.addr, ubPitch, atomic);
  race::GmAccess(atomic ? race::kAtomic : race::kWrite, api, gm, a.blockCount, a.blockLen, gmPitch,
                 c.ub.data() + src.addr, ubPitch);
  // copy_ubuf_to_gm_align_b<8|16|32>(dst, src, sid 0, nBurst, lenBurst bytes, pads 0, 0, srcGap blocks,
  // dstGap bytes).
  isa::CopyUbToGmAlign(vec::CoreArch(c), AlignElemBytes(elemBytes), gm, c.ub.data() + src.addr, 0, a.blockCount,
                       a.blockLen, 0, 0, a.srcStride, a.dstStride);
  c.counters.ubToGmBytes += static_cast<uint64_t>(a.blockCount) * a.blockLen;
  c.l2.Write(gm, a.blockCount, a.blockLen, gmPitch);
}

void SetAtomic(const char* api, int elemCode) {
  const CoreContext& c = Core();
  if (elemCode != kElemNone && elemCode != kElemFloat && !c.soc->hasBf16) {
    Fail(api, "atomic add in %s does not exist on %s (float only)", ElemName(elemCode), c.soc->name);
  }
  // CANN: dav-c220 set_atomic_add then set_atomic_<type>; dav-c100 set_atomic_f32 alone; set_atomic_none.
  const isa::Arch arch = vec::CoreArch(c);
  if (elemCode != kElemNone && arch == isa::Arch::kA2) isa::SetAtomicOp(isa::AtomicOp::kAdd);
  isa::SetAtomicType(arch, AtomicTypeOf(elemCode));
}

int AtomicElem() {
  const isa::State& s = isa::Core();
  if (!s.atomicEnabled) return kElemNone;
  switch (s.atomicType) {
    case isa::AtomicType::kF32: return kElemFloat;
    case isa::AtomicType::kF16: return kElemHalf;
    case isa::AtomicType::kBf16: return kElemBf16;
    case isa::AtomicType::kS32: return kElemInt32;
    case isa::AtomicType::kS16: return kElemInt16;
    case isa::AtomicType::kS8: return kElemInt8;
    case isa::AtomicType::kNone: break;
  }
  return kElemNone;
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
