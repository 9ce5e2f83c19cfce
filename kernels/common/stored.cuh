#pragma once
// Values stored in 16 bits and computed on in float (mixed precision): a kernel templated on how
// its arrays are stored reads each value with as_float and writes with stored_as<T>, so one kernel
// serves the FP32 step and the FP16 one. The launchers' signatures carry FP16 arrays as their bit
// patterns (std::uint16_t, as lesson 09's), which kernel_view turns back into __half.
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

// In namespace gpulab (not a build's own): __device__ code, compiled into each build apart.
namespace gpulab {

__device__ inline float as_float(float x) { return x; }
__device__ inline float as_float(__half x) { return __half2float(x); }

// x rounded to the nearest value of T (ties to even), or x itself where T is float.
template <typename T>
__device__ inline T stored_as(float x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(x);
  } else {
    return x;
  }
}

// The kernel's view of an array a launcher was given: floats as they are, FP16 bit patterns as __half.
__host__ __device__ inline const float* kernel_view(const float* x) { return x; }
__host__ __device__ inline float* kernel_view(float* x) { return x; }
__host__ __device__ inline const __half* kernel_view(const std::uint16_t* x) {
  return reinterpret_cast<const __half*>(x);
}
__host__ __device__ inline __half* kernel_view(std::uint16_t* x) { return reinterpret_cast<__half*>(x); }

}  // namespace gpulab
