// Kernels and a launch kept in a header, as a course's code often keeps them: on the emulator the
// header is rewritten and checked like the .cu that includes it.
#pragma once
#ifndef SCALE
#error "build with -D SCALE=..."
#endif

__device__ inline float scaled(float x) { return SCALE * x; }

template <typename T>
__global__ void scale_kernel(T* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = scaled(v[i]);
}

inline void scale_on_device(float* v, int n) { scale_kernel<<<(n + 127) / 128, 128>>>(v, n); }

__global__ void saxpy(float a, const float* x, float* y, int n);  // saxpy.cu
double host_sum(const float* v, int n);                           // host_sum.cpp
