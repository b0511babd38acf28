// The vector unit: element-wise instructions, duplicate, broadcast, conversions, reductions.
// Lanes come from the mask register (num::PlanMaskRegister), addresses from num::LaneOffset,
// arithmetic from num:: (the same functions the simulator's API layer uses).
#include <cstring>
#include <type_traits>

#include "internal.h"

namespace normgrad {
namespace isa {
namespace {

using num::LanePlan;

// The lanes of an instruction whose widest element has `widest` bytes; false after a violation.
// The repeat field has 8 bits; 0 repeats is a NOP (neither the devkit nor its api_check nor the
// C-API pages forbid it, and the simulator's API layer accepts repeatTime 0).
bool Plan(const State& s, const char* name, uint32_t widest, uint64_t repeat, LanePlan* plan) {
  if (!s.counterMode && !CheckRange(name, "repeat", repeat, 0, 255)) return false;
  *plan = num::PlanMaskRegister(num::LanesFor(widest), s.counterMode, s.maskLo, s.maskHi, repeat);
  return true;
}

// Highest active lane of a mask, or -1.
int HighestLane(uint64_t lo, uint64_t hi) {
  if (hi != 0) return 127 - __builtin_clzll(hi);
  if (lo != 0) return 63 - __builtin_clzll(lo);
  return -1;
}

// Bytes from the operand's base to the end of its last active lane (strides are >= 0, so the
// offset grows with the repeat and the lane).
uint64_t Extent(const LanePlan& p, uint32_t elemBytes, uint64_t blk, uint64_t rep) {
  if (p.repeats == 0) return 0;
  uint64_t end = 0;
  int tail = HighestLane(p.tailLo, p.tailHi);
  if (tail >= 0) end = num::LaneOffset(p.repeats - 1, static_cast<uint32_t>(tail), elemBytes, blk, rep) + elemBytes;
  int full = HighestLane(p.lo, p.hi);
  if (p.repeats > 1 && full >= 0) {
    uint64_t e = num::LaneOffset(p.repeats - 2, static_cast<uint32_t>(full), elemBytes, blk, rep) + elemBytes;
    if (e > end) end = e;
  }
  return end;
}

// A GM operand of CANN's CPU-debug atomic-store emulation on dav-c100 (State::vectorGmOperands).
bool EmulatedGmOperand(const State& s, const void* p) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  return s.vectorGmOperands && s.ubBase != nullptr && (b < s.ubBase || b >= s.ubBase + s.ubSize);
}

[[gnu::noinline]] bool CheckUbOperand(const State& s, const char* name, const char* role, const void* p,
                                      const LanePlan& plan, uint32_t elemBytes, uint64_t blk, uint64_t rep) {
  if (EmulatedGmOperand(s, p)) return true;
  return CheckUb(name, role, p, Extent(plan, elemBytes, blk, rep), num::kBlockBytes);
}

// Inline: with front end A (operandsChecked) every instruction passes here three times for nothing.
inline bool CheckOperand(const State& s, const char* name, const char* role, const void* p, const LanePlan& plan,
                         uint32_t elemBytes, uint64_t blk, uint64_t rep) {
  return s.operandsChecked || CheckUbOperand(s, name, role, p, plan, elemBytes, blk, rep);
}

template <typename T>
T Load(const uint8_t* base, uint64_t off) {
  T v;
  std::memcpy(&v, base + off, sizeof(T));
  return v;
}

// Lane arithmetic per element type: float, half (bits), int32, int16 (wrapping).
struct F32 {
  using T = float;
  static float In(T v) { return v; }
  static T Out(float v) { return v; }
  static T MulAdd(T a, T b, T c) { return num::MulAddF32(a, b, c); }
};
struct F16 {
  using T = uint16_t;
  static float In(T v) { return num::HalfBitsToFloat(v); }
  static T Out(float v) { return num::FloatToHalfSatBits(v); }
  static T MulAdd(T a, T b, T c) { return num::MulAddHalfBits(In(a), In(b), In(c)); }
};

// NaN in either operand gives NaN (the hardware rule is undocumented; as the simulator).
inline float MaxF(float a, float b) { return (a > b || a != a) ? a : b; }
inline float MinF(float a, float b) { return (a < b || a != a) ? a : b; }

// Lane arithmetic of operation kOp on elements of A (F32, F16) or on integers (wrapping).
template <BinOp kOp, class A>
typename A::T FloatLane(typename A::T a, typename A::T b, typename A::T d) {
  float x = A::In(a), y = A::In(b);
  if constexpr (kOp == BinOp::kAdd) return A::Out(x + y);
  if constexpr (kOp == BinOp::kSub) return A::Out(x - y);
  if constexpr (kOp == BinOp::kMul) return A::Out(x * y);
  if constexpr (kOp == BinOp::kMax) return A::Out(MaxF(x, y));
  if constexpr (kOp == BinOp::kMin) return A::Out(MinF(x, y));
  if constexpr (kOp == BinOp::kMla) return A::MulAdd(a, b, d);   // dst = src0 * src1 + dst
  if constexpr (kOp == BinOp::kMadd) return A::MulAdd(a, d, b);  // dst = src0 * dst + src1
  if constexpr (kOp == BinOp::kDiv) return A::Out(x / y);
}

template <BinOp kOp, typename T>
T IntLane(T a, T b, T d) {
  using U = typename std::make_unsigned<T>::type;
  int64_t x = a, y = b, z = d;
  int64_t r = 0;
  if constexpr (kOp == BinOp::kAdd) r = x + y;
  if constexpr (kOp == BinOp::kSub) r = x - y;
  if constexpr (kOp == BinOp::kMul) r = x * y;
  if constexpr (kOp == BinOp::kMax) r = x > y ? x : y;
  if constexpr (kOp == BinOp::kMin) r = x < y ? x : y;
  if constexpr (kOp == BinOp::kMla) r = x * y + z;
  if constexpr (kOp == BinOp::kMadd) r = x * z + y;
  static_assert(kOp != BinOp::kDiv, "no integer division on the vector unit");
  return static_cast<T>(static_cast<U>(r));
}

template <BinOp kOp, typename T>
T Lane(T a, T b, T d) {
  if constexpr (std::is_same<T, float>::value) return FloatLane<kOp, F32>(a, b, d);
  if constexpr (std::is_same<T, uint16_t>::value) return FloatLane<kOp, F16>(a, b, d);  // half bits
  if constexpr (std::is_same<T, int32_t>::value || std::is_same<T, int16_t>::value) {
    if constexpr (kOp == BinOp::kDiv) return d;  // refused before it runs (Binary)
    else return IntLane<kOp>(a, b, d);
  }
}

// Every operand contiguous (block stride 1, repeat stride one repeat) and the lanes a prefix of
// n elements (whole repeats, then a prefix of the last: counter mode, or a full mask): the
// instruction is one run over n elements. With each source identical to dst or disjoint from it,
// a flat loop gives what the repeat-by-repeat order gives.
bool DisjointOrSame(const uint8_t* a, const uint8_t* b, uint64_t bytes) {
  return a == b || a + bytes <= b || b + bytes <= a;
}

template <BinOp kOp, typename T>
bool RunBinaryFlat(const LanePlan& plan, uint8_t* dst, const uint8_t* s0, const uint8_t* s1, const T* scalar,
                   const VecStrides& s) {
  constexpr uint64_t kRep = num::kRepeatBytes / num::kBlockBytes;
  uint64_t n = 0;
  if (!num::PrefixElements(plan, &n) || s.dstBlk != 1 || s.src0Blk != 1 || s.dstRep != kRep || s.src0Rep != kRep) {
    return false;
  }
  if (scalar == nullptr && (s.src1Blk != 1 || s.src1Rep != kRep)) return false;
  const uint64_t bytes = n * sizeof(T);
  if (!DisjointOrSame(dst, s0, bytes) || (scalar == nullptr && !DisjointOrSame(dst, s1, bytes))) return false;
  T* d = reinterpret_cast<T*>(dst);
  const T* a = reinterpret_cast<const T*>(s0);
  if (scalar != nullptr) {
    const T x = *scalar;
#pragma GCC ivdep
    for (uint64_t i = 0; i < n; ++i) d[i] = Lane<kOp, T>(a[i], x, d[i]);
    return true;
  }
  const T* b = reinterpret_cast<const T*>(s1);
#pragma GCC ivdep
  for (uint64_t i = 0; i < n; ++i) d[i] = Lane<kOp, T>(a[i], b[i], d[i]);
  return true;
}

// Runs dst = Lane<kOp>(src0, src1, dst) over the plan: whole 32-byte blocks where the masks allow
// (a loop the compiler vectorises), else lane by lane; the same results either way.
template <BinOp kOp, typename T>
void RunBinary(const LanePlan& plan, uint8_t* dst, const uint8_t* s0, const uint8_t* s1, const T* scalar,
               const VecStrides& s) {
  if (RunBinaryFlat<kOp, T>(plan, dst, s0, s1, scalar, s)) return;
  uint64_t n = 0;
  if (scalar == nullptr && s.dstBlk == 1 && s.src0Blk == 1 && s.src1Blk == 1 && num::PrefixElements(plan, &n) &&
      n == plan.repeats * plan.lanes) {
    // Every lane of every repeat, each operand's repeat contiguous (repeat strides free): one loop per
    // repeat over its lanes, all reads before the repeat's store. A repeat whose sources are its
    // destination or lie apart from it is stored lane by lane directly (each lane reads only its own
    // position of the destination).
    constexpr uint32_t kLanes = num::kRepeatBytes / sizeof(T);
    alignas(32) T vals[kLanes];
    for (uint64_t r = 0; r < plan.repeats; ++r) {
      const T* a = reinterpret_cast<const T*>(s0 + r * s.src0Rep * num::kBlockBytes);
      const T* c = reinterpret_cast<const T*>(s1 + r * s.src1Rep * num::kBlockBytes);
      uint8_t* out = dst + r * s.dstRep * num::kBlockBytes;
      const uint8_t* ab = reinterpret_cast<const uint8_t*>(a);
      const uint8_t* cb = reinterpret_cast<const uint8_t*>(c);
      if (DisjointOrSame(out, ab, num::kRepeatBytes) && DisjointOrSame(out, cb, num::kRepeatBytes)) {
        T* o = reinterpret_cast<T*>(out);
        for (uint32_t l = 0; l < kLanes; ++l) o[l] = Lane<kOp, T>(a[l], c[l], o[l]);
        continue;
      }
      if constexpr (kOp == BinOp::kMla || kOp == BinOp::kMadd) {
        const T* d = reinterpret_cast<const T*>(out);
        for (uint32_t l = 0; l < kLanes; ++l) vals[l] = Lane<kOp, T>(a[l], c[l], d[l]);
      } else {
        for (uint32_t l = 0; l < kLanes; ++l) vals[l] = Lane<kOp, T>(a[l], c[l], T(0));
      }
      std::memcpy(out, vals, sizeof(vals));
    }
    return;
  }
  constexpr uint32_t kPer = num::kBlockBytes / sizeof(T);
  bool done = num::ExecuteBlocks<T>(plan, dst, s.dstBlk, s.dstRep, [&](uint64_t r, uint32_t b, T* out) {
    const T* a = num::BlockPtr<T>(s0, s.src0Blk, s.src0Rep, r, b);
    const T* c = num::BlockPtr<T>(s1, s.src1Blk, s.src1Rep, r, b);
    if constexpr (kOp == BinOp::kMla || kOp == BinOp::kMadd) {  // the only ones that read dst
      const T* d = num::BlockPtr<T>(dst, s.dstBlk, s.dstRep, r, b);
      for (uint32_t j = 0; j < kPer; ++j) out[j] = Lane<kOp, T>(a[j], c[j], d[j]);
    } else {
      for (uint32_t j = 0; j < kPer; ++j) out[j] = Lane<kOp, T>(a[j], c[j], T(0));
    }
  });
  if (done) return;
  num::ExecuteRepeats<T>(plan, dst, sizeof(T), s.dstBlk, s.dstRep, [&](uint64_t r, uint32_t l) {
    T a = Load<T>(s0, num::LaneOffset(r, l, sizeof(T), s.src0Blk, s.src0Rep));
    T b = Load<T>(s1, num::LaneOffset(r, l, sizeof(T), s.src1Blk, s.src1Rep));
    T d = Load<T>(dst, num::LaneOffset(r, l, sizeof(T), s.dstBlk, s.dstRep));
    return Lane<kOp, T>(a, b, d);
  });
}

template <typename T>
void RunBinaryOp(BinOp op, const LanePlan& plan, uint8_t* dst, const uint8_t* s0, const uint8_t* s1,
                 const uint8_t* scalarBlock, const VecStrides& s) {
  const T* x = scalarBlock == nullptr ? nullptr : reinterpret_cast<const T*>(scalarBlock);
  switch (op) {
    case BinOp::kAdd: return RunBinary<BinOp::kAdd, T>(plan, dst, s0, s1, x, s);
    case BinOp::kSub: return RunBinary<BinOp::kSub, T>(plan, dst, s0, s1, x, s);
    case BinOp::kMul: return RunBinary<BinOp::kMul, T>(plan, dst, s0, s1, x, s);
    case BinOp::kMax: return RunBinary<BinOp::kMax, T>(plan, dst, s0, s1, x, s);
    case BinOp::kMin: return RunBinary<BinOp::kMin, T>(plan, dst, s0, s1, x, s);
    case BinOp::kMla: return RunBinary<BinOp::kMla, T>(plan, dst, s0, s1, x, s);
    case BinOp::kMadd: return RunBinary<BinOp::kMadd, T>(plan, dst, s0, s1, x, s);
    case BinOp::kDiv: return RunBinary<BinOp::kDiv, T>(plan, dst, s0, s1, x, s);
  }
}

bool CheckArith(const char* name, Elem t) {
  if (t == Elem::kF32 || t == Elem::kF16 || t == Elem::kS32 || t == Elem::kS16) return true;
  Violation("%s: element type %s is not supported", name, ElemName(t));
  return false;
}

// Binary instruction with src1 given as a pointer (nullptr: the scalar `scalarBits` broadcast).
void Binary(const char* name, BinOp op, Elem t, void* dst, const void* src0, const void* src1, uint64_t scalarBits,
            const VecStrides& s) {
  if (!CheckArith(name, t)) return;
  if (op == BinOp::kDiv && t != Elem::kF32 && t != Elem::kF16) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return;
  }
  State& core = Core();
  const uint32_t eb = ElemBytes(t);
  LanePlan plan;
  if (!Plan(core, name, eb, s.repeat, &plan)) return;
  // The emulation's adds (src0 = the GM destination) are the DMA's work on a device, not vector
  // instructions: not counted (sim/cann_cpu/DIFFERENCES.md).
  if (!EmulatedGmOperand(core, src0)) {
    CountVec(core, op == BinOp::kDiv ? VecClass::kTranscendental : VecClass::kElementwise, plan.repeats);
  }
  if (!CheckOperand(core, name, "dst", dst, plan, eb, s.dstBlk, s.dstRep) ||
      !CheckOperand(core, name, "src0", src0, plan, eb, s.src0Blk, s.src0Rep) ||
      (src1 != nullptr && !CheckOperand(core, name, "src1", src1, plan, eb, s.src1Blk, s.src1Rep))) {
    return;
  }
  // A scalar operand is read as src1 with strides 0 from a block filled with it (LaneOffset with
  // stride 0 stays inside one 32-byte block).
  VecStrides st = s;
  const uint8_t* p1 = static_cast<const uint8_t*>(src1);
  alignas(32) uint8_t scalarBlock[num::kBlockBytes];
  if (src1 == nullptr) {
    if (eb == 4) {
      const uint32_t v = static_cast<uint32_t>(scalarBits);
      for (uint32_t i = 0; i < num::kBlockBytes / 4; ++i) std::memcpy(scalarBlock + 4 * i, &v, 4);
    } else {
      const uint16_t v = static_cast<uint16_t>(scalarBits);
      for (uint32_t i = 0; i < num::kBlockBytes / 2; ++i) std::memcpy(scalarBlock + 2 * i, &v, 2);
    }
    p1 = scalarBlock;
    st.src1Blk = 0;
    st.src1Rep = 0;
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* a = static_cast<const uint8_t*>(src0);
  const uint8_t* x = src1 == nullptr ? scalarBlock : nullptr;
  switch (t) {
    case Elem::kF32: RunBinaryOp<float>(op, plan, d, a, p1, x, st); break;
    case Elem::kF16: RunBinaryOp<uint16_t>(op, plan, d, a, p1, x, st); break;
    case Elem::kS32: RunBinaryOp<int32_t>(op, plan, d, a, p1, x, st); break;
    default: RunBinaryOp<int16_t>(op, plan, d, a, p1, x, st); break;
  }
}

template <typename T>
void Fill(const LanePlan& plan, uint8_t* dst, uint64_t bits, uint64_t blk, uint64_t rep) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  uint64_t n = 0;
  if (blk == 1 && rep == num::kRepeatBytes / num::kBlockBytes && num::PrefixElements(plan, &n)) {
    T* d = reinterpret_cast<T*>(dst);  // contiguous lanes, a prefix of n elements: one run
    for (uint64_t i = 0; i < n; ++i) d[i] = v;
    return;
  }
  num::ExecuteRepeats<T>(plan, dst, sizeof(T), blk, rep, [v](uint64_t, uint32_t) { return v; });
}

// dst lane = f(src lane). A repeat whose lanes are all active with both block strides 1 is two
// contiguous runs: read all, then write all; other repeats go lane by lane (same results).
// vbrcb's work: repeat r reads src[8r, 8r + 8) (all before its writes) and fills dst block j of the
// repeat with element j.
template <typename T>
void Broadcast8(uint8_t* dst, const uint8_t* src, uint64_t dstBlk, uint64_t dstRep, uint64_t repeat) {
  constexpr uint32_t kPer = num::kBlockBytes / sizeof(T);
  for (uint64_t r = 0; r < repeat; ++r) {
    T vals[8];
    std::memcpy(vals, src + r * 8 * sizeof(T), sizeof(vals));
    for (uint32_t j = 0; j < 8; ++j) {
      T block[kPer];
      for (uint32_t i = 0; i < kPer; ++i) block[i] = vals[j];
      std::memcpy(dst + (r * dstRep + j * dstBlk) * num::kBlockBytes, block, sizeof(block));
    }
  }
}

template <typename TD, typename TS, typename F>
void RunUnary(const LanePlan& plan, uint8_t* dst, const uint8_t* src, const VecStrides& s, F f) {
  // Contiguous operands and a prefix of n lanes (as RunBinaryFlat): one run over n elements, exact
  // when the operands are disjoint, and when dst starts at src with elements no wider (in-place
  // conversion: every store lands on source bytes already read, in any vectorised order too).
  uint64_t n = 0;
  constexpr uint64_t kWidest = sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS);
  if (num::PrefixElements(plan, &n) && s.dstBlk == 1 && s.src0Blk == 1 && s.dstRep == 8 * sizeof(TD) / kWidest &&
      s.src0Rep == 8 * sizeof(TS) / kWidest &&
      ((dst == src && sizeof(TD) <= sizeof(TS)) || dst + n * sizeof(TD) <= src || src + n * sizeof(TS) <= dst)) {
    TD* d = reinterpret_cast<TD*>(dst);
    const TS* sp = reinterpret_cast<const TS*>(src);
#pragma GCC ivdep
    for (uint64_t i = 0; i < n; ++i) d[i] = f(sp[i]);
    return;
  }
  uint64_t fullLo, fullHi;
  num::LaneBits(plan.lanes, plan.lanes, &fullLo, &fullHi);
  const bool unitBlocks = s.dstBlk == 1 && s.src0Blk == 1;
  TD vals[num::kMaxLanes];
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    uint64_t m[2];
    plan.MaskOf(r, m);
    uint8_t* d = dst + r * s.dstRep * num::kBlockBytes;
    const uint8_t* sp = src + r * s.src0Rep * num::kBlockBytes;
    if (unitBlocks && m[0] == fullLo && m[1] == fullHi) {
      for (uint32_t l = 0; l < plan.lanes; ++l) vals[l] = f(Load<TS>(sp, l * sizeof(TS)));
      std::memcpy(d, vals, plan.lanes * sizeof(TD));
      continue;
    }
    const LanePlan one{1, plan.lanes, m[0], m[1], m[0], m[1]};
    num::ExecuteRepeats<TD>(one, d, sizeof(TD), s.dstBlk, s.dstRep, [&](uint64_t, uint32_t l) {
      return f(Load<TS>(sp, num::LaneOffset(0, l, sizeof(TS), s.src0Blk, s.src0Rep)));
    });
  }
}

