#pragma once
// Cooperative groups on the emulator: the thread block, warp tiles of 1 to 32 threads (static
// and dynamic), their collectives (sync, shuffles, votes, cg::reduce, cg::inclusive_scan /
// exclusive_scan), tiles of 64 to 512 threads (sync, shfl, any, all, cg::reduce; the
// block_tile_memory a GPU before sm_80 needs for them is accepted and unused) and the grid's
// ranks. A tile's operations use the tile's lanes as their mask, as on the GPU. Not modelled:
// grid-wide sync (this_grid().sync()), coalesced_threads(), clusters. racecheck orders shared
// memory by barriers and __syncwarp(): the sync() of a multi-warp tile smaller than the block does
// not order it for racecheck (a tile of the whole block waits at the block's barrier, which does),
// so hand values between a smaller tile's warps through cg::reduce or shfl.
#include "emulator/language/cuda_language.hpp"

namespace cooperative_groups {

namespace details {
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace details

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const { return details::block_rank(); }
  unsigned long long size() const { return details::block_size(); }
  unsigned long long num_threads() const { return details::block_size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return blockDim; }
};
inline thread_block this_thread_block() { return {}; }

// The scratch space tiles of more than 32 threads use on a GPU before sm_80; the emulator keeps
// a tile's exchanges itself.
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {
  char unused;
};
template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return {};
}

// A group of `n` consecutive lanes of a warp (n a power of two, at most 32).
class thread_group {
 public:
  explicit thread_group(unsigned n) : n_(n) {}
  unsigned mask() const {
    if (n_ >= 32) return 0xFFFFFFFFu;
    return ((1u << n_) - 1) << (details::block_rank() % 32 / n_ * n_);
  }
  void sync() const { __syncwarp(mask()); }
  unsigned long long thread_rank() const { return details::block_rank() % n_; }
  unsigned long long size() const { return n_; }
  unsigned long long num_threads() const { return n_; }
  unsigned long long meta_group_rank() const { return details::block_rank() / n_; }
  unsigned long long meta_group_size() const { return (details::block_size() + n_ - 1) / n_; }
  template <typename T>
  T shfl(T v, int src) const {
    return __shfl_sync(mask(), v, src, static_cast<int>(n_));
  }
  template <typename T>
  T shfl_down(T v, unsigned delta) const {
    return __shfl_down_sync(mask(), v, delta, static_cast<int>(n_));
  }
  template <typename T>
  T shfl_up(T v, unsigned delta) const {
    return __shfl_up_sync(mask(), v, delta, static_cast<int>(n_));
  }
  template <typename T>
  T shfl_xor(T v, unsigned lanes) const {
    return __shfl_xor_sync(mask(), v, static_cast<int>(lanes), static_cast<int>(n_));
  }
  int any(int predicate) const { return __any_sync(mask(), predicate); }
  int all(int predicate) const { return __all_sync(mask(), predicate); }
  unsigned ballot(int predicate) const {  // bit i: the tile's thread i
    return __ballot_sync(mask(), predicate) >> (details::block_rank() % 32 / n_ * n_);
  }
  template <typename T>
  unsigned match_any(T value) const {
    return __match_any_sync(mask(), value) >> (details::block_rank() % 32 / n_ * n_);
  }

 private:
  unsigned n_;
};

// A tile of several warps (64 to 512 threads): its collectives go through the scheduler's
// tile exchange, which waits for every live thread of the tile.
template <unsigned N>
class multi_warp_tile {
  static_assert(N == 64 || N == 128 || N == 256 || N == 512, "a tile of more than 32 threads has 64, 128, 256 or 512");

