// Definitions of the CCE intrinsics that CANN's Ascend C implementation (asc-devkit
// impl/basic_api/dav_c220, dav_c100) calls in CPU-debug mode, executed by the model (model.h).
//
// CANN's CPU-debug headers get the intrinsics' declarations from "stub_fun.h", which CANN
// generates and ships only in its binary package; here it is cann-check's stand-in
// (../shared/tools/cann-check.d/stubs/stub_fun.h), which declares each intrinsic as a variadic
// template, `template <class... A> R name(A...)` (on dav-c220 the 17 element-wise vector
// instructions as `template <class T, class... A> enable_if_t<T is one of ...> name(T* dst, A...)`).
// A kernel's call therefore names one instantiation, e.g. vadd<float*, float*, float*, int, ...>.
// This header defines those templates (each redeclaration below is the same template as the one
// stub_fun.h declares) by forwarding the arguments to the typed functions of namespace
// normgrad::isa::cce, which call the model. Compiled into libnormgrad_isa_<arch> with explicit
// instantiations for the argument lists our kernels use (src/instantiations_<arch>.inc); a front
// end may also include it in its kernel translation units (after the CANN headers) so that any
// other argument list is instantiated there.
//
// Needs the CANN CPU-debug compile line: ASCENDC_CPU_DEBUG, __NPU_ARCH__, the bundle's include
// directories and cann-check's stubs directory.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "normgrad_isa/model.h"
#include "stub_fun.h"

#if !defined(__NPU_ARCH__) || (__NPU_ARCH__ != 2201 && __NPU_ARCH__ != 1001)
#error "normgrad_isa/intrinsics.h models dav-c220 (__NPU_ARCH__ 2201) and dav-c100 (1001) only"
#endif