template <class Op>
void RunFloatUnary(Elem t, const LanePlan& plan, uint8_t* dst, const uint8_t* src, const VecStrides& s) {
  if (t == Elem::kF32) {
    RunUnary<float, float>(plan, dst, src, s, num::Unary1F32<Op>);
  } else {
    RunUnary<uint16_t, uint16_t>(plan, dst, src, s, num::Unary1HalfBits<Op>);
  }
}

num::Rounding ToRounding(Round r) {
  switch (r) {
    case Round::kFloor: return num::Rounding::kFloor;
    case Round::kCeil: return num::Rounding::kCeil;
    case Round::kAway: return num::Rounding::kAway;
    case Round::kTrunc: return num::Rounding::kTrunc;
    case Round::kOdd: return num::Rounding::kOdd;
    default: return num::Rounding::kEven;  // r, and no suffix
  }
}

// Conversions with an integer operand: read (the exact value of a source element as double) and write (the
// destination element of a value, rounded in direction r) per storage type.
template <typename TS, typename Read>
void IntConvTo(Elem to, Elem from, num::Rounding r, const LanePlan& plan, uint8_t* d, const uint8_t* sp,
               const VecStrides& s, Read read) {
  auto toInt = [&](auto lo, auto hi) {
    using TD = decltype(lo);
    RunUnary<TD, TS>(plan, d, sp, s, [=](TS v) { return static_cast<TD>(num::ToIntSat(read(v), r, lo, hi)); });
  };
  switch (to) {
    case Elem::kS64: toInt(int64_t{INT64_MIN}, int64_t{INT64_MAX}); break;
    case Elem::kS32: toInt(int32_t{INT32_MIN}, int32_t{INT32_MAX}); break;
    case Elem::kS16: toInt(int16_t{INT16_MIN}, int16_t{INT16_MAX}); break;
    case Elem::kS8: toInt(int8_t{INT8_MIN}, int8_t{INT8_MAX}); break;
    case Elem::kU8: toInt(uint8_t{0}, uint8_t{UINT8_MAX}); break;
    case Elem::kF32:
      if (from == Elem::kF32) {  // vconv_f322f32<r>: to an integral float
        RunUnary<float, float>(plan, d, sp, s, [=](float v) { return static_cast<float>(num::RoundIntegral(v, r)); });
      } else {
        RunUnary<float, TS>(plan, d, sp, s,
                            [=](TS v) { return static_cast<float>(num::RoundToPrecision(read(v), 24, -126, r)); });
      }
      break;
    default: RunUnary<uint16_t, TS>(plan, d, sp, s, [=](TS v) { return num::ToHalfBits(read(v), r); }); break;
  }
}

