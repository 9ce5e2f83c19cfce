// Exercise 09 — FP16 storage with FP32 arithmetic, as lesson 09's kernels do: c = a + b where each
// input is stored as __half (rounded with __float2half), added in float, and the sum stored as
// __half again — then handed back as float. The grader allows the three roundings of FP16's
// 11-bit significand (about 3 · 2⁻¹¹ of the magnitudes), no more.
//   gpulab_grade --exercise 09_half_storage
#include <cuda_fp16.h>

__global__ void add_half(const float* a, const float* b, float* c, int n) {
  // TODO 1: one thread per element, guarded.
  // TODO 2: __half ha = __float2half(a[i]), hb likewise; float sum = __half2float(ha) + __half2float(hb);
  //         c[i] = __half2float(__float2half(sum)).
}

void half_storage_add(const float* a, const float* b, float* c, int n) {
  // TODO 3: launch it for all n elements.
}
