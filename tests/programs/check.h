// What the corpus programs share: one error check, as every CUDA course writes it.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)
