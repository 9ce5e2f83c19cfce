#pragma once
// Warp shuffles, votes, matches and reductions, and atomics with CUDA's overloads: part of the CUDA device language on
// the emulator (cuda_language.hpp, which includes it after its macros and built-in variables; not to be included
// alone).

// ---- warp shuffles, votes, matches and reductions (the lanes of `mask` take part)
template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane / width * width + ((src_lane % width) + width) % width,
                                             width);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane - static_cast<long>(delta), width);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane + static_cast<long>(delta), width);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane ^ static_cast<long>(lane_mask), width);
}
namespace gpulab::emulated::detail {
struct Vote {
  unsigned bits, lanes;
};
inline Vote ballot(unsigned mask, int predicate) {
  const Exchange e = warp_exchange(mask, predicate != 0);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) != 0 && e.slots[lane] != 0) bits |= 1u << lane;
  }
  return {bits, e.lanes};
}
}  // namespace gpulab::emulated::detail
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::gpulab::emulated::detail::ballot(mask, predicate).bits;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
  const auto vote = ::gpulab::emulated::detail::ballot(mask, predicate);
  return vote.bits == vote.lanes;
}
inline int __uni_sync(unsigned mask, int predicate) {
  const auto vote = ::gpulab::emulated::detail::ballot(mask, predicate);
  return vote.bits == 0 || vote.bits == vote.lanes;
}
// The lanes that have not exited. (A GPU gives the lanes converged at this instruction; the
// emulator's lanes do not run in lockstep, so it cannot tell which of them would be.)
inline unsigned __activemask() { return ::gpulab::emulated::detail::live_lanes(); }
inline unsigned __lanemask_lt() { return (1u << ::gpulab::emulated::detail::lane_id()) - 1u; }
namespace gpulab::emulated::detail {
template <typename T>
Vote match(unsigned mask, T value) {
  const std::uint64_t mine = to_bits(value);
  const Exchange e = warp_exchange(mask, mine);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) != 0 && e.slots[lane] == mine) bits |= 1u << lane;
  }
  return {bits, e.lanes};
}
}  // namespace gpulab::emulated::detail
template <typename T>
unsigned __match_any_sync(unsigned mask, T value) {
  return ::gpulab::emulated::detail::match(mask, value).bits;
}
template <typename T>
unsigned __match_all_sync(unsigned mask, T value, int* pred) {
  const auto same = ::gpulab::emulated::detail::match(mask, value);
  *pred = same.bits == same.lanes;
  return same.bits == same.lanes ? same.lanes : 0u;
}
namespace gpulab::emulated::detail {
template <typename T, typename Combine>
T warp_reduce(unsigned mask, T value, Combine combine) {
  const Exchange e = warp_exchange(mask, to_bits(value));
  bool first = true;
  T result{};
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) == 0) continue;
    const T v = from_bits<T>(e.slots[lane]);
    result = first ? v : combine(result, v);
    first = false;
  }
  return result;
}
}  // namespace gpulab::emulated::detail
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a + b; });
}
inline int __reduce_add_sync(unsigned mask, int v) {
  return static_cast<int>(__reduce_add_sync(mask, static_cast<unsigned>(v)));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a < b ? a : b; });
}
inline int __reduce_min_sync(unsigned mask, int v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](int a, int b) { return a < b ? a : b; });
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a > b ? a : b; });
}
inline int __reduce_max_sync(unsigned mask, int v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](int a, int b) { return a > b ? a : b; });
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a & b; });
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a | b; });
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a ^ b; });
}

// ---- atomics, with CUDA's overloads: the value converts to the pointee's type, so
// atomicAdd(&count, 1) works on an unsigned int* as it does with nvcc. Blocks run in parallel on
// several cores, so these are real atomics.
// atomicAdd(&x, v) is std::atomic_ref(x).fetch_add(v), and so on.
// (In checked mode the compiler's instrumentation hands each atomic operation to the checks as
// one: never a race.)
#define GPULAB_ATOMIC(name, member)                    \
  template <typename T>                                \
  T name(T* address, std::type_identity_t<T> value) {  \
    return std::atomic_ref<T>(*address).member(value); \
  }
GPULAB_ATOMIC(atomicAdd, fetch_add)
GPULAB_ATOMIC(atomicSub, fetch_sub)
GPULAB_ATOMIC(atomicExch, exchange)
GPULAB_ATOMIC(atomicAnd, fetch_and)
GPULAB_ATOMIC(atomicOr, fetch_or)
GPULAB_ATOMIC(atomicXor, fetch_xor)
#undef GPULAB_ATOMIC
template <typename T>
T atomicCAS(T* address, std::type_identity_t<T> compare, std::type_identity_t<T> value) {
  std::atomic_ref<T>(*address).compare_exchange_strong(compare, value);
  return compare;  // the old value, as CUDA returns it
}
namespace gpulab::emulated::detail {
// Replaces *address with next(old) while `replaces(old)` holds; returns the old value.
template <typename T, typename Replaces, typename Next>
T atomic_update(T* address, Replaces replaces, Next next) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load();
  while (replaces(old) && !ref.compare_exchange_weak(old, next(old))) {
  }
  return old;
}
}  // namespace gpulab::emulated::detail
template <typename T>
T atomicMax(T* address, std::type_identity_t<T> value) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [value](T old) { return old < value; }, [value](T) { return value; });
}
template <typename T>
T atomicMin(T* address, std::type_identity_t<T> value) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [value](T old) { return value < old; }, [value](T) { return value; });
}
// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1), as CUDA's.
inline unsigned atomicInc(unsigned* address, unsigned limit) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [](unsigned) { return true; }, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned atomicDec(unsigned* address, unsigned limit) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [](unsigned) { return true; },
      [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
// The _block and _system scopes are the same atomics here.
#define GPULAB_ATOMIC_SCOPES(name)                                       \
  template <typename T, typename... Rest>                                \
  T name##_block(T* address, Rest... rest) {                             \
    return name(address, static_cast<std::type_identity_t<T>>(rest)...); \
  }                                                                      \
  template <typename T, typename... Rest>                                \
  T name##_system(T* address, Rest... rest) {                            \
    return name(address, static_cast<std::type_identity_t<T>>(rest)...); \
  }
GPULAB_ATOMIC_SCOPES(atomicAdd)
GPULAB_ATOMIC_SCOPES(atomicSub)
GPULAB_ATOMIC_SCOPES(atomicExch)
GPULAB_ATOMIC_SCOPES(atomicCAS)
GPULAB_ATOMIC_SCOPES(atomicAnd)
GPULAB_ATOMIC_SCOPES(atomicOr)
GPULAB_ATOMIC_SCOPES(atomicXor)
GPULAB_ATOMIC_SCOPES(atomicMax)
GPULAB_ATOMIC_SCOPES(atomicMin)
#undef GPULAB_ATOMIC_SCOPES
