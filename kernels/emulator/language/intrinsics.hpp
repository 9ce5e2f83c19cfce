#pragma once
// min and max, the math, bit and conversion intrinsics, loads and stores with cache hints and
// the clocks: part of the CUDA device language on the emulator (cuda_language.hpp, which includes it after
// its macros and built-in variables; not to be included alone).

// ---- min and max: CUDA's overloads for host and device code
#define GPULAB_MIN_MAX(A, B, R)                                                                                    \
  inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  inline R max(A a, B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
GPULAB_MIN_MAX(int, int, int)
GPULAB_MIN_MAX(unsigned int, unsigned int, unsigned int)
GPULAB_MIN_MAX(int, unsigned int, unsigned int)
GPULAB_MIN_MAX(unsigned int, int, unsigned int)
GPULAB_MIN_MAX(long, long, long)
GPULAB_MIN_MAX(unsigned long, unsigned long, unsigned long)
GPULAB_MIN_MAX(long, unsigned long, unsigned long)
GPULAB_MIN_MAX(unsigned long, long, unsigned long)
GPULAB_MIN_MAX(long long, long long, long long)
GPULAB_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
GPULAB_MIN_MAX(long long, unsigned long long, unsigned long long)
GPULAB_MIN_MAX(unsigned long long, long long, unsigned long long)
GPULAB_MIN_MAX(float, float, float)
GPULAB_MIN_MAX(double, double, double)
GPULAB_MIN_MAX(float, double, double)
GPULAB_MIN_MAX(double, float, double)
#undef GPULAB_MIN_MAX
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }

