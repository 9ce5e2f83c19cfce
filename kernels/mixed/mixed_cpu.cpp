// Rounding to 16-bit formats on the CPU, so the error of FP16 and BF16 storage shows without a GPU.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "mixed/mixed.hpp"

namespace gpulab::mixed {

namespace {

// The nearest value with `fraction_bits` bits after the leading one, exponents down to
// `min_exponent` (below it the spacing stays fixed: subnormals); past `largest` it is ±inf.
float round_to(float x, int fraction_bits, int min_exponent, float largest) {
  if (!std::isfinite(x) || x == 0.0f) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| = f · 2^e, f in [0.5, 1): the leading bit is worth 2^(e-1)
  const float spacing = std::ldexp(1.0f, std::max(e - 1, min_exponent) - fraction_bits);
  const float rounded = std::nearbyint(x / spacing) * spacing;  // ties to even (the default mode)
  if (std::fabs(rounded) > largest) return std::copysign(std::numeric_limits<float>::infinity(), x);
  return rounded;
}

}  // namespace

const char* to_string(Storage s) { return s == Storage::fp16 ? "FP16" : "BF16"; }

float round_to_fp16(float x) { return round_to(x, 10, -14, 65504.0f); }
float round_to_bf16(float x) { return round_to(x, 7, -126, std::numeric_limits<float>::max()); }
float round_to_tf32(float x) { return round_to(x, 10, -126, std::numeric_limits<float>::max()); }

double unit_roundoff(Storage s) { return s == Storage::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8); }

std::uint16_t fp16_bits(float x) {
  const float r = round_to_fp16(x);
  const auto sign = static_cast<std::uint16_t>(std::signbit(r) ? 0x8000u : 0u);
  if (std::isnan(r)) return static_cast<std::uint16_t>(sign | 0x7E00u);
  if (std::isinf(r)) return static_cast<std::uint16_t>(sign | 0x7C00u);
  const float a = std::fabs(r);
  if (a < std::ldexp(1.0f, -14)) {  // subnormal (or zero): a multiple of 2^-24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 24)));
  }
  int e = 0;
  const float f = std::frexp(a, &e);  // a = f · 2^e: biased exponent e - 1 + 15, fraction (2f - 1) · 2^10
  const auto fraction = static_cast<unsigned>(std::ldexp(2.0f * f - 1.0f, 10));
  return static_cast<std::uint16_t>(sign | static_cast<unsigned>(e + 14) << 10 | fraction);
}

float fp16_value(std::uint16_t bits) {
  const float sign = (bits & 0x8000u) != 0 ? -1.0f : 1.0f;
  const int exponent = bits >> 10 & 0x1F, fraction = bits & 0x3FF;
  if (exponent == 0x1F) return fraction != 0 ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);  // subnormal, or zero
  return sign * std::ldexp(static_cast<float>(1024 + fraction), exponent - 25);
}

std::uint16_t bf16_bits(float x) {
  // BF16 is the top half of a float: round the float's bits there, ties to even (NaN stays NaN).
  if (std::isnan(x)) return 0x7FC0u;
  const auto bits = std::bit_cast<std::uint32_t>(x);
  return static_cast<std::uint16_t>((bits + 0x7FFFu + (bits >> 16 & 1u)) >> 16);
}

}  // namespace gpulab::mixed
