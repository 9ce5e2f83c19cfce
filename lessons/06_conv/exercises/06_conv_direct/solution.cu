// Exercise 06b — direct convolution. (Solution)

__global__ void conv_direct(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S,
                            int pad, int stride, int P, int Q) {
  // SOLUTION: q fastest, so a warp's threads read neighbouring input columns.
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long>(N) * K * P * Q) return;
  const int q = i % Q, p = (i / Q) % P, k = (i / Q / P) % K, n = i / Q / P / K;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    for (int r = 0; r < R; ++r) {
      const int h = p * stride - pad + r;
      if (h < 0 || h >= H) continue;
      for (int s = 0; s < S; ++s) {
        const int col = q * stride - pad + s;
        if (col >= 0 && col < W) sum += x[((n * C + c) * H + h) * W + col] * w[((k * C + c) * R + r) * S + s];
      }
    }
  }
  y[i] = sum;
}

void conv(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S, int pad,
          int stride) {
  const int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;
  const long outputs = static_cast<long>(N) * K * P * Q;
  if (outputs == 0) return;
  conv_direct<<<(outputs + 255) / 256, 256>>>(x, w, y, N, C, H, W, K, R, S, pad, stride, P, Q);
}
