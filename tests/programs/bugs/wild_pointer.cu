// Bug: a pointer made from an integer (here, one that was never an address at all). No buffer is
// near it; the access faults, and the emulator stops the kernel with a report, not a crash.
// expect: memcheck in kernel poke
// expect: Invalid memory access (an unmapped address)
// expect: wild_pointer.cu:12
// tool: memcheck
// gpu-expect: Invalid __global__ write of size 4 bytes
#include <cstdint>

#include "../check.h"

__global__ void poke(std::uintptr_t address) { *reinterpret_cast<int*>(address) = 1; }

int main() {
  poke<<<1, 1>>>(std::uintptr_t{0x100000000} * 3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("poked\n");
  return 0;
}
