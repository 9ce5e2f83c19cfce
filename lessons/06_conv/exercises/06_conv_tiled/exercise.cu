// Exercise 06c — your own shared-memory convolution: y = x ⋆ w (NCHW, zero padding, a stride) as
// in the lesson, with each block staging the input tile its outputs read — halo included — in
// shared memory. Tile size, block shape (a block per output tile, or per input tile as the
// textbook does) and launch are yours; 06_conv's file is one way, with bugs.
//   gpulab_grade --exercise 06_conv_tiled

void conv(const float* x, const float* w, float* y, int N, int C, int H, int W, int K, int R, int S, int pad,
          int stride) {
  // TODO: your kernel(s) above, and their launch here (P = (H + 2·pad − R) / stride + 1, Q likewise).
}