// ---- math intrinsics. The fast GPU versions (__expf, ...) trade accuracy for speed; here they
// are the exact library functions, so an emulated run does not show their error. (glibc's
// math.h already declares __expf and its kin, hence inline and noexcept rather than static.)
inline float __expf(float x) noexcept { return expf(x); }
inline float __exp10f(float x) noexcept { return powf(10.0f, x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __log2f(float x) noexcept { return log2f(x); }
inline float __log10f(float x) noexcept { return log10f(x); }
inline float __sinf(float x) noexcept { return sinf(x); }
inline float __cosf(float x) noexcept { return cosf(x); }
inline float __tanf(float x) noexcept { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) noexcept { *s = sinf(x), *c = cosf(x); }
inline float __powf(float x, float y) noexcept { return powf(x, y); }
static inline float __fdividef(float x, float y) { return x / y; }
static inline float fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static inline float sinpif(float x) { return sinf(3.14159265358979f * x); }
static inline float cospif(float x) { return cosf(3.14159265358979f * x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x), *c = cospif(x); }
static inline double sinpi(double x) { return std::sin(3.141592653589793 * x); }
static inline double cospi(double x) { return std::cos(3.141592653589793 * x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678f); }
static inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.7071067811865476); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
static inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
static inline float __fadd_rn(float x, float y) { return x + y; }
static inline float __fsub_rn(float x, float y) { return x - y; }
static inline float __fmul_rn(float x, float y) { return x * y; }
static inline float __fdiv_rn(float x, float y) { return x / y; }
static inline double __dadd_rn(double x, double y) { return x + y; }
static inline double __dsub_rn(double x, double y) { return x - y; }
static inline double __dmul_rn(double x, double y) { return x * y; }
static inline double __ddiv_rn(double x, double y) { return x / y; }

// ---- bit intrinsics
static inline int __popc(unsigned x) { return std::popcount(x); }
static inline int __popcll(unsigned long long x) { return std::popcount(x); }
static inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
static inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
static inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
static inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1; }
static inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return r;
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31u)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift > 32 ? 32 : shift)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift & 31u));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift > 32 ? 32 : shift));
}
static inline int __mul24(int x, int y) { return (x << 8 >> 8) * (y << 8 >> 8); }
static inline unsigned __umul24(unsigned x, unsigned y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
static inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
static inline unsigned __umulhi(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
static inline long long __mul64hi(long long x, long long y) {
  __extension__ using wide = __int128;
  return static_cast<long long>((static_cast<wide>(x) * y) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  __extension__ using wide = unsigned __int128;
  return static_cast<unsigned long long>((static_cast<wide>(x) * y) >> 64);
}
static inline unsigned __sad(int x, int y, unsigned z) {
  return (x > y ? static_cast<unsigned>(x - y) : static_cast<unsigned>(y - x)) + z;
}
static inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
static inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
static inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
static inline unsigned __uhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
static inline unsigned __urhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

// ---- reinterpretations and conversions with CUDA's rounding modes
static inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
static inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
static inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
static inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
static inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
static inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
static inline int __double2hiint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) >> 32); }
static inline int __double2loint(double x) {
  return static_cast<int>(std::bit_cast<unsigned long long>(x) & 0xFFFFFFFFu);
}
static inline double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
                               static_cast<unsigned>(lo));
}
namespace gpulab::emulated::detail {
// x rounded to an integer in the mode named by the suffix: rn (nearest, ties to even), rz
// (towards zero), ru (up), rd (down).
inline double round_mode(double x, char mode) {
  switch (mode) {
    case 'z':
      return std::trunc(x);
    case 'u':
      return std::ceil(x);
    case 'd':
      return std::floor(x);
    default:
      return std::nearbyint(x);
  }
}
// A float or double to an integer type, saturating as the GPU does (NaN gives 0 or the minimum).
template <typename I>
I to_integer(double x, char mode) {
  if (std::isnan(x)) return std::is_signed_v<I> ? static_cast<I>(std::numeric_limits<I>::min()) : I{0};
  const double r = round_mode(x, mode);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
// A wider value to float, rounded in a direction: the nearest float, then one step if it went
// the wrong way.
inline float to_float(long double x, char mode) {
  float f = static_cast<float>(x);
  if (mode == 'u' && static_cast<long double>(f) < x) f = std::nextafter(f, INFINITY);
  if (mode == 'd' && static_cast<long double>(f) > x) f = std::nextafter(f, -INFINITY);
  if (mode == 'z' && std::fabs(static_cast<long double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return f;
}
}  // namespace gpulab::emulated::detail
#define GPULAB_ROUNDED(mode, m)                                                                                 \
  static inline int __float2int_##mode(float x) { return ::gpulab::emulated::detail::to_integer<int>(x, m); }   \
  static inline unsigned __float2uint_##mode(float x) {                                                         \
    return ::gpulab::emulated::detail::to_integer<unsigned>(x, m);                                              \
  }                                                                                                             \
  static inline long long __float2ll_##mode(float x) {                                                          \
    return ::gpulab::emulated::detail::to_integer<long long>(x, m);                                             \
  }                                                                                                             \
  static inline unsigned long long __float2ull_##mode(float x) {                                                \
    return ::gpulab::emulated::detail::to_integer<unsigned long long>(x, m);                                    \
  }                                                                                                             \
  static inline int __double2int_##mode(double x) { return ::gpulab::emulated::detail::to_integer<int>(x, m); } \
  static inline unsigned __double2uint_##mode(double x) {                                                       \
    return ::gpulab::emulated::detail::to_integer<unsigned>(x, m);                                              \
  }                                                                                                             \
  static inline long long __double2ll_##mode(double x) {                                                        \
    return ::gpulab::emulated::detail::to_integer<long long>(x, m);                                             \
  }                                                                                                             \
  static inline float __int2float_##mode(int x) { return ::gpulab::emulated::detail::to_float(x, m); }          \
  static inline float __uint2float_##mode(unsigned x) { return ::gpulab::emulated::detail::to_float(x, m); }    \
  static inline float __ll2float_##mode(long long x) { return ::gpulab::emulated::detail::to_float(x, m); }     \
  static inline float __double2float_##mode(double x) { return ::gpulab::emulated::detail::to_float(x, m); }
GPULAB_ROUNDED(rn, 'n')
GPULAB_ROUNDED(rz, 'z')
GPULAB_ROUNDED(ru, 'u')
GPULAB_ROUNDED(rd, 'd')
#undef GPULAB_ROUNDED
static inline double __int2double_rn(int x) { return x; }
static inline double __uint2double_rn(unsigned x) { return x; }

// ---- loads and stores with cache hints: plain accesses here
#define GPULAB_HINTED_LOAD(name) \
  template <typename T>          \
  T name(const T* p) {           \
    return *p;                   \
  }
#define GPULAB_HINTED_STORE(name) \
  template <typename T>           \
  void name(T* p, T v) {          \
    *p = v;                       \
  }
GPULAB_HINTED_LOAD(__ldg)
GPULAB_HINTED_LOAD(__ldcg)
GPULAB_HINTED_LOAD(__ldca)
GPULAB_HINTED_LOAD(__ldcs)
GPULAB_HINTED_LOAD(__ldlu)
GPULAB_HINTED_LOAD(__ldcv)
GPULAB_HINTED_STORE(__stwb)
GPULAB_HINTED_STORE(__stcg)
GPULAB_HINTED_STORE(__stcs)
GPULAB_HINTED_STORE(__stwt)
#undef GPULAB_HINTED_LOAD
#undef GPULAB_HINTED_STORE

// ---- clocks: CPU time, in nanoseconds
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void __nanosleep(unsigned) {}