// The pairs listed at VecConv (model.h); false when (to, from) is not one of them. Unlisted pairs are
// checked before any lane is written.
bool IntegerConv(Elem to, Elem from, num::Rounding r, const LanePlan& plan, uint8_t* d, const uint8_t* sp,
                 const VecStrides& s) {
  static constexpr struct { Elem from, to; } kPairs[] = {
      {Elem::kF32, Elem::kS32}, {Elem::kF32, Elem::kS16}, {Elem::kF32, Elem::kS64}, {Elem::kF32, Elem::kF32},
      {Elem::kF16, Elem::kS32}, {Elem::kF16, Elem::kS16}, {Elem::kF16, Elem::kS8},  {Elem::kF16, Elem::kU8},
      {Elem::kBf16, Elem::kS32}, {Elem::kS16, Elem::kF16}, {Elem::kS16, Elem::kF32}, {Elem::kS8, Elem::kF16},
      {Elem::kU8, Elem::kF16},  {Elem::kS32, Elem::kF32}, {Elem::kS32, Elem::kS16}, {Elem::kS32, Elem::kS64},
      {Elem::kS64, Elem::kS32}, {Elem::kS64, Elem::kF32}};
  bool listed = false;
  for (const auto& p : kPairs) listed = listed || (p.from == from && p.to == to);
  if (!listed) return false;
  switch (from) {
    case Elem::kF32: IntConvTo<float>(to, from, r, plan, d, sp, s, [](float v) { return double{v}; }); break;
    case Elem::kF16:
      IntConvTo<uint16_t>(to, from, r, plan, d, sp, s, [](uint16_t h) { return double{num::HalfBitsToFloat(h)}; });
      break;
    case Elem::kBf16:
      IntConvTo<uint16_t>(to, from, r, plan, d, sp, s, [](uint16_t b) { return double{num::Bf16ToFloat(b)}; });
      break;
    case Elem::kS32: IntConvTo<int32_t>(to, from, r, plan, d, sp, s, [](int32_t v) { return double(v); }); break;
    case Elem::kS16: IntConvTo<int16_t>(to, from, r, plan, d, sp, s, [](int16_t v) { return double(v); }); break;
    case Elem::kS8: IntConvTo<int8_t>(to, from, r, plan, d, sp, s, [](int8_t v) { return double(v); }); break;
    case Elem::kU8: IntConvTo<uint8_t>(to, from, r, plan, d, sp, s, [](uint8_t v) { return double(v); }); break;
    case Elem::kS64:
      if (to == Elem::kF32) {  // rounded once from the exact integer
        RunUnary<float, int64_t>(plan, d, sp, s, [=](int64_t v) { return num::Int64ToFloat(v, r); });
      } else {
        IntConvTo<int64_t>(to, from, r, plan, d, sp, s, [](int64_t v) { return double(v); });
      }
      break;
    default: break;
  }
  return true;
}

