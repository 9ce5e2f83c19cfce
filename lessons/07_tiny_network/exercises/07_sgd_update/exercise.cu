// Exercise 07c — the SGD update that ends lesson 07's step: every parameter moves against its
// gradient, w = w − η · g with η = 0.05, in place.
//   gpulab_grade --exercise 07_sgd_update

__global__ void sgd_kernel(float* w, const float* g, int n) {
  // TODO 1: one thread per parameter, guarded: w[i] -= 0.05f * g[i].
}

void sgd_update(float* w, const float* g, int n) {
  // TODO 2: launch it for all n parameters.
}
