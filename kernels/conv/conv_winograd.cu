// Convolution by Winograd's minimal filtering F(2×2, 3×3) (conv.hpp has the API): transforms that
// turn 36 multiplies per 2 × 2 outputs into 16, for 3 × 3 filters with stride 1.
//
// Run them: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "conv/conv_tiles.cuh"
#include "matmul/matmul.hpp"

namespace gpulab::conv {

// ---------------------------------------------------------------- 5. Winograd F(2×2, 3×3)

// [snippet:winograd]
// For a 2 × 2 block of outputs, a 4 × 4 input tile d and a 3 × 3 filter g:
//   Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
// with the 4 × 4 product ⊙ element by element: 16 multiplies where the direct way needs 36. The
// transforms are additions (and halves), and G g Gᵀ is computed once per filter. Summed over
// channels, the 16 element-wise products become 16 independent matrix products:
//   M[e] (K × tiles) = U[e] (K × C) · V[e] (C × tiles),  e = 0 … 15,
// which lesson 05's GEMM computes. The price: extra rounding in the transforms, and the
// transformed tiles travel through global memory.

// U[e][k][c] = (G g Gᵀ)[e] with G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1].
__global__ void winograd_filter_kernel(const float* w, float* u, int K, int C) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // = k · C + c
  if (i >= K * C) return;
  const float* g = w + i * 9;
  float gg[4][3];  // G g
  for (int col = 0; col < 3; ++col) {
    const float a = g[col], b = g[3 + col], c = g[6 + col];
    gg[0][col] = a;
    gg[1][col] = 0.5f * (a + b + c);
    gg[2][col] = 0.5f * (a - b + c);
    gg[3][col] = c;
  }
  for (int row = 0; row < 4; ++row) {  // (G g) Gᵀ
    const float a = gg[row][0], b = gg[row][1], c = gg[row][2];
    const float out[4] = {a, 0.5f * (a + b + c), 0.5f * (a - b + c), c};
    for (int col = 0; col < 4; ++col) u[static_cast<long>(row * 4 + col) * K * C + i] = out[col];
  }
}

// V[e][c][tile] = (Bᵀ d B)[e] with Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]; one thread per (c, tile).
__global__ void winograd_input_kernel(const float* x, float* v, Shape sh, int tiles_p, int tiles_q) {
  const int C = sh.c, H = sh.h, W = sh.w;
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;  // = c · tiles + tile
  if (i >= C * tiles) return;
  const int c = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  const float* plane = x + static_cast<long>(n * C + c) * H * W;
  float d[4][4];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      const int h = 2 * tp - sh.pad + a, col = 2 * tq - sh.pad + b;
      d[a][b] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
  }
  float bd[4][4];  // Bᵀ d
  for (int b = 0; b < 4; ++b) {
    bd[0][b] = d[0][b] - d[2][b];
    bd[1][b] = d[1][b] + d[2][b];
    bd[2][b] = d[2][b] - d[1][b];
    bd[3][b] = d[1][b] - d[3][b];
  }
  for (int a = 0; a < 4; ++a) {  // (Bᵀ d) B
    const float out[4] = {bd[a][0] - bd[a][2], bd[a][1] + bd[a][2], bd[a][2] - bd[a][1], bd[a][1] - bd[a][3]};
    for (int b = 0; b < 4; ++b) v[(static_cast<long>(a * 4 + b) * C + c) * tiles + tile] = out[b];
  }
}

// y's 2 × 2 block = Aᵀ M A with Aᵀ = [1 1 1 0; 0 1 −1 −1]; one thread per (k, tile).
__global__ void winograd_output_kernel(const float* m, float* y, Shape sh, int tiles_p, int tiles_q) {
  const int K = sh.k, P = sh.p(), Q = sh.q();
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;  // = k · tiles + tile
  if (i >= K * tiles) return;
  const int k = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  float e[4][4];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) e[a][b] = m[(static_cast<long>(a * 4 + b) * K + k) * tiles + tile];
  }
  float am[2][4];  // Aᵀ M
  for (int b = 0; b < 4; ++b) {
    am[0][b] = e[0][b] + e[1][b] + e[2][b];
    am[1][b] = e[1][b] - e[2][b] - e[3][b];
  }
  for (int a = 0; a < 2; ++a) {
    const float out[2] = {am[a][0] + am[a][1] + am[a][2], am[a][1] - am[a][2] - am[a][3]};
    for (int b = 0; b < 2; ++b) {
      const int p = 2 * tp + a, q = 2 * tq + b;
      if (p < P && q < Q) y[(static_cast<long>(n * K + k) * P + p) * Q + q] = out[b];
    }
  }
}
// [/snippet]

bool winograd_applies(const Shape& shape) { return shape.r == 3 && shape.s == 3 && shape.stride == 1; }

std::size_t winograd_workspace(const Shape& shape) { return winograd_floats(shape, 2); }

void winograd(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
              std::span<float> workspace) {
  const WinogradPlan plan = winograd_buffers("winograd", x, w, y, shape, workspace, 2);
  if (y.empty()) return;
  const std::size_t K = shape.k, C = shape.c, T = plan.tiles;
  const dim3 filters(blocks_for(static_cast<long>(K * C), 256)), inputs(blocks_for(static_cast<long>(C * T), 256));
  winograd_filter_kernel<<<filters, dim3(256)>>>(w.data(), plan.u, shape.k, shape.c);
  check_launch("winograd_filter_kernel", filters, dim3(256));
  winograd_input_kernel<<<inputs, dim3(256)>>>(x.data(), plan.v, shape, plan.tiles_p, plan.tiles_q);
  check_launch("winograd_input_kernel", inputs, dim3(256));
  for (std::size_t e = 0; e < 16; ++e) {
    matmul::warp_tiled({plan.u + e * K * C, K * C}, {plan.v + e * C * T, C * T}, {plan.m + e * K * T, K * T}, shape.k,
                       static_cast<int>(T), shape.c);
  }
  const dim3 outputs(blocks_for(static_cast<long>(K * T), 256));
  winograd_output_kernel<<<outputs, dim3(256)>>>(plan.m, y.data(), shape, plan.tiles_p, plan.tiles_q);
  check_launch("winograd_output_kernel", outputs, dim3(256));
}

}  // namespace gpulab::conv
