#pragma once
// FP16 (__half) and BF16 (__nv_bfloat16) for the emulator: 16-bit storage, arithmetic done in
// float and rounded back to nearest-even, as the GPU's half-precision instructions round.
#include <bit>
#include <cmath>
#include <cstdint>

namespace gpulab::emulated::types {

namespace half_bits {
inline std::uint16_t from_float(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return sign | 0x7E00u;   // NaN
  if (a >= 0x477FF000u) return sign | 0x7C00u;  // 65520 and above round to infinity
  if (a < 0x38800000u) {                        // below 2^-14: a subnormal half (or zero), in steps of 2^-24
    return static_cast<std::uint16_t>(
        sign | static_cast<std::uint16_t>(std::nearbyint(std::bit_cast<float>(a) * 16777216.0f)));
  }
  std::uint32_t h = (a - 0x38000000u) >> 13;  // exponent rebiased from 127 to 15, 10 mantissa bits
  const std::uint32_t rest = a & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // nearest, ties to even (a carry moves the exponent)
  return static_cast<std::uint16_t>(sign | h);
}
inline float to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0)
    return std::bit_cast<float>(sign) + (sign ? -1.0f : 1.0f) * static_cast<float>(m) * 5.9604644775390625e-8f;
  if (e == 31) return std::bit_cast<float>(sign | 0x7F800000u | (m << 13));
  return std::bit_cast<float>(sign | ((e + 112) << 23) | (m << 13));
}
inline std::uint16_t bf16_from_float(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<std::uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
}  // namespace half_bits

// One 16-bit float type: Bits converts to and from float.
template <std::uint16_t (*From)(float), float (*To)(std::uint16_t)>
struct alignas(2) Half16 {
  std::uint16_t __x;
  Half16() = default;
  Half16(float f) : __x(From(f)) {}                       // NOLINT: implicit, as CUDA's
  Half16(double d) : __x(From(static_cast<float>(d))) {}  // NOLINT
  Half16(int i) : __x(From(static_cast<float>(i))) {}     // NOLINT
  operator float() const { return To(__x); }              // NOLINT
  static Half16 raw(std::uint16_t bits) {
    Half16 h;
    h.__x = bits;
    return h;
  }
  friend Half16 operator+(Half16 a, Half16 b) { return float(a) + float(b); }
  friend Half16 operator-(Half16 a, Half16 b) { return float(a) - float(b); }
  friend Half16 operator*(Half16 a, Half16 b) { return float(a) * float(b); }
  friend Half16 operator/(Half16 a, Half16 b) { return float(a) / float(b); }
  friend Half16 operator-(Half16 a) { return raw(static_cast<std::uint16_t>(a.__x ^ 0x8000u)); }
  Half16& operator+=(Half16 b) { return *this = *this + b; }
  Half16& operator-=(Half16 b) { return *this = *this - b; }
  Half16& operator*=(Half16 b) { return *this = *this * b; }
  Half16& operator/=(Half16 b) { return *this = *this / b; }
  friend bool operator==(Half16 a, Half16 b) { return float(a) == float(b); }
  friend bool operator!=(Half16 a, Half16 b) { return float(a) != float(b); }
  friend bool operator<(Half16 a, Half16 b) { return float(a) < float(b); }
  friend bool operator>(Half16 a, Half16 b) { return float(a) > float(b); }
  friend bool operator<=(Half16 a, Half16 b) { return float(a) <= float(b); }
  friend bool operator>=(Half16 a, Half16 b) { return float(a) >= float(b); }
};

using __half = Half16<half_bits::from_float, half_bits::to_float>;
using __nv_bfloat16 = Half16<half_bits::bf16_from_float, half_bits::bf16_to_float>;
using half = __half;
using nv_bfloat16 = __nv_bfloat16;

template <typename H>
struct alignas(4) Half16x2 {
  H x, y;
};
using __half2 = Half16x2<__half>;
using __nv_bfloat162 = Half16x2<__nv_bfloat16>;
using half2 = __half2;
using nv_bfloat162 = __nv_bfloat162;

}  // namespace gpulab::emulated::types

