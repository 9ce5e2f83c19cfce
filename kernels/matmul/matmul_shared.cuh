#pragma once
// What lesson 05's rung files share (naive.cu ... pipelined.cu, one rung each): the check of the
// buffers against m, n and k, the block shapes, C for k = 0, and the tile sizes two rungs use.
#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/launch.cuh"
#include "matmul/float4_edges.cuh"

namespace gpulab::matmul {

inline void check_shapes(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("matmul: m, n and k must not be negative");
  const auto sm = static_cast<std::size_t>(m), sn = static_cast<std::size_t>(n), sk = static_cast<std::size_t>(k);
  if (a.size() != sm * sk || b.size() != sk * sn || c.size() != sm * sn) {
    throw std::invalid_argument("matmul: A must hold m·k, B k·n and C m·n floats (m = " + std::to_string(m) +
                                ", n = " + std::to_string(n) + ", k = " + std::to_string(k) + ")");
  }
  // The kernels index with int, as a learner would write them.
  constexpr std::size_t limit = std::size_t{1} << 31;
  if (a.size() >= limit || b.size() >= limit || c.size() >= limit)
    throw std::invalid_argument("matmul: each matrix must have fewer than 2^31 elements");
}

// Whether rows of `row_length` floats from p start on 16 bytes: where they do, the vectorised
// rungs load and store them four floats at a time.
inline bool vector_rows(const float* p, int row_length) { return row_length % 4 == 0 && aligned16(p); }

// register_2d and vectorised: a 128 × 128 tile of C per block of 256 threads, k in steps of 8,
// each thread an 8 × 8 block.
constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
constexpr int kThreads = kBM * kBN / (kTM * kTN);

// warp_tiled and pipelined: blocks of 8 warps; A's shared rows padded by 4 floats.
constexpr int kWarpThreads = 256, kWarpBK = 8, kPadA = 4;

// In each build's own (an unnamed namespace): they use the GPU's or the emulator's CUDA runtime
// and dim3, different types.
namespace {

// Blocks of 32 threads across (x) and `threads / 32` down (y), at least one row (naive, coalesced).
[[maybe_unused]] dim3 block_2d(int threads) { return dim3(32, static_cast<unsigned int>(std::max(1, threads / 32))); }

// C = 0 for k = 0 (A · B of an m × 0 and a 0 × n matrix): all-zero bytes are 0.0f.
bool done_without_products(std::span<float> c, int k) {
  if (c.empty()) return true;
  if (k > 0) return false;
  GPULAB_CUDA_CHECK(cudaMemsetAsync(c.data(), 0, c.size_bytes()));
  return true;
}

}  // namespace

}  // namespace gpulab::matmul