namespace normgrad {
namespace isa {
namespace cce {

#if __NPU_ARCH__ == 2201
constexpr Arch kArch = Arch::kA2;
#else
constexpr Arch kArch = Arch::k910;
#endif

template <class T>
constexpr Elem ElemOf() {
  using U = typename std::remove_cv<T>::type;
  static_assert(std::is_same<U, float>::value || std::is_same<U, half>::value || std::is_same<U, bfloat16_t>::value ||
                    std::is_same<U, int32_t>::value || std::is_same<U, uint32_t>::value ||
                    std::is_same<U, int16_t>::value || std::is_same<U, uint16_t>::value ||
                    std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value ||
                    std::is_same<U, int64_t>::value,
                "element type the model does not know");
  return std::is_same<U, float>::value      ? Elem::kF32
         : std::is_same<U, half>::value     ? Elem::kF16
         : std::is_same<U, bfloat16_t>::value ? Elem::kBf16
         : std::is_same<U, int32_t>::value  ? Elem::kS32
         : std::is_same<U, uint32_t>::value ? Elem::kU32
         : std::is_same<U, int16_t>::value  ? Elem::kS16
         : std::is_same<U, uint16_t>::value ? Elem::kU16
         : std::is_same<U, int8_t>::value   ? Elem::kS8
         : std::is_same<U, int64_t>::value  ? Elem::kS64
                                            : Elem::kU8;
}

template <class T>
uint64_t BitsOf(const T& v) {
  static_assert(sizeof(T) <= 8, "scalar wider than 64 bits");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// ---- vector: dst, src0, src1, repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep ----
template <class T>
void Binary(const char* name, BinOp op, T* dst, T* src0, T* src1, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk,
            uint64_t src1Blk, uint64_t dstRep, uint64_t src0Rep, uint64_t src1Rep) {
  VecStrides s{repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep};
  VecBinary(name, op, ElemOf<T>(), dst, src0, src1, s);
}
#define NORMGRAD_ISA_BINARY(name, op)                                                                          \
  template <class T>                                                                                           \
  void name(T* dst, T* src0, T* src1, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk, uint64_t src1Blk,   \
            uint64_t dstRep, uint64_t src0Rep, uint64_t src1Rep) {                                             \
    Binary(#name, op, dst, src0, src1, repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep);            \
  }
NORMGRAD_ISA_BINARY(vadd, BinOp::kAdd)
NORMGRAD_ISA_BINARY(vsub, BinOp::kSub)
NORMGRAD_ISA_BINARY(vmul, BinOp::kMul)
NORMGRAD_ISA_BINARY(vmax, BinOp::kMax)
NORMGRAD_ISA_BINARY(vmin, BinOp::kMin)
NORMGRAD_ISA_BINARY(vmla, BinOp::kMla)
NORMGRAD_ISA_BINARY(vmadd, BinOp::kMadd)
NORMGRAD_ISA_BINARY(vdiv, BinOp::kDiv)
#undef NORMGRAD_ISA_BINARY

// ---- vector with a scalar: dst, src, scalar, repeat, dstBlk, srcBlk, dstRep, srcRep ----
#define NORMGRAD_ISA_SCALAR(name, op)                                                                          \
  template <class T, class S>                                                                                  \
  void name(T* dst, T* src, S scalar, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,      \
            uint64_t srcRep) {                                                                                 \
    VecStrides s{repeat, dstBlk, srcBlk, srcBlk, dstRep, srcRep, srcRep};                                      \
    VecScalar(#name, op, ElemOf<T>(), dst, src, BitsOf(static_cast<T>(scalar)), s);                            \
  }
NORMGRAD_ISA_SCALAR(vadds, ScalarOp::kAdds)
NORMGRAD_ISA_SCALAR(vmuls, ScalarOp::kMuls)
NORMGRAD_ISA_SCALAR(vaxpy, ScalarOp::kAxpy)
#undef NORMGRAD_ISA_SCALAR

// vaxpy with a half src into a float dst (Axpy<float, half>): the generic vaxpy above needs one type.
template <class S>
void vaxpy(float* dst, half* src, S scalar, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,
           uint64_t srcRep) {
  VecStrides s{repeat, dstBlk, srcBlk, srcBlk, dstRep, srcRep, srcRep};
  VecAxpyF16F32(dst, src, BitsOf(static_cast<half>(scalar)), s);
}

// ---- unary: dst, src, repeat, dstBlk, srcBlk, dstRep, srcRep ----
#define NORMGRAD_ISA_UNARY(name, op)                                                                           \
  template <class T>                                                                                           \
  void name(T* dst, T* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,                \
            uint64_t srcRep) {                                                                                 \
    VecStrides s{repeat, dstBlk, srcBlk, srcBlk, dstRep, srcRep, srcRep};                                      \
    VecUnary(#name, op, ElemOf<T>(), dst, src, s);                                                             \
  }
NORMGRAD_ISA_UNARY(vcopy, UnaryOp::kCopy)
NORMGRAD_ISA_UNARY(vsqrt, UnaryOp::kSqrt)
#undef NORMGRAD_ISA_UNARY

// vector_dup(dst, scalar, repeat, dstBlk, srcBlk, dstRep, srcRep): the src strides are unused.
template <class T, class S>
void vector_dup(T* dst, S scalar, uint64_t repeat, uint64_t dstBlk, uint64_t, uint64_t dstRep, uint64_t) {
  VecStrides s{repeat, dstBlk, 0, 0, dstRep, 0, 0};
  VecDup(ElemOf<T>(), dst, BitsOf(static_cast<T>(scalar)), s);
}

// vbrcb(dst, src, dstBlk, dstRep, repeat).
template <class T>
void vbrcb(T* dst, T* src, uint64_t dstBlk, uint64_t dstRep, uint64_t repeat) {
  VecBrcb(ElemOf<T>(), dst, src, dstBlk, dstRep, repeat);
}

// vcadd(dst, src, repeat, dstRep, srcBlk, srcRep[, accMode]) (accMode: dav-c220 only).
template <class T>
void vcadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep, uint64_t accMode = 0) {
  VecCadd(kArch, ElemOf<T>(), dst, src, repeat, dstRep, srcBlk, srcRep, accMode);
}
// vcgadd(dst, src, repeat, dstRep, srcBlk, srcRep).
template <class T>
void vcgadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep) {
  VecCgadd(ElemOf<T>(), dst, src, repeat, dstRep, srcBlk, srcRep);
}

// vcpadd(dst, src, repeat, dstRep, srcBlk, srcRep).
template <class T>
void vcpadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep) {
  VecCpadd(ElemOf<T>(), dst, src, repeat, dstRep, srcBlk, srcRep);
}
// vconv_<from>2<to><suffix>(dst, src, repeat, dstBlk, srcBlk, dstRep, srcRep).
#define NORMGRAD_ISA_CONV(name, To, From, rnd)                                                                 \
  inline void name(To* dst, From* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,     \
                   uint64_t srcRep) {                                                                          \
    VecStrides s{repeat, dstBlk, srcBlk, srcBlk, dstRep, srcRep, srcRep};                                      \
    VecConv(#name, ElemOf<To>(), ElemOf<From>(), rnd, dst, src, s);                                            \
  }
NORMGRAD_ISA_CONV(vconv_f162f32, float, half, Round::kNone)
NORMGRAD_ISA_CONV(vconv_bf162f32, float, bfloat16_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_f322f16, half, float, Round::kNone)
NORMGRAD_ISA_CONV(vconv_f322f16r, half, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322f16f, half, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322f16c, half, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322f16a, half, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322f16z, half, float, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f322f16o, half, float, Round::kOdd)
NORMGRAD_ISA_CONV(vconv_f322bf16r, bfloat16_t, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322bf16f, bfloat16_t, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322bf16c, bfloat16_t, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322bf16a, bfloat16_t, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322bf16z, bfloat16_t, float, Round::kTrunc)
// Conversions with an integer operand (the pairs front end A's Cast accepts; model.h VecConv).
NORMGRAD_ISA_CONV(vconv_f322s32r, int32_t, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322s32f, int32_t, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322s32c, int32_t, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322s32a, int32_t, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322s32z, int32_t, float, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f322s16r, int16_t, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322s16f, int16_t, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322s16c, int16_t, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322s16a, int16_t, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322s16z, int16_t, float, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f322s64r, int64_t, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322s64f, int64_t, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322s64c, int64_t, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322s64a, int64_t, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322s64z, int64_t, float, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f322f32r, float, float, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f322f32f, float, float, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f322f32c, float, float, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f322f32a, float, float, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f322f32z, float, float, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f162s32r, int32_t, half, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f162s32f, int32_t, half, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f162s32c, int32_t, half, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f162s32a, int32_t, half, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f162s32z, int32_t, half, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f162s16r, int16_t, half, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f162s16f, int16_t, half, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f162s16c, int16_t, half, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f162s16a, int16_t, half, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f162s16z, int16_t, half, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f162s8, int8_t, half, Round::kNone)
NORMGRAD_ISA_CONV(vconv_f162s8r, int8_t, half, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f162s8f, int8_t, half, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f162s8c, int8_t, half, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f162s8a, int8_t, half, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f162s8z, int8_t, half, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_f162u8, uint8_t, half, Round::kNone)
NORMGRAD_ISA_CONV(vconv_f162u8r, uint8_t, half, Round::kRint)
NORMGRAD_ISA_CONV(vconv_f162u8f, uint8_t, half, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_f162u8c, uint8_t, half, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_f162u8a, uint8_t, half, Round::kAway)
NORMGRAD_ISA_CONV(vconv_f162u8z, uint8_t, half, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_bf162s32r, int32_t, bfloat16_t, Round::kRint)
NORMGRAD_ISA_CONV(vconv_bf162s32f, int32_t, bfloat16_t, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_bf162s32c, int32_t, bfloat16_t, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_bf162s32a, int32_t, bfloat16_t, Round::kAway)
NORMGRAD_ISA_CONV(vconv_bf162s32z, int32_t, bfloat16_t, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_s162f16, half, int16_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s162f16r, half, int16_t, Round::kRint)
NORMGRAD_ISA_CONV(vconv_s162f16f, half, int16_t, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_s162f16c, half, int16_t, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_s162f16a, half, int16_t, Round::kAway)
NORMGRAD_ISA_CONV(vconv_s162f16z, half, int16_t, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_s162f32, float, int16_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s322f32, float, int32_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s322f32r, float, int32_t, Round::kRint)
NORMGRAD_ISA_CONV(vconv_s322f32f, float, int32_t, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_s322f32c, float, int32_t, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_s322f32a, float, int32_t, Round::kAway)
NORMGRAD_ISA_CONV(vconv_s322f32z, float, int32_t, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_s322s16, int16_t, int32_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s322s64, int64_t, int32_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s642s32, int32_t, int64_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_s642f32r, float, int64_t, Round::kRint)
NORMGRAD_ISA_CONV(vconv_s642f32f, float, int64_t, Round::kFloor)
NORMGRAD_ISA_CONV(vconv_s642f32c, float, int64_t, Round::kCeil)
NORMGRAD_ISA_CONV(vconv_s642f32a, float, int64_t, Round::kAway)
NORMGRAD_ISA_CONV(vconv_s642f32z, float, int64_t, Round::kTrunc)
NORMGRAD_ISA_CONV(vconv_s82f16, half, int8_t, Round::kNone)
NORMGRAD_ISA_CONV(vconv_u82f16, half, uint8_t, Round::kNone)
#undef NORMGRAD_ISA_CONV

// ---- DMA: dst, src, sid, nBurst, lenBurst, srcGap, dstGap ----
inline void copy_gm_to_ubuf(void* dst, void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                            uint64_t dstGap) {
  CopyGmToUb(dst, src, sid, nBurst, lenBurst, srcGap, dstGap);
}
inline void copy_ubuf_to_gm(void* dst, void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                            uint64_t dstGap) {
  CopyUbToGm(kArch, dst, src, sid, nBurst, lenBurst, srcGap, dstGap);
}
inline void copy_ubuf_to_ubuf(void* dst, void* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,
                              uint64_t dstGap) {
  CopyUbToUb(dst, src, sid, nBurst, lenBurst, srcGap, dstGap);
}
// dst, src, sid, nBurst, lenBurst (bytes), leftPad, rightPad (elements), srcGap, dstGap.
#define NORMGRAD_ISA_ALIGN_COPY(name, fn, bytes, ...)                                                          \
  template <class T>                                                                                           \
  void name(T* dst, T* src, uint64_t sid, uint64_t nBurst, uint64_t lenBurst, uint64_t leftPad,                \
            uint64_t rightPad, uint64_t srcGap, uint64_t dstGap) {                                             \
    static_assert(sizeof(T) == (bytes), #name " moves " #bytes "-byte elements");                             \
    fn(__VA_ARGS__ bytes, dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap, dstGap);                 \
  }
NORMGRAD_ISA_ALIGN_COPY(copy_gm_to_ubuf_align_b16, CopyGmToUbAlign, 2, )
NORMGRAD_ISA_ALIGN_COPY(copy_gm_to_ubuf_align_b32, CopyGmToUbAlign, 4, )
NORMGRAD_ISA_ALIGN_COPY(copy_ubuf_to_gm_align_b16, CopyUbToGmAlign, 2, kArch, )
NORMGRAD_ISA_ALIGN_COPY(copy_ubuf_to_gm_align_b32, CopyUbToGmAlign, 4, kArch, )
#undef NORMGRAD_ISA_ALIGN_COPY
inline void set_mov_pad_val(uint64_t v) { SetMovPadVal(v); }

// ---- mask, atomics, flags, scalar unit ----
inline void set_vector_mask(uint64_t hi, uint64_t lo) { SetVectorMask(hi, lo); }
inline void set_mask_count() { SetMaskCount(); }
inline void set_mask_norm() { SetMaskNorm(); }
inline void set_atomic_none() { SetAtomicType(kArch, AtomicType::kNone); }
inline void set_atomic_f32() { SetAtomicType(kArch, AtomicType::kF32); }
inline void set_atomic_f16() { SetAtomicType(kArch, AtomicType::kF16); }
inline void set_atomic_bf16() { SetAtomicType(kArch, AtomicType::kBf16); }
inline void set_atomic_s32() { SetAtomicType(kArch, AtomicType::kS32); }
inline void set_atomic_s16() { SetAtomicType(kArch, AtomicType::kS16); }
inline void set_atomic_s8() { SetAtomicType(kArch, AtomicType::kS8); }
inline void set_atomic_add() { SetAtomicOp(AtomicOp::kAdd); }
inline void set_atomic_max() { SetAtomicOp(AtomicOp::kMax); }
inline void set_atomic_min() { SetAtomicOp(AtomicOp::kMin); }
inline void set_flag(int srcPipe, int dstPipe, int id) { SetFlag(srcPipe, dstPipe, id); }
inline void wait_flag(int srcPipe, int dstPipe, int id) { WaitFlag(srcPipe, dstPipe, id); }
inline void pipe_barrier(int pipe) { PipeBarrier(pipe); }
inline int64_t sff0(uint64_t x) { return Sff0(x); }
inline int64_t get_acc_val() { return GetAccVal(); }
inline uint64_t sbitset0(uint64_t x, int64_t idx) { return Sbitset0(x, idx); }
inline uint64_t sbitset1(uint64_t x, int64_t idx) { return Sbitset1(x, idx); }

}  // namespace cce
}  // namespace isa
}  // namespace normgrad

// ---- the stub_fun.h templates, defined ----
#define NORMGRAD_ISA_DEF(ret, name) \
  template <typename... A>          \
  ret name(A... a) {                \
    return ::normgrad::isa::cce::name(a...); \
  }
#define NORMGRAD_ISA_TRAP(ret, name) \
  template <typename... A>           \
  ret name(A...) {                   \
    ::normgrad::isa::Trap(#name);    \
  }
#if __NPU_ARCH__ == 2201
// Same template as stub_fun.h's CANN_CHECK_VEC_INTRINSIC on dav-c220 (same return type expression).
#define NORMGRAD_ISA_VEC_DEF(name, ...)                                                                        \
  template <typename T, typename... A>                                                                         \
  typename std::enable_if<cann_check_stub::one_of<T, __VA_ARGS__>::value>::type name(T* dst, A... a) {         \
    ::normgrad::isa::cce::name(dst, a...);                                                                     \
  }
#else
#define NORMGRAD_ISA_VEC_DEF(name, ...) NORMGRAD_ISA_DEF(void, name)
#endif

NORMGRAD_ISA_VEC_DEF(vadd, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vsub, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vmul, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vmax, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vmin, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vadds, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vmuls, half, float, int16_t, int32_t)
NORMGRAD_ISA_VEC_DEF(vdiv, half, float)
NORMGRAD_ISA_VEC_DEF(vsqrt, half, float)
NORMGRAD_ISA_DEF(void, vcopy)
NORMGRAD_ISA_DEF(void, vmla)
NORMGRAD_ISA_DEF(void, vmadd)
NORMGRAD_ISA_DEF(void, vaxpy)
NORMGRAD_ISA_DEF(void, vector_dup)
NORMGRAD_ISA_DEF(void, vbrcb)
NORMGRAD_ISA_DEF(void, vcadd)
NORMGRAD_ISA_DEF(void, vcgadd)
NORMGRAD_ISA_DEF(void, vconv_f162f32)
NORMGRAD_ISA_DEF(void, vconv_bf162f32)
NORMGRAD_ISA_DEF(void, vconv_f322f16)
NORMGRAD_ISA_DEF(void, vconv_f322f16r)
NORMGRAD_ISA_DEF(void, vconv_f322f16f)
NORMGRAD_ISA_DEF(void, vconv_f322f16c)
NORMGRAD_ISA_DEF(void, vconv_f322f16a)
NORMGRAD_ISA_DEF(void, vconv_f322f16z)
NORMGRAD_ISA_DEF(void, vconv_f322f16o)
NORMGRAD_ISA_DEF(void, vconv_f322bf16r)
NORMGRAD_ISA_DEF(void, vconv_f322bf16f)
NORMGRAD_ISA_DEF(void, vconv_f322bf16c)
NORMGRAD_ISA_DEF(void, vconv_f322bf16a)
NORMGRAD_ISA_DEF(void, vconv_f322bf16z)
NORMGRAD_ISA_DEF(void, vconv_f322s32r)
NORMGRAD_ISA_DEF(void, vconv_f322s32f)
NORMGRAD_ISA_DEF(void, vconv_f322s32c)
NORMGRAD_ISA_DEF(void, vconv_f322s32a)
NORMGRAD_ISA_DEF(void, vconv_f322s32z)
NORMGRAD_ISA_DEF(void, vconv_f322s16r)
NORMGRAD_ISA_DEF(void, vconv_f322s16f)
NORMGRAD_ISA_DEF(void, vconv_f322s16c)
NORMGRAD_ISA_DEF(void, vconv_f322s16a)
NORMGRAD_ISA_DEF(void, vconv_f322s16z)
NORMGRAD_ISA_DEF(void, vconv_f322s64r)
NORMGRAD_ISA_DEF(void, vconv_f322s64f)
NORMGRAD_ISA_DEF(void, vconv_f322s64c)
NORMGRAD_ISA_DEF(void, vconv_f322s64a)
NORMGRAD_ISA_DEF(void, vconv_f322s64z)
NORMGRAD_ISA_DEF(void, vconv_f322f32r)
NORMGRAD_ISA_DEF(void, vconv_f322f32f)
NORMGRAD_ISA_DEF(void, vconv_f322f32c)
NORMGRAD_ISA_DEF(void, vconv_f322f32a)
NORMGRAD_ISA_DEF(void, vconv_f322f32z)
NORMGRAD_ISA_DEF(void, vconv_f162s32r)
NORMGRAD_ISA_DEF(void, vconv_f162s32f)
NORMGRAD_ISA_DEF(void, vconv_f162s32c)
NORMGRAD_ISA_DEF(void, vconv_f162s32a)
NORMGRAD_ISA_DEF(void, vconv_f162s32z)
NORMGRAD_ISA_DEF(void, vconv_f162s16r)
NORMGRAD_ISA_DEF(void, vconv_f162s16f)
NORMGRAD_ISA_DEF(void, vconv_f162s16c)
NORMGRAD_ISA_DEF(void, vconv_f162s16a)
NORMGRAD_ISA_DEF(void, vconv_f162s16z)
NORMGRAD_ISA_DEF(void, vconv_f162s8)
NORMGRAD_ISA_DEF(void, vconv_f162s8r)
NORMGRAD_ISA_DEF(void, vconv_f162s8f)
NORMGRAD_ISA_DEF(void, vconv_f162s8c)
NORMGRAD_ISA_DEF(void, vconv_f162s8a)
NORMGRAD_ISA_DEF(void, vconv_f162s8z)
NORMGRAD_ISA_DEF(void, vconv_f162u8)
NORMGRAD_ISA_DEF(void, vconv_f162u8r)
NORMGRAD_ISA_DEF(void, vconv_f162u8f)
NORMGRAD_ISA_DEF(void, vconv_f162u8c)
NORMGRAD_ISA_DEF(void, vconv_f162u8a)
NORMGRAD_ISA_DEF(void, vconv_f162u8z)
NORMGRAD_ISA_DEF(void, vconv_bf162s32r)
NORMGRAD_ISA_DEF(void, vconv_bf162s32f)
NORMGRAD_ISA_DEF(void, vconv_bf162s32c)
NORMGRAD_ISA_DEF(void, vconv_bf162s32a)
NORMGRAD_ISA_DEF(void, vconv_bf162s32z)
NORMGRAD_ISA_DEF(void, vconv_s162f16)
NORMGRAD_ISA_DEF(void, vconv_s162f16r)
NORMGRAD_ISA_DEF(void, vconv_s162f16f)
NORMGRAD_ISA_DEF(void, vconv_s162f16c)
NORMGRAD_ISA_DEF(void, vconv_s162f16a)
NORMGRAD_ISA_DEF(void, vconv_s162f16z)
NORMGRAD_ISA_DEF(void, vconv_s162f32)
NORMGRAD_ISA_DEF(void, vconv_s322f32)
NORMGRAD_ISA_DEF(void, vconv_s322f32r)
NORMGRAD_ISA_DEF(void, vconv_s322f32f)
NORMGRAD_ISA_DEF(void, vconv_s322f32c)
NORMGRAD_ISA_DEF(void, vconv_s322f32a)
NORMGRAD_ISA_DEF(void, vconv_s322f32z)
NORMGRAD_ISA_DEF(void, vconv_s322s16)
NORMGRAD_ISA_DEF(void, vconv_s322s64)
NORMGRAD_ISA_DEF(void, vconv_s642s32)
NORMGRAD_ISA_DEF(void, vconv_s642f32r)
NORMGRAD_ISA_DEF(void, vconv_s642f32f)
NORMGRAD_ISA_DEF(void, vconv_s642f32c)
NORMGRAD_ISA_DEF(void, vconv_s642f32a)
NORMGRAD_ISA_DEF(void, vconv_s642f32z)
NORMGRAD_ISA_DEF(void, vconv_s82f16)
NORMGRAD_ISA_DEF(void, vconv_u82f16)
NORMGRAD_ISA_DEF(void, vcpadd)
NORMGRAD_ISA_DEF(void, copy_gm_to_ubuf)
NORMGRAD_ISA_DEF(void, copy_ubuf_to_gm)
NORMGRAD_ISA_DEF(void, copy_ubuf_to_ubuf)
NORMGRAD_ISA_DEF(void, copy_gm_to_ubuf_align_b16)
NORMGRAD_ISA_DEF(void, copy_gm_to_ubuf_align_b32)
NORMGRAD_ISA_DEF(void, copy_ubuf_to_gm_align_b16)
NORMGRAD_ISA_DEF(void, copy_ubuf_to_gm_align_b32)
NORMGRAD_ISA_DEF(void, set_mov_pad_val)
NORMGRAD_ISA_DEF(void, set_vector_mask)
NORMGRAD_ISA_DEF(void, set_mask_count)
NORMGRAD_ISA_DEF(void, set_mask_norm)
NORMGRAD_ISA_DEF(void, set_atomic_none)
NORMGRAD_ISA_DEF(void, set_atomic_f32)
NORMGRAD_ISA_DEF(void, set_atomic_f16)
NORMGRAD_ISA_DEF(void, set_atomic_bf16)
NORMGRAD_ISA_DEF(void, set_atomic_s32)
NORMGRAD_ISA_DEF(void, set_atomic_s16)
NORMGRAD_ISA_DEF(void, set_atomic_s8)
NORMGRAD_ISA_DEF(void, set_atomic_add)
NORMGRAD_ISA_DEF(void, set_atomic_max)
NORMGRAD_ISA_DEF(void, set_atomic_min)
NORMGRAD_ISA_DEF(void, set_flag)
NORMGRAD_ISA_DEF(void, wait_flag)
NORMGRAD_ISA_DEF(void, pipe_barrier)
NORMGRAD_ISA_DEF(int64_t, sff0)
NORMGRAD_ISA_DEF(int64_t, get_acc_val)
NORMGRAD_ISA_DEF(uint64_t, sbitset0)
NORMGRAD_ISA_DEF(uint64_t, sbitset1)

// Linked by our kernels (code paths of the devkit they never take on the vector core) or by
// ops-nn's (the VA-register transposes of TransDataTo5HD), not modelled: calling one stops the
// process naming it.
NORMGRAD_ISA_TRAP(void, copy_cbuf_to_bt)
NORMGRAD_ISA_TRAP(void, copy_cbuf_to_fbuf)
NORMGRAD_ISA_TRAP(void, copy_cbuf_to_gm)
NORMGRAD_ISA_TRAP(void, copy_gm_to_cbuf)
NORMGRAD_ISA_TRAP(void, dcci)
NORMGRAD_ISA_TRAP(void, set_l1_3d_size)
NORMGRAD_ISA_TRAP(void, set_padding)
NORMGRAD_ISA_TRAP(void, scatter_vnchwconv_b16)
NORMGRAD_ISA_TRAP(void, scatter_vnchwconv_b32)
NORMGRAD_ISA_TRAP(void, set_va_reg_sb)
// ReduceSum's shared reduction templates (ReduceMaxIntrinsicsImpl, ReduceMinIntrinsicsImpl) link these
// in an unoptimised build; ReduceSum never calls them.
NORMGRAD_ISA_TRAP(void, vcmax)
NORMGRAD_ISA_TRAP(void, vcmin)
#if __NPU_ARCH__ == 1001
NORMGRAD_ISA_TRAP(void, copy_cbuf_to_ubuf)
NORMGRAD_ISA_TRAP(void, copy_ubuf_to_cbuf)
#endif

#undef NORMGRAD_ISA_DEF
#undef NORMGRAD_ISA_TRAP
#undef NORMGRAD_ISA_VEC_DEF
