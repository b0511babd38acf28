// The vector unit's numerics and addressing as pure functions on bits, shared by the simulator's
// API layer (front end A, sim/include/ascendc) and the instruction-level model (front end B,
// sim/isa): one definition of how a lane is addressed, how half/bfloat16 round and saturate, how
// each conversion rounds, how a reduction tree adds. No type of either front end appears here:
// half and bfloat16 are their 16-bit patterns.
//
// Rules (docs/hardware-rules.md §4, §6): float is IEEE single; half results are the exact result
// rounded once to half (RNE) and saturated as in the A2/A3 default mode (inf -> +-65504, NaN -> 0);
// lane l of repeat r of an operand with element size s, block stride bs and repeat stride rs
// (32-byte blocks) is at (r*rs + floor(l*s/32)*bs)*32 + (l*s mod 32).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace normgrad {
namespace isa {
namespace num {

constexpr uint32_t kBlockBytes = 32;
constexpr uint32_t kRepeatBytes = 256;
constexpr uint32_t kMaxLanes = 128;  // the mask register has 128 bits

// Byte offset of lane l of repeat r from the operand's base.
inline uint64_t LaneOffset(uint64_t r, uint32_t l, uint32_t elemBytes, uint64_t blkStride, uint64_t repStride) {
  uint32_t byte = l * elemBytes;
  return (r * repStride + static_cast<uint64_t>(byte / kBlockBytes) * blkStride) * kBlockBytes + byte % kBlockBytes;
}

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// All-ones when c holds: selects written as masks, because GCC turns ?: into branches here
// (and cannot if-convert the float add under -ftrapping-math), which stops vectorisation.
inline uint32_t MaskIf(bool c) { return 0u - static_cast<uint32_t>(c); }
inline uint32_t Select(bool c, uint32_t a, uint32_t b) { return (a & MaskIf(c)) | (b & ~MaskIf(c)); }

constexpr uint16_t kHalfMaxBits = 0x7bff;  // 65504
constexpr double kHalfMax = 65504.0;
constexpr double kBf16Max = 3.3895313892515355e38;  // 0x7f7f

// ---- IEEE conversions (storage types: overflow to inf, NaN kept quiet) ----

// binary32 -> binary16, round to nearest even, IEEE overflow to inf, NaN kept quiet.
inline uint16_t FloatToHalfRne(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (absx < 0x38800000u) {  // result is subnormal in half (|f| < 2^-14)
    if (absx < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
    uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    int shift = 126 - static_cast<int>(absx >> 23);  // value = mant * 2^-shift * 2^-24, shift in [14, 24]
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t e = (absx >> 23) - 112;  // rebias 127 -> 15
  uint32_t mant = absx & 0x7fffffu;
  uint32_t h = (e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may roll into exponent: correct
  return static_cast<uint16_t>(sign | h);
}

inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return BitsFloat(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return BitsFloat(sign);
    // subnormal: m * 2^-24
    float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return BitsFloat(sign | ((e + 112) << 23) | (m << 13));
}

// binary32 -> bfloat16, round to nearest even; NaN kept quiet.
inline uint16_t FloatToBf16Rne(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}
inline float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

// ---- the vector unit's saturating forms ----

// half -> float without branches, so loops over it vectorise.
inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t o = static_cast<uint32_t>(h & 0x7fffu) << 13;
  uint32_t exp = o & 0x0f800000u;
  uint32_t normal = o + (112u << 23);
  uint32_t special = o + (224u << 23);                                        // inf / NaN
  uint32_t sub = FloatBits(BitsFloat(o + (113u << 23)) - BitsFloat(113u << 23));  // subnormal, exact
  uint32_t r = Select(exp == 0x0f800000u, special, Select(exp == 0, sub, normal));
  return BitsFloat(r | sign);
}

// float -> half RNE with saturation, without branches. Because float carries 24 >= 2*11 + 2
// bits, a float result of +, -, *, /, sqrt on half inputs rounded again to half equals the
// exact result rounded once (double rounding is innocuous at that width).
inline uint16_t FloatToHalfSatBits(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u) - (112u << 23)) >> 13;  // RNE on bit 13, rebias
  // Subnormal results: adding 0.5 (ulp 2^-24) makes the FPU round at the half subnormal ulp.
  uint32_t sub = FloatBits(BitsFloat(a) + 0.5f) - 0x3f000000u;
  uint32_t h = Select(a < 0x38800000u, sub, normal);
  h = Select(a >= 0x477ff000u, kHalfMaxBits, h);  // rounds to >= 65520 (or inf): saturate
  return static_cast<uint16_t>(Select(a > 0x7f800000u, 0u, h | sign));  // NaN -> 0
}

// double -> half RNE with saturation, straight from the double bits (one rounding).
inline uint16_t HalfSatDBits(double d) {
  if (d != d) return 0;
  uint64_t x;
  std::memcpy(&x, &d, 8);
  uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  double a = std::fabs(d);
  if (a >= 65520.0) return static_cast<uint16_t>(sign | kHalfMaxBits);  // rounds to inf, saturates
  uint64_t h;
  if (a < 6.103515625e-05) {  // below 2^-14: subnormal half, value = n * 2^-24
    double q = a * 16777216.0;
    double n = std::floor(q);
    double frac = q - n;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0)) n += 1;
    h = static_cast<uint64_t>(n);  // n == 1024 is the smallest normal: the encoding carries over
  } else {
    uint64_t ax = x & 0x7fffffffffffffffull;
    uint64_t e = (ax >> 52) - 1023 + 15;
    uint64_t mant = ax & 0xfffffffffffffull;
    h = (e << 10) | (mant >> 42);
    uint64_t rem = mant & ((1ull << 42) - 1);
    uint64_t halfway = 1ull << 41;
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
  }
  return static_cast<uint16_t>(sign | h);
}

