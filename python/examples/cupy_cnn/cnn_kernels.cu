// The seed network's layers as plain CUDA kernels, one thread per output element, for
// cupy.RawModule (real CuPy on a GPU, or gpulab.cupy on a GPU or the emulator). Each gradient
// kernel is the forward kernel's loops read backwards; every sum runs in a fixed order in one
// thread (no atomics), so two runs of a step give the same bits, and a GPU and the emulator differ
// only by rounding (fused multiply-adds, expf).
// Layouts: images N × C × H × W, convolution weights K × C × 3 × 3 (padding 1, stride 1), linear
// weights OUT × IN.

extern "C" __global__ void conv3x3_forward(const float* x, const float* w, const float* b, float* y, int n, int c,
                                           int k, int h, int wd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // one output: (image, filter, row, column)
  if (i >= n * k * h * wd) return;
  const int col = i % wd, row = (i / wd) % h, f = (i / (wd * h)) % k, img = i / (wd * h * k);
  float sum = b[f];
  for (int ch = 0; ch < c; ++ch)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        const int yy = row + r - 1, xx = col + s - 1;
        if (yy >= 0 && yy < h && xx >= 0 && xx < wd)
          sum += x[((img * c + ch) * h + yy) * wd + xx] * w[((f * c + ch) * 3 + r) * 3 + s];
      }
  y[i] = sum;
}

// dx: each input pixel gathers the outputs its 3 × 3 neighbourhood fed, through the flipped filter.
extern "C" __global__ void conv3x3_backward_input(const float* dy, const float* w, float* dx, int n, int c, int k,
                                                  int h, int wd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // one input: (image, channel, row, column)
  if (i >= n * c * h * wd) return;
  const int col = i % wd, row = (i / wd) % h, ch = (i / (wd * h)) % c, img = i / (wd * h * c);
  float sum = 0;
  for (int f = 0; f < k; ++f)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        const int yy = row - r + 1, xx = col - s + 1;  // the output that read this pixel through (r, s)
        if (yy >= 0 && yy < h && xx >= 0 && xx < wd)
          sum += dy[((img * k + f) * h + yy) * wd + xx] * w[((f * c + ch) * 3 + r) * 3 + s];
      }
  dx[i] = sum;
}

// dw and db: one thread per weight sums over every image and position (db: the thread of tap 0).
extern "C" __global__ void conv3x3_backward_weight(const float* x, const float* dy, float* dw, float* db, int n, int c,
                                                   int k, int h, int wd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // one weight: (filter, channel, r, s)
  if (i >= k * c * 9) return;
  const int s = i % 3, r = (i / 3) % 3, ch = (i / 9) % c, f = i / (9 * c);
  float sum = 0, bias = 0;
  for (int img = 0; img < n; ++img)
    for (int row = 0; row < h; ++row)
      for (int col = 0; col < wd; ++col) {
        const float g = dy[((img * k + f) * h + row) * wd + col];
        const int yy = row + r - 1, xx = col + s - 1;
        if (yy >= 0 && yy < h && xx >= 0 && xx < wd) sum += g * x[((img * c + ch) * h + yy) * wd + xx];
        bias += g;
      }
  dw[i] = sum;
  if (ch == 0 && r == 0 && s == 0) db[f] = bias;
}

extern "C" __global__ void relu_forward(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0;
}

extern "C" __global__ void relu_backward(const float* y, const float* dy, float* dx, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = y[i] > 0 ? dy[i] : 0;
}

// 2 × 2 max pooling, stride 2; `which` keeps the winner's offset (0-3) for the backward pass.
extern "C" __global__ void maxpool2_forward(const float* x, float* y, int* which, int planes, int h, int wd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // one output: (plane, row, column)
  const int oh = h / 2, ow = wd / 2;
  if (i >= planes * oh * ow) return;
  const int col = i % ow, row = (i / ow) % oh, p = i / (ow * oh);
  const float* in = x + (static_cast<long long>(p) * h + 2 * row) * wd + 2 * col;
  int best = 0;
  float v = in[0];
  if (in[1] > v) v = in[1], best = 1;
  if (in[wd] > v) v = in[wd], best = 2;
  if (in[wd + 1] > v) v = in[wd + 1], best = 3;
  y[i] = v;
  which[i] = best;
}

// Each output's gradient goes to the input that won; the other three get 0 (windows do not overlap).
extern "C" __global__ void maxpool2_backward(const float* dy, const int* which, float* dx, int planes, int h, int wd) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = h / 2, ow = wd / 2;
  if (i >= planes * oh * ow) return;
  const int col = i % ow, row = (i / ow) % oh, p = i / (ow * oh);
  float* out = dx + (static_cast<long long>(p) * h + 2 * row) * wd + 2 * col;
  out[0] = which[i] == 0 ? dy[i] : 0;
  out[1] = which[i] == 1 ? dy[i] : 0;
  out[wd] = which[i] == 2 ? dy[i] : 0;
  out[wd + 1] = which[i] == 3 ? dy[i] : 0;
}

// y = x wᵀ + b: x n × in, w out × in.
extern "C" __global__ void linear_forward(const float* x, const float* w, const float* b, float* y, int n, int in,
                                          int out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * out) return;
  const int o = i % out, row = i / out;
  float sum = b[o];
  for (int j = 0; j < in; ++j) sum += x[row * in + j] * w[o * in + j];
  y[i] = sum;
}

// dx = dy w
extern "C" __global__ void linear_backward_input(const float* dy, const float* w, float* dx, int n, int in, int out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * in) return;
  const int j = i % in, row = i / in;
  float sum = 0;
  for (int o = 0; o < out; ++o) sum += dy[row * out + o] * w[o * in + j];
  dx[i] = sum;
}

// dw = dyᵀ x, db = the column sums of dy (the thread of input 0).
extern "C" __global__ void linear_backward_weight(const float* x, const float* dy, float* dw, float* db, int n, int in,
                                                  int out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= out * in) return;
  const int j = i % in, o = i / in;
  float sum = 0, bias = 0;
  for (int row = 0; row < n; ++row) {
    sum += dy[row * out + o] * x[row * in + j];
    bias += dy[row * out + o];
  }
  dw[i] = sum;
  if (j == 0) db[o] = bias;
}

// Softmax cross-entropy, a thread per example: the loss (for the host's mean) and the gradient of
// the batch's mean loss, (p - onehot) / n. The largest logit is taken off first, so exp never overflows.
extern "C" __global__ void softmax_cross_entropy(const float* logits, const int* labels, float* loss, float* dlogits,
                                                 int n, int classes) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const float* z = logits + row * classes;
  float top = z[0];
  for (int j = 1; j < classes; ++j) top = z[j] > top ? z[j] : top;
  float total = 0;
  for (int j = 0; j < classes; ++j) total += expf(z[j] - top);
  loss[row] = logf(total) - (z[labels[row]] - top);
  for (int j = 0; j < classes; ++j) {
    const float p = expf(z[j] - top) / total;
    dlogits[row * classes + j] = (p - (j == labels[row] ? 1.0f : 0.0f)) / n;
  }
}

extern "C" __global__ void sgd_update(float* w, const float* dw, float rate, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= rate * dw[i];
}