// Lane values of repeat r (inactive lanes 0) for the reductions.
template <typename T>
void GatherLanes(const LanePlan& plan, const uint8_t* src, uint64_t blk, uint64_t rep, uint64_t r, T* v) {
  uint64_t m[2];
  plan.MaskOf(r, m);
  uint64_t fullLo, fullHi;
  num::LaneBits(plan.lanes, plan.lanes, &fullLo, &fullHi);
  if (blk == 1 && m[0] == fullLo && m[1] == fullHi) {  // a whole contiguous repeat: one copy
    std::memcpy(v, src + r * rep * num::kBlockBytes, plan.lanes * sizeof(T));
    return;
  }
  for (uint32_t l = 0; l < plan.lanes; ++l) {
    v[l] = (m[l / 64] >> (l % 64)) & 1u ? Load<T>(src, num::LaneOffset(r, l, sizeof(T), blk, rep)) : T(0);
  }
}

inline uint16_t AddHalf(uint16_t a, uint16_t b) { return F16::Out(F16::In(a) + F16::In(b)); }
inline float AddFloat(float a, float b) { return a + b; }

// accumulate false: each repeat's sum to dst[r * dstRep]; true: the sums added in repeat order
// into the ACC register (as the simulator's count-form ReduceSum accumulates), dst untouched.
template <typename T, typename Add>
void Cadd(const LanePlan& plan, uint8_t* dst, const uint8_t* src, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep,
          Add add, bool accumulate) {
  T v[num::kMaxLanes];
  T acc = T(0);
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    GatherLanes<T>(plan, src, srcBlk, srcRep, r, v);
    T sum = num::TreeSum(v, plan.lanes, add);
    if (accumulate) {
      acc = r == 0 ? sum : add(acc, sum);
    } else {
      std::memcpy(dst + r * dstRep * sizeof(T), &sum, sizeof(T));
    }
  }
  if (accumulate) {
    uint64_t bits = 0;
    std::memcpy(&bits, &acc, sizeof(T));
    Core().accVal = bits;
  }
}

