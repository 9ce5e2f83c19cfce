#pragma once
// cuRAND's device API on the emulator: a kernel's own generators — curand_init, then curand,
// curand_uniform, curand_normal and their double, pair and log-normal forms — for the XORWOW state
// (curandState, cuRAND's default) and Philox4_32_10 (curand4, curand_uniform4, curand_normal4).
// As with the host API (curand.h), the distributions are cuRAND's and the numbers are not: XORWOW
// here is Marsaglia's generator seeded from (seed, subsequence) through SplitMix64 (not cuRAND's
// skip-ahead tables), Philox is Salmon et al.'s Philox-4x32-10 keyed by the seed and counting from
// (offset, subsequence). A state lives where the kernel keeps it (a local copy, or an array in
// device memory), and its reads and writes are checked like any other.
#include <cmath>
#include <cstdint>

#include "curand.h"

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2PI (6.2831855f)

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;  // which word of output is next (0-3)
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

namespace gpulab::emulated::rand {

inline unsigned int next(curandStateXORWOW* s) {
  const unsigned int t = s->v[0] ^ (s->v[0] >> 2);
  s->v[0] = s->v[1], s->v[1] = s->v[2], s->v[2] = s->v[3], s->v[3] = s->v[4];
  s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
  s->d += 362437;
  return s->v[4] + s->d;
}

// Philox-4x32-10: ten rounds of two multiplications and a key schedule, on a 128-bit counter.
inline uint4 philox(uint4 c, uint2 k) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c.x, p1 = std::uint64_t{0xCD9E8D57u} * c.z;
    c = {static_cast<unsigned>(p1 >> 32) ^ c.y ^ k.x, static_cast<unsigned>(p1),
         static_cast<unsigned>(p0 >> 32) ^ c.w ^ k.y, static_cast<unsigned>(p0)};
    k.x += 0x9E3779B9u, k.y += 0xBB67AE85u;
  }
  return c;
}
inline void advance(uint4& c) {
  if (++c.x == 0 && ++c.y == 0 && ++c.z == 0) ++c.w;
}
inline unsigned int next(curandStatePhilox4_32_10* s) {
  if (s->STATE == 0) s->output = philox(s->ctr, s->key);
  const unsigned int r = s->STATE == 0   ? s->output.x
                         : s->STATE == 1 ? s->output.y
                         : s->STATE == 2 ? s->output.z
                                         : s->output.w;
  if (++s->STATE == 4) s->STATE = 0, advance(s->ctr);
  return r;
}

inline float uniform(unsigned int x) { return x * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f; }  // (0, 1]
inline double uniform_double(unsigned int hi, unsigned int lo) {
  return (static_cast<double>((std::uint64_t{hi} << 21) ^ lo) + 0.5) * 0x1.0p-53;
}

template <typename State>
float normal(State* s) {
  if (s->boxmuller_flag != 0) {
    s->boxmuller_flag = 0;
    return s->boxmuller_extra;
  }
  const float r = std::sqrt(-2.0f * std::log(uniform(next(s)))), angle = CURAND_2PI * uniform(next(s));
  s->boxmuller_extra = r * std::sin(angle);
  s->boxmuller_flag = 1;
  return r * std::cos(angle);
}
template <typename State>
double normal_double(State* s) {
  if (s->boxmuller_flag_double != 0) {
    s->boxmuller_flag_double = 0;
    return s->boxmuller_extra_double;
  }
  const double u1 = uniform_double(next(s), next(s)), u2 = uniform_double(next(s), next(s));
  const double r = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
  s->boxmuller_extra_double = r * std::sin(angle);
  s->boxmuller_flag_double = 1;
  return r * std::cos(angle);
}

}  // namespace gpulab::emulated::rand

// The state for (seed, subsequence), `offset` numbers into it: subsequences of one seed are
// independent streams (here by seeding, not by cuRAND's 2^67-apart skip-ahead).
inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateXORWOW* state) {
  using gpulab::mix64;
  const std::uint64_t a = mix64(seed ^ 0xAAAAAAAAAAAAAAAAull), b = mix64(a + mix64(subsequence)), c = mix64(b);
  // Built whole, then stored whole: every byte of the state (its padding too) is written, so a
  // later copy of the whole state reads nothing uninitialised.
  curandStateXORWOW s{};
  s.v[0] = static_cast<unsigned>(b) | 1u;  // never all zero
  s.v[1] = static_cast<unsigned>(b >> 32);
  s.v[2] = static_cast<unsigned>(c);
  s.v[3] = static_cast<unsigned>(c >> 32);
  s.v[4] = static_cast<unsigned>(mix64(c));
  s.d = static_cast<unsigned>(mix64(c) >> 32);
  for (unsigned long long i = 0; i < offset; ++i) gpulab::emulated::rand::next(&s);
  *state = s;
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStatePhilox4_32_10* state) {
  curandStatePhilox4_32_10 s{};  // whole, as for XORWOW
  s.key = {static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
  s.ctr = {static_cast<unsigned>(offset / 4), static_cast<unsigned>(offset / 4 >> 32),
           static_cast<unsigned>(subsequence), static_cast<unsigned>(subsequence >> 32)};
  for (unsigned long long i = 0; i < offset % 4; ++i) gpulab::emulated::rand::next(&s);
  *state = s;
}

template <typename State>
inline unsigned int curand(State* state) {
  return gpulab::emulated::rand::next(state);
}
template <typename State>
inline float curand_uniform(State* state) {
  return gpulab::emulated::rand::uniform(gpulab::emulated::rand::next(state));
}
template <typename State>
inline double curand_uniform_double(State* state) {
  const unsigned hi = gpulab::emulated::rand::next(state);
  return gpulab::emulated::rand::uniform_double(hi, gpulab::emulated::rand::next(state));
}
template <typename State>
inline float curand_normal(State* state) {
  return gpulab::emulated::rand::normal(state);
}
template <typename State>
inline double curand_normal_double(State* state) {
  return gpulab::emulated::rand::normal_double(state);
}
template <typename State>
inline float2 curand_normal2(State* state) {
  const float a = curand_normal(state);
  return {a, curand_normal(state)};
}
template <typename State>
inline float curand_log_normal(State* state, float mean, float stddev) {
  return std::exp(mean + stddev * curand_normal(state));
}
template <typename State>
inline double curand_log_normal_double(State* state, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(state));
}
inline uint4 curand4(curandStatePhilox4_32_10* state) {
  uint4 r;
  r.x = curand(state), r.y = curand(state), r.z = curand(state), r.w = curand(state);
  return r;
}
inline float4 curand_uniform4(curandStatePhilox4_32_10* state) {
  float4 r;
  r.x = curand_uniform(state), r.y = curand_uniform(state), r.z = curand_uniform(state), r.w = curand_uniform(state);
  return r;
}
inline float4 curand_normal4(curandStatePhilox4_32_10* state) {
  float4 r;
  r.x = curand_normal(state), r.y = curand_normal(state), r.z = curand_normal(state), r.w = curand_normal(state);
  return r;
}
// Moves the state n numbers on (skipahead) or n subsequences on (skipahead_sequence).
template <typename State>
inline void skipahead(unsigned long long n, State* state) {
  for (unsigned long long i = 0; i < n; ++i) gpulab::emulated::rand::next(state);
}
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10* state) {
  const std::uint64_t s = ((std::uint64_t{state->ctr.w} << 32) | state->ctr.z) + n;
  state->ctr.z = static_cast<unsigned>(s), state->ctr.w = static_cast<unsigned>(s >> 32);
}