// float -> bfloat16, round-half-even, saturating (infinities and overflow give +-max, NaN gives
// 0). Selects instead of branches so loops vectorise; for non-NaN x the sum cannot carry out of
// 32 bits (the largest is -inf, 0xff800000, plus 0x8000).
inline uint16_t Bf16SatRneBits(float f) {
  uint32_t x = FloatBits(f);
  uint32_t b = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  b = (b & 0x7fffu) == 0x7f80u ? ((b & 0x8000u) | 0x7f7fu) : b;
  b = (x & 0x7fffffffu) > 0x7f800000u ? 0u : b;
  return static_cast<uint16_t>(b);
}

// Saturation mode applied to an IEEE 16-bit result: inf -> +-max, NaN -> 0.
inline uint16_t SaturateHalfBits(uint16_t h) {
  if ((h & 0x7c00u) != 0x7c00u) return h;
  return (h & 0x3ffu) ? 0 : static_cast<uint16_t>((h & 0x8000u) | 0x7bffu);
}
inline uint16_t SaturateBf16Bits(uint16_t b) {
  if ((b & 0x7f80u) != 0x7f80u) return b;
  return (b & 0x7fu) ? 0 : static_cast<uint16_t>((b & 0x8000u) | 0x7f7fu);
}

// The element add of an atomic store: the IEEE sum rounded once to the 16-bit type (a float sum of
// two 16-bit floats is exact enough for that), then saturated.
inline uint16_t AtomicAddHalfBits(uint16_t a, uint16_t b) {
  return SaturateHalfBits(FloatToHalfRne(HalfToFloat(a) + HalfToFloat(b)));
}
inline uint16_t AtomicAddBf16Bits(uint16_t a, uint16_t b) {
  return SaturateBf16Bits(FloatToBf16Rne(Bf16ToFloat(a) + Bf16ToFloat(b)));
}

// ---- multiply-add lanes (Axpy, MulAddDst / vmla, FusedMulAdd / vmadd) ----