template <typename T, typename Add>
void Cgadd(const LanePlan& plan, uint8_t* dst, const uint8_t* src, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep,
           Add add) {
  constexpr uint32_t kPer = num::kBlockBytes / sizeof(T);
  T v[num::kMaxLanes];
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    GatherLanes<T>(plan, src, srcBlk, srcRep, r, v);
    uint64_t m[2];
    plan.MaskOf(r, m);
    for (uint32_t j = 0; j < 8; ++j) {
      bool any = false;
      for (uint32_t l = j * kPer; l < (j + 1) * kPer; ++l) any = any || ((m[l / 64] >> (l % 64)) & 1u);
      if (!any) continue;
      T sum = num::TreeSum(v + j * kPer, kPer, add);
      std::memcpy(dst + (r * dstRep * 8 + j) * sizeof(T), &sum, sizeof(T));
    }
  }
}

// vcpadd: per repeat the sums of lane pairs (2k, 2k + 1) to dst[r * dstRep * lanes / 2 + k] (dstRep in
// halves of a repeat, 128 bytes); a pair without an active lane is not written, an inactive lane adds 0.
template <typename T, typename Add>
void Cpadd(const LanePlan& plan, uint8_t* dst, const uint8_t* src, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep,
           Add add) {
  T v[num::kMaxLanes];
  const uint32_t half = plan.lanes / 2;
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    GatherLanes<T>(plan, src, srcBlk, srcRep, r, v);
    uint64_t m[2];
    plan.MaskOf(r, m);
    for (uint32_t k = 0; k < half; ++k) {
      const uint32_t l = 2 * k;
      if (((m[l / 64] >> (l % 64)) & 3u) == 0) continue;
      T sum = add(v[l], v[l + 1]);
      std::memcpy(dst + (r * dstRep * half + k) * sizeof(T), &sum, sizeof(T));
    }
  }
}

