// Exercise 07b — a layer's gradients: dW = Δᵀ · X and db = Δ's column sums. (Solution)

__global__ void weight_gradient(const float* delta, const float* x, float* dw, int batch, int inputs, int units) {
  // SOLUTION: thread (j, i) walks down column j of Δ and column i of X together.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= inputs || j >= units) return;
  float sum = 0.0f;
  for (int e = 0; e < batch; ++e) sum += delta[e * units + j] * x[e * inputs + i];
  dw[j * inputs + i] = sum;
}

__global__ void bias_gradient(const float* delta, float* db, int batch, int units) {
  // SOLUTION: each thread walks down its column, a row (units floats) at a time.
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= units) return;
  float sum = 0.0f;
  for (int e = 0; e < batch; ++e) sum += delta[e * units + j];
  db[j] = sum;
}

void layer_gradients(const float* delta, const float* x, float* dw, float* db, int batch, int inputs, int units) {
  if (units == 0) return;
  if (inputs > 0) {
    const dim3 block(32, 8);
    const dim3 grid((inputs + block.x - 1) / block.x, (units + block.y - 1) / block.y);
    weight_gradient<<<grid, block>>>(delta, x, dw, batch, inputs, units);
  }
  bias_gradient<<<(units + 255) / 256, 256>>>(delta, db, batch, units);
}
