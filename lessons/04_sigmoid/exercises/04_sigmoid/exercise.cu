// Exercise 04 — a __device__ function, right for every float: y = σ(x) = 1 / (1 + e^-x).
//
// sigmoid is given x and y, n floats each in device memory. Write σ as a __device__ function
// and a kernel that applies it to every element, and launch it. The grader tries ±0, ±inf, NaN,
// ±1000 and the smallest floats too: σ must never overflow into NaN (NaN in, NaN out).
//   gpulab_grade --exercise 04_sigmoid

__device__ float sigmoid_of(float x) {
  // TODO 1: σ(x), with expf. Which form stays finite when e^-x overflows?
  return 0.0f;
}

__global__ void sigmoid_kernel(const float* x, float* y, int n) {
  // TODO 2: one thread per element, guarded: y[i] = sigmoid_of(x[i]).
}

void sigmoid(const float* x, float* y, int n) {
  // TODO 3: launch sigmoid_kernel with enough blocks for all n elements.
}