// a * b + c: float rounds the product and then the sum (the device documents no fused form);
// half is the exact result rounded once (the double fma is exact for every half triple whose
// result is in half range).
inline float MulAddF32(float a, float b, float c) {
  float product = a * b;
  return product + c;
}
inline uint16_t MulAddHalfBits(float a, float b, float c) {
  return HalfSatDBits(std::fma(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c)));
}

// ---- unary operations: evaluated in double, rounded once to the result type ----

struct OpExp {
  static double D(double a) { return std::exp(a); }
};
struct OpLn {
  static double D(double a) { return std::log(a); }
};
struct OpSqrt {
  static double D(double a) { return std::sqrt(a); }
};
struct OpRsqrt {
  static double D(double a) { return 1.0 / std::sqrt(a); }
};
struct OpReciprocal {
  static double D(double a) { return 1.0 / a; }
};
struct OpAbs {
  static double D(double a) { return std::fabs(a); }
};

template <class Op>
inline float Unary1F32(float a) { return static_cast<float>(Op::D(a)); }
template <class Op>
inline uint16_t Unary1HalfBits(uint16_t h) { return HalfSatDBits(Op::D(HalfToFloat(h))); }

// ---- conversions with a rounding direction ----

// Rounding directions of a conversion (RoundMode / vconv suffix without "none", which resolves
// to kEven).
enum class Rounding { kEven, kFloor, kCeil, kAway, kTrunc, kOdd };

// Rounds q to an integral value in direction r (q finite; exact for |q| < 2^53).
inline double RoundIntegral(double q, Rounding r) {
  if (!std::isfinite(q) || std::fabs(q) >= 4503599627370496.0) return q;  // >= 2^52: already integral
  double n = std::trunc(q);
  double frac = std::fabs(q - n);  // exact
  if (frac != 0) {
    double away = n + (q > 0 ? 1.0 : -1.0);
    switch (r) {
      case Rounding::kEven: n = (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0)) ? away : n; break;
      case Rounding::kAway: n = frac >= 0.5 ? away : n; break;
      case Rounding::kTrunc: break;
      case Rounding::kFloor: n = q < 0 ? away : n; break;
      case Rounding::kCeil: n = q > 0 ? away : n; break;
      case Rounding::kOdd: n = std::fmod(n, 2.0) != 0 ? n : away; break;
    }
  }
  return std::copysign(n, q);  // keeps -0 for negative inputs rounding to zero
}

// Rounds x to a binary format with p significant bits and minimum normal exponent emin
// (subnormals keep the ulp 2^(emin-p+1)); no overflow handling.
inline double RoundToPrecision(double x, int p, int emin, Rounding r) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = std::ilogb(x);
  if (e < emin) e = emin;
  double ulp = std::ldexp(1.0, e - p + 1);
  return RoundIntegral(x / ulp, r) * ulp;  // scaling by powers of two is exact
}

// Rounds x to a finite format: p significant bits, min normal exponent emin, largest finite
// value maxFinite; overflow and infinities saturate to +-maxFinite and NaN becomes 0.
inline double RoundSaturated(double x, int p, int emin, double maxFinite, Rounding r) {
  if (std::isnan(x)) return 0.0;
  if (std::isinf(x)) return std::copysign(maxFinite, x);
  double y = RoundToPrecision(x, p, emin, r);
  return std::fabs(y) > maxFinite ? std::copysign(maxFinite, y) : y;
}

// x rounded in direction r to half / bfloat16, saturating (the value is exact in float once
// rounded, so the IEEE conversion of that float is exact).
inline uint16_t ToHalfBits(double x, Rounding r) {
  return FloatToHalfRne(static_cast<float>(RoundSaturated(x, 11, -14, kHalfMax, r)));
}
inline uint16_t ToBf16Bits(double x, Rounding r) {
  return FloatToBf16Rne(static_cast<float>(RoundSaturated(x, 8, -126, kBf16Max, r)));
}

