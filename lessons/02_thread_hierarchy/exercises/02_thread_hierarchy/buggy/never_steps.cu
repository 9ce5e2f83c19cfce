// A grid-stride loop whose step is wrong — blockDim.z - 1, which is 0 for 2-D blocks — never
// moves on: the kernel never ends. The grader stops each case at its time limit.
// time-limit: 3
// expect: did not finish within 3 s
__global__ void affine(const float* x, float* y, int n) {
  const int block = blockIdx.y * gridDim.x + blockIdx.x;
  const int threads = blockDim.x * blockDim.y;
  for (int i = block * threads + threadIdx.y * blockDim.x + threadIdx.x; i < n; i += blockDim.z - 1)
    y[i] = 2.0f * x[i] + 1.0f;
}
void affine_2d(const float* x, float* y, int n, int grid_x, int grid_y) {
  affine<<<dim3(grid_x, grid_y), dim3(32, 8)>>>(x, y, n);
}