 public:
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
  unsigned long long thread_rank() const { return details::block_rank() % N; }
  unsigned long long meta_group_rank() const { return details::block_rank() / N; }
  unsigned long long meta_group_size() const { return (details::block_size() + N - 1) / N; }
  // (A tile of the whole block waits at the block's barrier, which racecheck sees as one.)
  void sync() const {
    if (details::block_size() <= N) {
      __syncthreads();
    } else {
      (void)::gpulab::emulated::detail::tile_exchange(N, 0);
    }
  }
  // (The value of thread `src`, which must take part, as on a GPU.)
  template <typename T>
  T shfl(T v, unsigned src) const {
    using ::gpulab::emulated::detail::from_bits, ::gpulab::emulated::detail::to_bits;
    return from_bits<T>(::gpulab::emulated::detail::tile_exchange(N, to_bits(v)).slots[src % N]);
  }
  int any(int predicate) const {
    return fold(predicate != 0, [](int a, int b) { return a | b; });
  }
  int all(int predicate) const {
    return fold(predicate != 0, [](int a, int b) { return a & b; });
  }
  // Every thread's value combined in rank order (the same result in every thread).
  template <typename T, typename Op>
  T fold(T v, Op op) const {
    using ::gpulab::emulated::detail::from_bits, ::gpulab::emulated::detail::to_bits;
    const auto [slots, took_part] = ::gpulab::emulated::detail::tile_exchange(N, to_bits(v));
    T result = v;
    bool first = true;
    for (unsigned r = 0; r < N; ++r) {
      if (!took_part[r]) continue;
      result = first ? from_bits<T>(slots[r]) : op(result, from_bits<T>(slots[r]));
      first = false;
    }
    return result;
  }
};

template <unsigned N, bool MultiWarp = (N > 32)>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "a tile is a power of two of at most 32 threads");

 public:
  thread_block_tile() : thread_group(N) {}
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
};
template <unsigned N>
class thread_block_tile<N, true> : public multi_warp_tile<N> {};

template <unsigned N, typename Parent>
thread_block_tile<N> tiled_partition(const Parent&) {
  return {};
}
inline thread_group tiled_partition(const thread_block&, unsigned n) {
  if (n == 0 || n > 32 || (n & (n - 1)) != 0) {
    ::gpulab::emulated::detail::not_emulated("tiled_partition into tiles that are not a power of two up to 32");
  }
  return thread_group(n);
}

inline void sync(const thread_block& g) { g.sync(); }
inline void sync(const thread_group& g) { g.sync(); }
template <unsigned N>
void sync(const multi_warp_tile<N>& g) {
  g.sync();
}

// The grid: its ranks work; a grid-wide barrier needs every block resident at once, which the
// emulator's block-by-block execution cannot give.
class grid_group {
 public:
  unsigned long long thread_rank() const {
    const unsigned long long block =
        blockIdx.x + gridDim.x * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    return block * details::block_size() + details::block_rank();
  }
  unsigned long long size() const {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z * details::block_size();
  }
  unsigned long long num_threads() const { return size(); }
  bool is_valid() const { return false; }
  void sync() const { ::gpulab::emulated::detail::not_emulated("grid-wide synchronisation (this_grid().sync())"); }
};
inline grid_group this_grid() { return {}; }

// ---- collectives over a tile (cooperative_groups/reduce.h and scan.h)
template <typename T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct less {  // the lesser value, as CUDA's cg::less reduces to a minimum
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <typename T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

template <typename Group, typename T, typename Op>
T reduce(const Group& g, T value, Op op) {
  if constexpr (requires { g.fold(value, op); }) {  // a tile of several warps
    return g.fold(value, op);
  } else {
    for (unsigned offset = static_cast<unsigned>(g.size()) / 2; offset > 0; offset /= 2) {
      value = op(value, g.shfl_xor(value, offset));
    }
    return value;
  }
}
template <typename Group, typename T, typename Op = plus<T>>
T inclusive_scan(const Group& g, T value, Op op = {}) {
  for (unsigned offset = 1; offset < g.size(); offset *= 2) {
    const T other = g.shfl_up(value, offset);
    if (g.thread_rank() >= offset) value = op(value, other);
  }
  return value;
}
template <typename Group, typename T, typename Op = plus<T>>
T exclusive_scan(const Group& g, T value, Op op = {}) {
  const T inclusive = inclusive_scan(g, value, op);
  const T previous = g.shfl_up(inclusive, 1);
  return g.thread_rank() == 0 ? T{} : previous;
}

}  // namespace cooperative_groups