// ---- conversions with an integer operand (vconv_f322s32r, vconv_s322f32, vconv_s642f32a, ...) ----

// x rounded to an integer in direction r and saturated to [lo, hi]; NaN gives 0.
inline int64_t ToIntSat(double x, Rounding r, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  double n = RoundIntegral(x, r);
  if (n <= static_cast<double>(lo)) return lo;
  if (n >= static_cast<double>(hi)) return hi;  // 2^63 for int64: the clamp is exact
  return static_cast<int64_t>(n);
}

// int64 -> float rounded once in direction r (through double it would round twice).
inline float Int64ToFloat(int64_t v, Rounding r) {
  bool negative = v < 0;
  uint64_t mag = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int bits = mag == 0 ? 0 : 64 - __builtin_clzll(mag);
  if (bits <= 24) return static_cast<float>(v);
  int shift = bits - 24;
  uint64_t kept = mag >> shift;
  uint64_t rem = mag & ((1ull << shift) - 1);
  uint64_t halfway = 1ull << (shift - 1);
  // Directions are on the magnitude; floor and ceil swap for negative values.
  bool up = false;
  switch (r) {
    case Rounding::kEven: up = rem > halfway || (rem == halfway && (kept & 1u)); break;
    case Rounding::kAway: up = rem >= halfway; break;
    case Rounding::kTrunc: break;
    case Rounding::kFloor: up = negative && rem != 0; break;
    case Rounding::kCeil: up = !negative && rem != 0; break;
    case Rounding::kOdd: up = rem != 0 && !(kept & 1u); break;
  }
  double m = std::ldexp(static_cast<double>(kept + (up ? 1 : 0)), shift);  // exact: <= 25 bits
  return static_cast<float>(negative ? -m : m);
}

// ---- which lanes an instruction activates ----

constexpr uint64_t kAllOnes = ~0ull;

// Lanes of one instruction: `repeats` repeats of `lanes` lanes, each with mask (lo, hi) except
// the last, which uses (tailLo, tailHi) (the partial tail of a counter-mode instruction).
struct LanePlan {
  uint64_t repeats = 0;
  uint32_t lanes = 64;
  uint64_t lo = 0, hi = 0;
  uint64_t tailLo = 0, tailHi = 0;
  void MaskOf(uint64_t r, uint64_t* m) const {
    bool tail = r + 1 == repeats;
    m[0] = tail ? tailLo : lo;
    m[1] = tail ? tailHi : hi;
  }
};

// Lanes per repeat of an instruction whose widest operand element has `widestBytes` bytes.
constexpr uint32_t LanesFor(uint32_t widestBytes) { return kRepeatBytes / widestBytes; }

// Bits for lanes [0, n) of a repeat with `lanes` lanes (n clamped to lanes).
inline void LaneBits(uint64_t n, uint32_t lanes, uint64_t* lo, uint64_t* hi) {
  if (n > lanes) n = lanes;
  *lo = n >= 64 ? kAllOnes : (1ull << n) - 1;
  *hi = n <= 64 ? 0 : (n >= 128 ? kAllOnes : (1ull << (n - 64)) - 1);
}

// Counter mode: `count` elements from lane 0 of repeat 0, whole repeats then a partial tail.
inline LanePlan PlanCount(uint32_t lanes, uint64_t count) {
  LanePlan p;
  p.lanes = lanes;
  p.repeats = (count + lanes - 1) / lanes;
  LaneBits(lanes, lanes, &p.lo, &p.hi);
  uint64_t tail = count - (p.repeats == 0 ? 0 : (p.repeats - 1) * lanes);
  LaneBits(tail, lanes, &p.tailLo, &p.tailHi);
  return p;
}

