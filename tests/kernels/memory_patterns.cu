// Kernels with known memory requests, sectors and bank conflicts; see memory_patterns.hpp.
#include <cuda_pipeline.h>

#include <stdexcept>

#include "common/launch.cuh"
#include "kernels/memory_patterns.hpp"

namespace gpulab::memory_patterns {

namespace {

constexpr unsigned kBlock = 256;

__global__ void gather_kernel(const float* in, float* out, std::size_t n, int stride) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * static_cast<std::size_t>(stride)];
}

__global__ void broadcast_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[0];
}

__global__ void copy_float4_kernel(const float4* in, float4* out, std::size_t n4) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

__global__ void shared_strided_kernel(float* out, int stride) {
  __shared__ float cells[32 * 33 * 8];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float* mine = cells + warp * 32 * 33;
  mine[lane * static_cast<unsigned>(stride)] = static_cast<float>(lane);
  __syncwarp();
  out[blockIdx.x * blockDim.x + threadIdx.x] = mine[lane * static_cast<unsigned>(stride)] + 1.0f;
}

__global__ void even_lanes_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n && i % 2 == 0) out[i] = in[i];
}

// Block b: lanes 0-2 and 16-18 copy six consecutive 16-byte pieces from byte 16·b on (cp.async).
__global__ void async_pieces_kernel(const float4* in, float4* out) {
  __shared__ float4 tile[32];
  const unsigned lane = threadIdx.x;
  const int piece = lane < 3 ? static_cast<int>(lane) : lane >= 16 && lane < 19 ? static_cast<int>(lane) - 13 : -1;
  if (piece >= 0) __pipeline_memcpy_async(&tile[lane], in + blockIdx.x + piece, 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncwarp();
  if (piece >= 0) out[blockIdx.x * 32 + lane] = tile[lane];
}

dim3 blocks(std::size_t n) { return dim3(static_cast<unsigned>((n + kBlock - 1) / kBlock)); }
const dim3 kThreads(kBlock);

}  // namespace

void gather_strided(std::span<const float> in, std::span<float> out, int stride) {
  if (out.size() * static_cast<std::size_t>(stride) > in.size()) throw std::invalid_argument("gather: input too short");
  gather_kernel<<<blocks(out.size()), kThreads>>>(in.data(), out.data(), out.size(), stride);
  check_launch("gather_kernel", blocks(out.size()), kThreads);
}

void broadcast(std::span<const float> in, std::span<float> out) {
  broadcast_kernel<<<blocks(out.size()), kThreads>>>(in.data(), out.data(), out.size());
  check_launch("broadcast_kernel", blocks(out.size()), kThreads);
}

void copy_float4(std::span<const float> in, std::span<float> out) {
  const std::size_t n4 = out.size() / 4;
  copy_float4_kernel<<<blocks(n4), kThreads>>>(reinterpret_cast<const float4*>(in.data()),
                                               reinterpret_cast<float4*>(out.data()), n4);
  check_launch("copy_float4_kernel", blocks(n4), kThreads);
}

void shared_strided(std::span<float> out, int stride) {
  if (stride < 1 || stride > 33) throw std::invalid_argument("shared_strided: stride 1 to 33");
  shared_strided_kernel<<<blocks(out.size()), kThreads>>>(out.data(), stride);
  check_launch("shared_strided_kernel", blocks(out.size()), kThreads);
}

void even_lanes(std::span<const float> in, std::span<float> out) {
  even_lanes_kernel<<<blocks(out.size()), kThreads>>>(in.data(), out.data(), out.size());
  check_launch("even_lanes_kernel", blocks(out.size()), kThreads);
}

void async_pieces(std::span<const float> in, std::span<float> out) {
  if (in.size() < 4 * 14 || out.size() < 4 * 32 * 8) throw std::invalid_argument("async_pieces: arrays too short");
  async_pieces_kernel<<<8, 32>>>(reinterpret_cast<const float4*>(in.data()), reinterpret_cast<float4*>(out.data()));
  check_launch("async_pieces_kernel", dim3(8), dim3(32));
}

}  // namespace gpulab::memory_patterns
