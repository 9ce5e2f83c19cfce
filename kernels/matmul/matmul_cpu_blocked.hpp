#pragma once
// The blocked CPU matrix multiply, built once per instruction set from matmul_cpu_blocked.inc.
// matmul_cpu.cpp picks the widest one the CPU has at run time.
#include <cstddef>

namespace gpulab::matmul::blocked {

// The blocking of one build: a micro-kernel computes mr × nr of C; k goes in panels of kc; a
// thread packs mc rows of A at a time.
struct Sizes {
  int mr, nr, kc, mc;
  std::size_t b_panel_floats(int n) const {
    return static_cast<std::size_t>(kc) * static_cast<std::size_t>((n + nr - 1) / nr * nr);
  }
  std::size_t a_block_floats() const { return static_cast<std::size_t>(mc) * static_cast<std::size_t>(kc); }
};

// The number of OpenMP threads a parallel region gets.
int max_threads();

// C = A · B, row-major. `b_panel` holds b_panel_floats(n) floats, `a_blocks` a_block_floats()
// per thread.
#define GPULAB_BLOCKED_DECLARE(isa)                                                                          \
  namespace isa {                                                                                            \
  void gemm(const float* a, const float* b, float* c, int m, int n, int k, float* b_panel, float* a_blocks); \
  Sizes sizes();                                                                                             \
  }
GPULAB_BLOCKED_DECLARE(avx512)
GPULAB_BLOCKED_DECLARE(avx2)
GPULAB_BLOCKED_DECLARE(generic)
#undef GPULAB_BLOCKED_DECLARE

}  // namespace gpulab::matmul::blocked