// The common part of vcadd and vcgadd: element type, lanes, counters, the source operand; false
// when nothing is to be done (no repeat, or after a violation).
bool ReducePlan(const char* name, Elem t, const void* src, uint64_t repeat, uint64_t srcBlk, uint64_t srcRep,
                LanePlan* plan) {
  if (t != Elem::kF32 && t != Elem::kF16) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return false;
  }
  const uint32_t eb = ElemBytes(t);
  if (!Plan(Core(), name, eb, repeat, plan)) return false;
  CountVec(VecClass::kReduce, plan->repeats);
  return plan->repeats != 0 && CheckOperand(Core(), name, "src", src, *plan, eb, srcBlk, srcRep);
}

}  // namespace

uint32_t ElemBytes(Elem e) {
  switch (e) {
    case Elem::kF32: case Elem::kS32: case Elem::kU32: return 4;
    case Elem::kS8: case Elem::kU8: return 1;
    case Elem::kS64: return 8;
    default: return 2;
  }
}

const char* ElemName(Elem e) {
  static const char* const kNames[] = {"float", "half", "bfloat16_t", "int32_t", "uint32_t",
                                       "int16_t", "uint16_t", "int8_t", "uint8_t", "int64_t"};
  return kNames[static_cast<int>(e)];
}

void VecBinary(const char* name, BinOp op, Elem t, void* dst, const void* src0, const void* src1,
               const VecStrides& s) {
  Binary(name, op, t, dst, src0, src1, 0, s);
}

