// Bug: the tree reduction's loop has lost its __syncthreads(): a thread adds a partial sum that
// another has not written yet (on the emulator the order may even happen to be right — racecheck
// finds the hazard either way).
// expect: racecheck in kernel block_sum
// expect: Race reported between
// expect: reduction_missing_barrier.cu:19
// expect: 'partial' (256 × float, declared at
// tool: racecheck
// gpu-expect: Race reported between
#include "../check.h"

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) {
      partial[t] += partial[t + half];
    }
    // missing: __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

int main() {
  const int n = 256 * 64;
  float* h = new float[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, 64 * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<64, 256>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  float sums[64];
  CHECK(cudaMemcpy(sums, d_out, sizeof sums, cudaMemcpyDeviceToHost));
  int right = 0;
  for (float s : sums) right += s == 256.0f;
  std::printf("%d of 64 blocks summed right\n", right);
  return 0;
}
