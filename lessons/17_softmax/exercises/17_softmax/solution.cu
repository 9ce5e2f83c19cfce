// Exercise 17 — softmax over rows, a warp a row. (Solution)

constexpr int kWarpsPerBlock = 8;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols) {
  // SOLUTION: a warp a row; each lane takes every 32nd column; the warp's maximum and sum by shuffles.
  const int r = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the whole warp leaves together, so the shuffles below see all 32 lanes
  const int lane = threadIdx.x % 32;
  const float* in = x + static_cast<long>(r) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += expf(in[c] - m);
  s = warp_sum(s);
  for (int c = lane; c < cols; c += 32) y[static_cast<long>(r) * cols + c] = expf(in[c] - m) / s;
}

void softmax(const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  softmax_kernel<<<(rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock>>>(x, y, rows, cols);
}
