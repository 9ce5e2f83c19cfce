// Exercise 04b — σ's derivative, from a __device__ function called twice: dy = σ(x) · (1 − σ(x)),
// the factor every sigmoid layer's backward pass multiplies by. Right for every float (NaN in,
// NaN out).
//   gpulab_grade --exercise 04_sigmoid_derivative

__device__ float sigmoid_of(float x) {
  // TODO 1: σ(x), stable for every x (lesson 04).
  return 0.0f;
}

__global__ void derivative_kernel(const float* x, float* dy, int n) {
  // TODO 2: one thread per element, guarded: s = sigmoid_of(x[i]); dy[i] = s · (1 − s).
}

void sigmoid_derivative(const float* x, float* dy, int n) {
  // TODO 3: launch it for all n elements.
}
