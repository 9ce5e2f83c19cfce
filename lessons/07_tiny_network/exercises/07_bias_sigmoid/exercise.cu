// Exercise 07a — a layer's own kernel in lesson 07's training step, going forward: after the
// GEMM Z = X · Wᵀ, each layer adds its bias and applies σ, in place: A = σ(Z + b).
//
// bias_sigmoid is given Z (rows × cols, row-major: example e's unit j at [e · cols + j]) and the
// bias (cols floats), in device memory. Write the kernel and its launch: b[j] is added to column
// j of every row, then σ (lesson 04's) is applied, and the result written over Z.
//   gpulab_grade --exercise 07_bias_sigmoid

__global__ void bias_sigmoid_kernel(float* z, const float* bias, int rows, int cols) {
  // TODO 1: one thread per element of Z, guarded; which column is element i in?
  // TODO 2: z[i] = σ(z[i] + bias[its column]).
}

void bias_sigmoid(float* z, const float* bias, int rows, int cols) {
  // TODO 3: launch bias_sigmoid_kernel with enough blocks for rows · cols elements.
}