// The lanes the mask register selects: counter mode (lo = element count, repeatTime ignored) or
// normal mode (bits beyond `lanes` ignored; an all-zero mask is a NOP).
inline LanePlan PlanMaskRegister(uint32_t lanes, bool counterMode, uint64_t maskLo, uint64_t maskHi,
                                 uint64_t repeatTime) {
  if (counterMode) return PlanCount(lanes, maskLo);
  LanePlan p;
  p.lanes = lanes;
  p.lo = maskLo;
  p.hi = maskHi;
  if (lanes <= 64) {
    p.hi = 0;
    if (lanes < 64) p.lo &= (1ull << lanes) - 1;
  } else if (lanes < 128) {
    p.hi &= (1ull << (lanes - 64)) - 1;
  }
  p.repeats = (p.lo | p.hi) == 0 ? 0 : repeatTime;
  p.tailLo = p.lo;
  p.tailHi = p.hi;
  return p;
}

// True when the plan's active lanes are the first *n elements of a contiguous run: every repeat but
// the last has all lanes, the last a prefix of them (counter mode always; normal mode with a
// full or prefix mask on one repeat, or a full mask on several).
inline bool PrefixElements(const LanePlan& p, uint64_t* n) {
  if (p.repeats == 0) {
    *n = 0;
    return true;
  }
  uint64_t fullLo, fullHi;
  LaneBits(p.lanes, p.lanes, &fullLo, &fullHi);
  if (p.repeats > 1 && (p.lo != fullLo || p.hi != fullHi)) return false;
  // The tail's length if it is a prefix (checked below): its trailing ones (a bit scan, where a
  // population count would be a library call on baseline x86-64).
  auto ones = [](uint64_t x) -> uint64_t { return ~x == 0 ? 64 : static_cast<uint64_t>(__builtin_ctzll(~x)); };
  uint64_t tail = p.tailLo == kAllOnes ? 64 + ones(p.tailHi) : ones(p.tailLo);
  if (p.tailHi != 0 && p.tailLo != kAllOnes) return false;
  uint64_t lo, hi;
  LaneBits(tail, p.lanes, &lo, &hi);
  if (lo != p.tailLo || hi != p.tailHi) return false;
  *n = (p.repeats - 1) * p.lanes + tail;
  return true;
}

// Runs an instruction over its active lanes: for each repeat, compute(r, l) for every active
// lane l (all reads of the repeat happen before its writes, so 100 % overlap is exact), then
// stores the TD results at dst + LaneOffset(r, l) (lanes of dstElemBytes, normally sizeof(TD)).
template <typename TD, typename F>
void ExecuteRepeats(const LanePlan& plan, uint8_t* dst, uint32_t dstElemBytes, uint64_t dstBlk, uint64_t dstRep,
                    F&& compute) {
  TD vals[kMaxLanes];
  uint64_t offs[kMaxLanes];
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    uint64_t m[2];
    plan.MaskOf(r, m);
    uint32_t n = 0;
    for (uint32_t w = 0; w < 2; ++w) {
      for (uint64_t bits = m[w]; bits != 0; bits &= bits - 1) {
        uint32_t l = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
        vals[n] = compute(r, l);
        offs[n++] = LaneOffset(r, l, dstElemBytes, dstBlk, dstRep);
      }
    }
    for (uint32_t i = 0; i < n; ++i) std::memcpy(dst + offs[i], &vals[i], sizeof(TD));
  }
}

// The blocks of a repeat under mask (lo, hi) whose lanes are all active, as bits of *active;
// false when some block is only partly active (the block executor below then does not apply).
inline bool WholeBlocks(uint64_t lo, uint64_t hi, uint32_t perBlock, uint32_t* active) {
  const uint64_t blockMask = (1ull << perBlock) - 1;
  const uint32_t blocks = kRepeatBytes / kBlockBytes;
  *active = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t first = b * perBlock;
    uint64_t bits = ((first < 64 ? lo : hi) >> (first % 64)) & blockMask;
    if (bits == blockMask) {
      *active |= 1u << b;
    } else if (bits != 0) {
      return false;
    }
  }
  return true;
}

