// The instruction-level model: what each CCE intrinsic our kernels execute does, on raw host
// pointers (CANN's CPU-debug mode gives intrinsics real addresses inside the UB buffer it
// allocates and inside GmAlloc'd GM). Element types are tags, so no CANN header is needed here;
// intrinsics.h maps the intrinsics' argument lists onto these functions.
#pragma once
#include <cstdint>

#include "normgrad_isa/state.h"

namespace normgrad {
namespace isa {

enum class Arch : uint8_t { kA2, k910 };  // dav-c220 (Atlas A2/A3 vector core), dav-c100 (training)
enum class Elem : uint8_t { kF32, kF16, kBf16, kS32, kU32, kS16, kU16, kS8, kU8, kS64 };
uint32_t ElemBytes(Elem e);
const char* ElemName(Elem e);

// Repeat parameters of a vector instruction; strides in 32-byte blocks.
struct VecStrides {
  uint64_t repeat = 1;
  uint64_t dstBlk = 1, src0Blk = 1, src1Blk = 1;
  uint64_t dstRep = 8, src0Rep = 8, src1Rep = 8;
};

// dst = src0 op src1 lane-wise; kMla: dst += src0 * src1; kMadd: dst = src0 * dst + src1;
// kDiv: float types only.
enum class BinOp : uint8_t { kAdd, kSub, kMul, kMax, kMin, kMla, kMadd, kDiv };
void VecBinary(const char* name, BinOp op, Elem t, void* dst, const void* src0, const void* src1,
               const VecStrides& s);
// kAdds: dst = src + x; kMuls: dst = src * x; kMaxs / kMins: max / min(src, x); kAxpy: dst += src * x
// (src0 strides = src). scalarBits: the scalar's bits in element type t.
enum class ScalarOp : uint8_t { kAdds, kMuls, kMaxs, kMins, kAxpy };
void VecScalar(const char* name, ScalarOp op, Elem t, void* dst, const void* src, uint64_t scalarBits,
               const VecStrides& s);
// dst = op(src) lane-wise: kCopy (vcopy, 16/32-bit, bits unchanged; repeat strides up to 4095
// blocks); float types: kSqrt (vsqrt), kExp (vexp), kLn (vln), kAbs (vabs), kRsqrt (vrsqrt),
// kRec (vrec), each evaluated in double and rounded once (num::Unary1F32 / Unary1HalfBits).
enum class UnaryOp : uint8_t { kCopy, kSqrt, kExp, kLn, kAbs, kRsqrt, kRec };
void VecUnary(const char* name, UnaryOp op, Elem t, void* dst, const void* src, const VecStrides& s);
// vaxpy with a half src into a float dst (Axpy<float, half>): 64 lanes a repeat (src lanes 2 bytes apart,
// strides as given), dst = float(src) * float(scalar) + dst, the product exact in float, one rounding.
// scalarBits: the scalar's half bits.
void VecAxpyF16F32(void* dst, const void* src, uint64_t scalarBits, const VecStrides& s);
// vector_dup: every active lane of dst = the scalar.
void VecDup(Elem t, void* dst, uint64_t scalarBits, const VecStrides& s);
// vbrcb: each of 8 source elements per repeat fills one 32-byte dst block.
void VecBrcb(Elem t, void* dst, const void* src, uint64_t dstBlk, uint64_t dstRep, uint64_t repeat);

// Rounding of a conversion, the vconv_<from>2<to><suffix> suffix: none, r, f, c, a, z, o.
enum class Round : uint8_t { kNone, kRint, kFloor, kCeil, kAway, kTrunc, kOdd };
// Float conversions: f16 <-> f32, bf16 <-> f32. Conversions with an integer operand (and f32 -> f32, rounding
// to an integral value): f32 -> s32 s16 s64 f32, f16 -> s32 s16 s8 u8, bf16 -> s32, s16 -> f16 f32,
// s8 u8 -> f16, s32 -> f32 s16 s64, s64 -> s32 f32; the exact value rounded once in direction r (no suffix:
// to nearest even), integer results saturated to their range, NaN -> 0, half results saturated.
void VecConv(const char* name, Elem to, Elem from, Round r, void* dst, const void* src, const VecStrides& s);

// vcadd: per repeat the sum of the active lanes, written to dst[r * dstRep] (dstRep in
// elements). accMode 1 (dav-c220; the count-form ReduceSum) writes no dst: the repeat sums are
// added in order into the ACC register, which get_acc_val returns (its element bits).
void VecCadd(Arch arch, Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk,
             uint64_t srcRep, uint64_t accMode);
int64_t GetAccVal();
// vcgadd: per repeat the 8 block sums, written to dst[r * dstRep * 8 + b] (dstRep in 32-byte blocks).
void VecCgadd(Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep);
// vcpadd: per repeat the sums of adjacent lane pairs (2k, 2k + 1), written to dst[r * dstRep * lanes / 2 + k]
// (dstRep in units of half a repeat, 128 bytes; dst 32-byte aligned); pairs without an active lane unwritten.
void VecCpadd(Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep);

// Plain DMA: nBurst bursts of lenBurst 32-byte blocks, gaps in 32-byte blocks. GM is read through the
// GM reader (state.h SetGmReader). A UB -> GM copy adds when the atomic mode is on: on dav-c220, and on
// dav-c100 when State::deviceAtomicStores is set (CANN's CPU-debug API adds in UB there itself).
void CopyGmToUb(void* dst, const void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                uint64_t dstGap);
void CopyUbToGm(Arch arch, void* dst, const void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst,
                uint64_t srcGap, uint64_t dstGap);
void CopyUbToUb(void* dst, const void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                uint64_t dstGap);
// Pad DMA (copy_*_align_b<elemBytes*8>, elemBytes 1, 2 or 4): lenBurst in bytes, pads in elements, the
// GM gap in bytes and the UB gap in 32-byte blocks; each UB burst spans a whole number of 32-byte blocks.
void CopyGmToUbAlign(uint32_t elemBytes, void* dst, const void* src, uint64_t sid, uint64_t nBurst,
                     uint64_t lenBurst, uint64_t leftPad, uint64_t rightPad, uint64_t srcGap, uint64_t dstGap);
void CopyUbToGmAlign(Arch arch, uint32_t elemBytes, void* dst, const void* src, uint64_t sid, uint64_t nBurst,
                     uint64_t lenBurst, uint64_t leftPad, uint64_t rightPad, uint64_t srcGap, uint64_t dstGap);
void SetMovPadVal(uint64_t v);

// Mask and mode registers.
// Inline: front end A issues them around every count-form instruction.
inline void SetVectorMask(uint64_t hi, uint64_t lo) {
  State& s = Core();
  s.maskHi = hi;
  s.maskLo = lo;
}
inline void SetMaskCount() { Core().counterMode = true; }
inline void SetMaskNorm() { Core().counterMode = false; }
void SetAtomicType(Arch arch, AtomicType t);  // set_atomic_<type>; kNone = set_atomic_none
void SetAtomicOp(AtomicOp op);     // set_atomic_add / max / min

// Synchronisation: in one process everything runs in order; these record and check.
void SetFlag(int srcPipe, int dstPipe, int id);
void WaitFlag(int srcPipe, int dstPipe, int id);
void PipeBarrier(int pipe);

// Scalar unit: find the first 0 bit (-1 if none); clear / set bit idx.
int64_t Sff0(uint64_t x);
uint64_t Sbitset0(uint64_t x, int64_t idx);
uint64_t Sbitset1(uint64_t x, int64_t idx);

}  // namespace isa
}  // namespace normgrad