void VecScalar(const char* name, ScalarOp op, Elem t, void* dst, const void* src, uint64_t scalarBits,
               const VecStrides& s) {
  // vaxpy: dst = src * x + dst is vmla with the scalar as src1.
  BinOp b = BinOp::kMla;
  if (op == ScalarOp::kAdds) b = BinOp::kAdd;
  if (op == ScalarOp::kMuls) b = BinOp::kMul;
  if (op == ScalarOp::kMaxs) b = BinOp::kMax;
  if (op == ScalarOp::kMins) b = BinOp::kMin;
  if (op == ScalarOp::kAxpy && t != Elem::kF32 && t != Elem::kF16) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return;
  }
  Binary(name, b, t, dst, src, nullptr, scalarBits, s);
}

void VecDup(Elem t, void* dst, uint64_t scalarBits, const VecStrides& s) {
  const char* name = "vector_dup";
  const uint32_t eb = ElemBytes(t);
  if (eb == 1) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return;
  }
  LanePlan plan;
  if (!Plan(Core(), name, eb, s.repeat, &plan)) return;
  CountVec(VecClass::kElementwise, plan.repeats);
  if (!CheckOperand(Core(), name, "dst", dst, plan, eb, s.dstBlk, s.dstRep)) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  if (eb == 4) {
    Fill<uint32_t>(plan, d, scalarBits, s.dstBlk, s.dstRep);
  } else {
    Fill<uint16_t>(plan, d, scalarBits, s.dstBlk, s.dstRep);
  }
}

void VecUnary(const char* name, UnaryOp op, Elem t, void* dst, const void* src, const VecStrides& s) {
  const uint32_t eb = ElemBytes(t);
  const bool ok = op == UnaryOp::kCopy ? (eb == 2 || eb == 4) : (t == Elem::kF32 || t == Elem::kF16);
  if (!ok) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return;
  }
  LanePlan plan;
  if (!Plan(Core(), name, eb, s.repeat, &plan)) return;
  const bool elementwise = op == UnaryOp::kCopy || op == UnaryOp::kAbs;
  CountVec(elementwise ? VecClass::kElementwise : VecClass::kTranscendental, plan.repeats);
  if (!CheckOperand(Core(), name, "dst", dst, plan, eb, s.dstBlk, s.dstRep) ||
      !CheckOperand(Core(), name, "src", src, plan, eb, s.src0Blk, s.src0Rep)) {
    return;
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  if (op == UnaryOp::kCopy && eb == 4) {
    RunUnary<uint32_t, uint32_t>(plan, d, sp, s, [](uint32_t v) { return v; });
  } else if (op == UnaryOp::kCopy) {
    RunUnary<uint16_t, uint16_t>(plan, d, sp, s, [](uint16_t v) { return v; });
  } else {
    switch (op) {
      case UnaryOp::kSqrt: return RunFloatUnary<num::OpSqrt>(t, plan, d, sp, s);
      case UnaryOp::kExp: return RunFloatUnary<num::OpExp>(t, plan, d, sp, s);
      case UnaryOp::kLn: return RunFloatUnary<num::OpLn>(t, plan, d, sp, s);
      case UnaryOp::kAbs: return RunFloatUnary<num::OpAbs>(t, plan, d, sp, s);
      case UnaryOp::kRsqrt: return RunFloatUnary<num::OpRsqrt>(t, plan, d, sp, s);
      default: return RunFloatUnary<num::OpReciprocal>(t, plan, d, sp, s);
    }
  }
}