// Block b of repeat r of an operand at base.
template <typename T>
inline const T* BlockPtr(const uint8_t* base, uint64_t blkStride, uint64_t repStride, uint64_t r, uint32_t b) {
  return reinterpret_cast<const T*>(base + (r * repStride + static_cast<uint64_t>(b) * blkStride) * kBlockBytes);
}

// ExecuteRepeats for the common case where every operand has the element size of TD and the
// masks switch whole 32-byte blocks on or off: computeBlock(r, b, out) writes the 32 / sizeof(TD)
// lanes of block b of repeat r into out from whole source blocks, a loop the compiler
// vectorises. Same order of reads and writes as ExecuteRepeats (every read of a repeat before its
// writes, repeats in order), so the same results. Returns false (nothing done) when it does not
// apply.
template <typename TD, typename F>
bool ExecuteBlocks(const LanePlan& plan, uint8_t* dst, uint64_t dstBlk, uint64_t dstRep, F&& computeBlock) {
  constexpr uint32_t kPer = kBlockBytes / sizeof(TD);
  if (plan.lanes != kRepeatBytes / sizeof(TD)) return false;
  uint32_t full = 0, tail = 0;
  if (!WholeBlocks(plan.lo, plan.hi, kPer, &full) || !WholeBlocks(plan.tailLo, plan.tailHi, kPer, &tail)) {
    return false;
  }
  alignas(32) TD vals[kMaxLanes];
  constexpr uint32_t kBlocks = kRepeatBytes / kBlockBytes;
  constexpr uint32_t kAll = (1u << kBlocks) - 1;
  if (full == kAll && tail == kAll && dstBlk == 1) {
    // Every block of every repeat, dst blocks contiguous: a fixed-trip loop per repeat and one
    // store of the whole repeat (same reads-before-writes order as below).
    for (uint64_t r = 0; r < plan.repeats; ++r) {
      for (uint32_t b = 0; b < kBlocks; ++b) computeBlock(r, b, vals + b * kPer);
      std::memcpy(dst + r * dstRep * kBlockBytes, vals, kRepeatBytes);
    }
    return true;
  }
  for (uint64_t r = 0; r < plan.repeats; ++r) {
    const uint32_t active = r + 1 == plan.repeats ? tail : full;
    for (uint32_t bits = active; bits != 0; bits &= bits - 1) {
      uint32_t b = static_cast<uint32_t>(__builtin_ctz(bits));
      computeBlock(r, b, vals + b * kPer);
    }
    for (uint32_t bits = active; bits != 0; bits &= bits - 1) {
      uint32_t b = static_cast<uint32_t>(__builtin_ctz(bits));
      std::memcpy(dst + (r * dstRep + static_cast<uint64_t>(b) * dstBlk) * kBlockBytes, vals + b * kPer,
                  kBlockBytes);
    }
  }
  return true;
}

// ---- reductions ----

// Pairwise tree over v[0, n), n a power of two <= kMaxLanes: (v0+v1), (v2+v3), ... then pairs of
// those, each sum rounded by add. Each level writes a separate buffer so the compiler can
// vectorise it.
template <typename T, typename Add>
T TreeSum(const T* v, uint32_t n, Add add) {
  T a[kMaxLanes / 2], b[kMaxLanes / 4 + 1];
  if (n == 1) return v[0];
  for (uint32_t i = 0; i < n / 2; ++i) a[i] = add(v[2 * i], v[2 * i + 1]);
  T* in = a;
  T* out = b;
  for (uint32_t w = n / 4; w >= 1; w /= 2) {
    for (uint32_t i = 0; i < w; ++i) out[i] = add(in[2 * i], in[2 * i + 1]);
    T* t = in;
    in = out;
    out = t;
  }
  return in[0];
}

}  // namespace num
}  // namespace isa
}  // namespace normgrad
