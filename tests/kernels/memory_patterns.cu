// Kernels with known memory requests, sectors and bank conflicts; see memory_patterns.hpp.
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

}  // namespace gpulab::memory_patterns