void VecBrcb(Elem t, void* dst, const void* src, uint64_t dstBlk, uint64_t dstRep, uint64_t repeat) {
  const char* name = "vbrcb";
  const uint32_t eb = ElemBytes(t);
  if (eb != 2 && eb != 4) {
    Violation("%s: element type %s is not supported", name, ElemName(t));
    return;
  }
  if (!CheckRange(name, "repeat", repeat, 0, 255)) return;
  CountVec(VecClass::kElementwise, repeat);
  if (repeat == 0) return;
  // Repeat r reads the 8 consecutive elements src[8r, 8r + 8) (16 bytes of a 16-bit type: the Brcb
  // page's example broadcasts 16 uint16_t inputs in 2 repeats) and writes each to a whole 32-byte
  // block of dst (mask ignored).
  uint64_t dstExtent = ((repeat - 1) * dstRep + 7 * dstBlk) * num::kBlockBytes + num::kBlockBytes;
  if (!CheckUb(name, "src", src, repeat * 8 * eb, num::kBlockBytes) ||
      !CheckUb(name, "dst", dst, dstExtent, num::kBlockBytes)) {
    return;
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  if (eb == 4) {
    Broadcast8<uint32_t>(d, sp, dstBlk, dstRep, repeat);
  } else {
    Broadcast8<uint16_t>(d, sp, dstBlk, dstRep, repeat);
  }
}

void VecConv(const char* name, Elem to, Elem from, Round rnd, void* dst, const void* src, const VecStrides& s) {
  const uint32_t tb = ElemBytes(to), fb = ElemBytes(from);
  LanePlan plan;
  if (!Plan(Core(), name, tb > fb ? tb : fb, s.repeat, &plan)) return;
  CountVec(VecClass::kCast, plan.repeats);
  if (!CheckOperand(Core(), name, "dst", dst, plan, tb, s.dstBlk, s.dstRep) ||
      !CheckOperand(Core(), name, "src", src, plan, fb, s.src0Blk, s.src0Rep)) {
    return;
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  const num::Rounding r = ToRounding(rnd);
  if (to == Elem::kF32 && from == Elem::kF16) {
    RunUnary<float, uint16_t>(plan, d, sp, s, [](uint16_t h) { return num::HalfBitsToFloat(h); });
  } else if (to == Elem::kF32 && from == Elem::kBf16) {
    RunUnary<float, uint16_t>(plan, d, sp, s, [](uint16_t b) { return num::Bf16ToFloat(b); });
  } else if (to == Elem::kF16 && from == Elem::kF32) {
    if (r == num::Rounding::kEven) {
      RunUnary<uint16_t, float>(plan, d, sp, s, [](float f) { return num::FloatToHalfSatBits(f); });
    } else {
      RunUnary<uint16_t, float>(plan, d, sp, s, [r](float f) { return num::ToHalfBits(f, r); });
    }
  } else if (to == Elem::kBf16 && from == Elem::kF32) {
    if (r == num::Rounding::kEven) {
      RunUnary<uint16_t, float>(plan, d, sp, s, [](float f) { return num::Bf16SatRneBits(f); });
    } else {
      RunUnary<uint16_t, float>(plan, d, sp, s, [r](float f) { return num::ToBf16Bits(f, r); });
    }
  } else if (!IntegerConv(to, from, r, plan, d, sp, s)) {
    Violation("%s: %s -> %s is not modelled", name, ElemName(from), ElemName(to));
  }
}

void VecCadd(Arch arch, Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk,
             uint64_t srcRep, uint64_t accMode) {
  const char* name = "vcadd";
  if (accMode > 1 || (arch != Arch::kA2 && accMode != 0)) {
    Violation("%s: accMode %llu is not valid here", name, static_cast<unsigned long long>(accMode));
    return;
  }
  const bool accumulate = accMode == 1;
  LanePlan plan;
  if (!ReducePlan(name, t, src, repeat, srcBlk, srcRep, &plan)) return;
  const uint32_t eb = ElemBytes(t);
  if (!accumulate && !CheckUb(name, "dst", dst, ((plan.repeats - 1) * dstRep + 1) * eb, eb)) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  if (t == Elem::kF32) {
    Cadd<float>(plan, d, sp, dstRep, srcBlk, srcRep, AddFloat, accumulate);
  } else {
    Cadd<uint16_t>(plan, d, sp, dstRep, srcBlk, srcRep, AddHalf, accumulate);
  }
}

int64_t GetAccVal() {
  ++Core().counters.instr[kPipeS];
  return static_cast<int64_t>(Core().accVal);
}

void VecCgadd(Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep) {
  const char* name = "vcgadd";
  LanePlan plan;
  if (!ReducePlan(name, t, src, repeat, srcBlk, srcRep, &plan)) return;
  const uint32_t eb = ElemBytes(t);
  if (!CheckUb(name, "dst", dst, ((plan.repeats - 1) * dstRep * 8 + 8) * eb, 8 * eb)) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  if (t == Elem::kF32) {
    Cgadd<float>(plan, d, sp, dstRep, srcBlk, srcRep, AddFloat);
  } else {
    Cgadd<uint16_t>(plan, d, sp, dstRep, srcBlk, srcRep, AddHalf);
  }
}

void VecCpadd(Elem t, void* dst, const void* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep) {
  const char* name = "vcpadd";
  LanePlan plan;
  if (!ReducePlan(name, t, src, repeat, srcBlk, srcRep, &plan)) return;
  const uint32_t eb = ElemBytes(t);
  const uint64_t half = plan.lanes / 2;
  if (!CheckUb(name, "dst", dst, ((plan.repeats - 1) * dstRep * half + half) * eb, num::kBlockBytes)) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  if (t == Elem::kF32) {
    Cpadd<float>(plan, d, sp, dstRep, srcBlk, srcRep, AddFloat);
  } else {
    Cpadd<uint16_t>(plan, d, sp, dstRep, srcBlk, srcRep, AddHalf);
  }
}

void VecAxpyF16F32(void* dst, const void* src, uint64_t scalarBits, const VecStrides& s) {
  const char* name = "vaxpy";
  const State& core = Core();
  LanePlan plan;
  if (!Plan(core, name, 4, s.repeat, &plan)) return;
  CountVec(VecClass::kElementwise, plan.repeats);
  if (!CheckOperand(core, name, "dst", dst, plan, 4, s.dstBlk, s.dstRep) ||
      !CheckOperand(core, name, "src", src, plan, 2, s.src0Blk, s.src0Rep)) {
    return;
  }
  const float x = num::HalfToFloat(static_cast<uint16_t>(scalarBits));
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* sp = static_cast<const uint8_t*>(src);
  float out[num::kMaxLanes];
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    uint64_t m[2];
    plan.MaskOf(r, m);
    // All reads of the repeat before its writes; the product of two halves is exact in float.
    for (uint32_t l = 0; l < plan.lanes; ++l) {
      if (((m[l / 64] >> (l % 64)) & 1u) == 0) continue;
      const float a = num::HalfToFloat(Load<uint16_t>(sp, num::LaneOffset(r, l, 2, s.src0Blk, s.src0Rep)));
      out[l] = a * x + Load<float>(d, num::LaneOffset(r, l, 4, s.dstBlk, s.dstRep));
    }
    for (uint32_t l = 0; l < plan.lanes; ++l) {
      if (((m[l / 64] >> (l % 64)) & 1u) == 0) continue;
      std::memcpy(d + num::LaneOffset(r, l, 4, s.dstBlk, s.dstRep), &out[l], 4);
    }
  }
}

}  // namespace isa
}  // namespace normgrad
