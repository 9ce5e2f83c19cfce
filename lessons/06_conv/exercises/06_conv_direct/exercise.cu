// Exercise 06b — direct convolution: y = x ⋆ w (NCHW cross-correlation, zero padding, a stride),
// one thread per output element. x is N × C × H × W, w is K × C × R × S, y is N × K × P × Q with
// P = (H + 2·pad − R) / stride + 1 and Q = (W + 2·pad − S) / stride + 1.
//   gpulab_grade --exercise 06_conv_direct

__global__ void conv_direct(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S,
                            int pad, int stride, int P, int Q) {
  // TODO 1: this thread's output element (n, k, p, q) from a 1-D index over N · K · P · Q; guarded.
  // TODO 2: the sum over c, r, s of input (n, c, p·stride − pad + r, q·stride − pad + s) — 0 outside
  //         the image — times filter (k, c, r, s).
}

void conv(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S, int pad,
          int stride) {
  // TODO 3: P, Q, and a launch with a thread for each of the N · K · P · Q outputs.
}
