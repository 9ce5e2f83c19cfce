// Thrust, which the emulator does not run: refused when the program is built, saying so.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>

#include <cstdio>

int main() {
  thrust::device_vector<int> v(1000, 1);
  std::printf("sum %d\n", thrust::reduce(v.begin(), v.end()));
  return 0;
}
