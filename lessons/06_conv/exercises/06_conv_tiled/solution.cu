// Exercise 06c — a shared-memory convolution of your own. (Solution: 06_conv's, fixed)

#define TILE 16

// The input rows (or columns) a tile of TILE outputs reads: the windows' starts, `stride` apart,
// plus one window.
__host__ __device__ int tile_extent(int filter, int stride) { return (TILE - 1) * stride + filter; }

__global__ void conv_tiled(const float* x, const float* w, float* y, int C, int H, int W, int K, int R, int S, int pad,
                           int stride, int P, int Q) {
  extern __shared__ float tile[];
  const int tile_h = tile_extent(R, stride), tile_w = tile_extent(S, stride);
  const int n = blockIdx.z / K, k = blockIdx.z % K;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int p = blockIdx.y * TILE + ty, q = blockIdx.x * TILE + tx;
  // The tile's first input row and column (negative inside the padding).
  const int h0 = blockIdx.y * TILE * stride - pad;
  const int w0 = blockIdx.x * TILE * stride - pad;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    const float* plane = x + (n * C + c) * H * W;
    for (int i = ty * TILE + tx; i < tile_h * tile_w; i += TILE * TILE) {
      const int h = h0 + i / tile_w, col = w0 + i % tile_w;
      tile[i] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
    __syncthreads();
    for (int r = 0; r < R; ++r) {
      for (int s = 0; s < S; ++s)
        sum += tile[(ty * stride + r) * tile_w + tx * stride + s] * w[((k * C + c) * R + r) * S + s];
    }
    __syncthreads();
  }
  if (p < P && q < Q) y[((n * K + k) * P + p) * Q + q] = sum;
}

void conv(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S, int pad,
          int stride) {
  const int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;
  if (N * K * P * Q == 0) return;
  const dim3 grid((Q + TILE - 1) / TILE, (P + TILE - 1) / TILE, N * K);
  const size_t shared = sizeof(float) * tile_extent(R, stride) * tile_extent(S, stride);
  conv_tiled<<<grid, dim3(TILE, TILE), shared>>>(x, w, y, C, H, W, K, R, S, pad, stride, P, Q);
}
