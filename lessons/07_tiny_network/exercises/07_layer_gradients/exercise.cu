// Exercise 07b — a layer's gradients in lesson 07's training step, going backward: with Δ the
// loss's gradient with respect to the layer's pre-activations (batch × units) and X the layer's
// input (batch × inputs), both row-major in device memory,
//   dW = Δᵀ · X     (units × inputs: dw[j · inputs + i] = Σ over examples e of Δ[e][j] · X[e][i])
//   db = Δ's column sums   (units: db[j] = Σ over examples e of Δ[e][j]).
// Write the kernels and their launches; the grader says which of the two gradients is wrong.
//   gpulab_grade --exercise 07_layer_gradients

__global__ void weight_gradient(const float* delta, const float* x, float* dw, int batch, int inputs, int units) {
  // TODO 1: one thread per element (j, i) of dW, guarded; sum Δ[e][j] · X[e][i] over the batch.
}

__global__ void bias_gradient(const float* delta, float* db, int batch, int units) {
  // TODO 2: one thread per unit j, guarded; sum column j of Δ over the batch.
}

void layer_gradients(const float* delta, const float* x, float* dw, float* db, int batch, int inputs, int units) {
  // TODO 3: launch both, each with enough blocks for its outputs.
}
