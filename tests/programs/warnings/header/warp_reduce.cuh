// The warp-synchronous last steps of CUDA's early reduction samples, kept in a header: the
// emulator must say it relies on lockstep lanes here too, as it does in a .cu.
#pragma once

__device__ void warp_reduce(volatile int* s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}