using namespace gpulab::emulated::types;  // NOLINT

// ---- conversions
inline __half __float2half(float f) { return f; }
inline __half __float2half_rn(float f) { return f; }
inline float __half2float(__half h) { return h; }
inline __half __int2half_rn(int i) { return static_cast<float>(i); }
inline int __half2int_rn(__half h) { return static_cast<int>(std::nearbyint(float(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(float(h)); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short u) { return __half::raw(u); }
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline __half __short_as_half(short s) { return __half::raw(static_cast<std::uint16_t>(s)); }
inline __half2 __floats2half2_rn(float a, float b) { return {a, b}; }
inline __half2 __float2half2_rn(float a) { return {a, a}; }
inline __half2 __float22half2_rn(float2 f) { return {f.x, f.y}; }
inline float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline __half2 __half2half2(__half a) { return {a, a}; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline float __low2float(__half2 h) { return h.x; }
inline float __high2float(__half2 h) { return h.y; }
inline __nv_bfloat16 __float2bfloat16(float f) { return f; }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return f; }
inline float __bfloat162float(__nv_bfloat16 h) { return h; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16::raw(u); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {a, b}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return {a, a}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return {f.x, f.y}; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return {float(h.x), float(h.y)}; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }

// ---- arithmetic, for both types (and their pairs)
#define GPULAB_HALF_MATH(H, H2)                                                                  \
  inline H __hadd(H a, H b) { return a + b; }                                                    \
  inline H __hsub(H a, H b) { return a - b; }                                                    \
  inline H __hmul(H a, H b) { return a * b; }                                                    \
  inline H __hdiv(H a, H b) { return a / b; }                                                    \
  inline H __hfma(H a, H b, H c) { return fmaf(float(a), float(b), float(c)); }                  \
  inline H __hneg(H a) { return -a; }                                                            \
  inline H __habs(H a) { return H::raw(static_cast<std::uint16_t>(a.__x & 0x7FFFu)); }           \
  inline H __hmax(H a, H b) { return float(a) > float(b) ? a : b; }                              \
  inline H __hmin(H a, H b) { return float(a) < float(b) ? a : b; }                              \
  inline bool __heq(H a, H b) { return a == b; }                                                 \
  inline bool __hne(H a, H b) { return a != b; }                                                 \
  inline bool __hlt(H a, H b) { return a < b; }                                                  \
  inline bool __hle(H a, H b) { return a <= b; }                                                 \
  inline bool __hgt(H a, H b) { return a > b; }                                                  \
  inline bool __hge(H a, H b) { return a >= b; }                                                 \
  inline bool __hisnan(H a) { return std::isnan(float(a)); }                                     \
  inline bool __hisinf(H a) { return std::isinf(float(a)); }                                     \
  inline H hexp(H a) { return expf(float(a)); }                                                  \
  inline H hlog(H a) { return logf(float(a)); }                                                  \
  inline H hsqrt(H a) { return sqrtf(float(a)); }                                                \
  inline H hrsqrt(H a) { return 1.0f / sqrtf(float(a)); }                                        \
  inline H htanh(H a) { return tanhf(float(a)); }                                                \
  inline H2 __hadd2(H2 a, H2 b) { return {a.x + b.x, a.y + b.y}; }                               \
  inline H2 __hsub2(H2 a, H2 b) { return {a.x - b.x, a.y - b.y}; }                               \
  inline H2 __hmul2(H2 a, H2 b) { return {a.x * b.x, a.y * b.y}; }                               \
  inline H2 __hfma2(H2 a, H2 b, H2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; } \
  inline H2 operator+(H2 a, H2 b) { return __hadd2(a, b); }                                      \
  inline H2 operator*(H2 a, H2 b) { return __hmul2(a, b); }
GPULAB_HALF_MATH(__half, __half2)
GPULAB_HALF_MATH(__nv_bfloat16, __nv_bfloat162)
#undef GPULAB_HALF_MATH
