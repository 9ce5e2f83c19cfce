// Convolution on the CPU: the direct loops (every core, vectorised along output rows) and the
// lowering to a matrix product (im2col + OpenBLAS).
#include <cblas.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "conv/conv.hpp"

namespace gpulab::conv {

namespace {

void check_buffers(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  check_shape(shape);
  if (x.size() != shape.input_size() || w.size() != shape.filter_size() || y.size() != shape.output_size()) {
    throw std::invalid_argument("conv: x, w and y must hold N·C·H·W, K·C·R·S and N·K·P·Q floats for " +
                                to_string(shape));
  }
}

// The outputs q of a row whose tap s lands inside the image: 0 <= q·stride − pad + s < W.
struct Span1d {
  int first, end;
};
Span1d valid_outputs(int s, const Shape& sh) {
  const int q_count = sh.q();
  int first = 0;
  while (first < q_count && first * sh.stride - sh.pad + s < 0) ++first;
  int end = q_count;
  while (end > first && (end - 1) * sh.stride - sh.pad + s >= sh.w) --end;
  return {first, end};
}

}  // namespace

// [snippet:cpu_direct]
void cpu_direct(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  check_buffers(x, w, y, shape);
  const Shape sh = shape;
  const int P = sh.p(), Q = sh.q();
  std::vector<Span1d> taps(static_cast<std::size_t>(sh.s));
  for (int s = 0; s < sh.s; ++s) taps[static_cast<std::size_t>(s)] = valid_outputs(s, sh);
  const long rows = static_cast<long>(sh.n) * sh.k * P;
  // One output row (n, k, p) per iteration, rows spread over the cores.
#pragma omp parallel for schedule(static)
  for (long row = 0; row < rows; ++row) {
    const int p = static_cast<int>(row % P), k = static_cast<int>(row / P % sh.k), n = static_cast<int>(row / P / sh.k);
    float* out = y.data() + row * Q;
    std::fill(out, out + Q, 0.0f);
    for (int c = 0; c < sh.c; ++c) {
      for (int r = 0; r < sh.r; ++r) {
        const int h = p * sh.stride - sh.pad + r;
        if (h < 0 || h >= sh.h) continue;
        const float* in = x.data() + ((static_cast<long>(n) * sh.c + c) * sh.h + h) * sh.w;
        const float* taps_w = w.data() + ((static_cast<long>(k) * sh.c + c) * sh.r + r) * sh.s;
        for (int s = 0; s < sh.s; ++s) {
          const float weight = taps_w[s];
          const Span1d span = taps[static_cast<std::size_t>(s)];
          const int shift = s - sh.pad;
          // The loop the compiler vectorises (contiguous for stride 1).
          for (int q = span.first; q < span.end; ++q) out[q] += weight * in[q * sh.stride + shift];
        }
      }
    }
  }
}
// [/snippet]

// [snippet:cpu_im2col]
void cpu_im2col(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  check_buffers(x, w, y, shape);
  const Shape sh = shape;
  const int P = sh.p(), Q = sh.q(), crs = sh.c * sh.r * sh.s, pq = P * Q;
  if (y.empty()) return;
  std::vector<float> columns(static_cast<std::size_t>(crs) * pq);
  for (int n = 0; n < sh.n; ++n) {
    // Row (c, r, s) of the matrix: the input value each output position multiplies by w[·][c][r][s].
#pragma omp parallel for schedule(static)
    for (int row = 0; row < crs; ++row) {
      const int s = row % sh.s, r = row / sh.s % sh.r, c = row / (sh.r * sh.s);
      const float* plane = x.data() + (static_cast<long>(n) * sh.c + c) * sh.h * sh.w;
      float* out = columns.data() + static_cast<long>(row) * pq;
      for (int p = 0; p < P; ++p) {
        const int h = p * sh.stride - sh.pad + r;
        for (int q = 0; q < Q; ++q) {
          const int col = q * sh.stride - sh.pad + s;
          out[p * Q + q] = (h >= 0 && h < sh.h && col >= 0 && col < sh.w) ? plane[h * sh.w + col] : 0.0f;
        }
      }
    }
    // y[n] (K × P·Q) = w (K × C·R·S) · columns (C·R·S × P·Q)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sh.k, pq, crs, 1.0f, w.data(), crs, columns.data(), pq, 0.0f,
                y.data() + static_cast<long>(n) * sh.k * pq, pq);
  }
}
// [/snippet]

}  // namespace gpulab::conv
