// cuRAND as course labs call it — the host API filling device memory, and a kernel's own
// generators (XORWOW's curandState, Philox) — printing what must hold of the numbers, not the
// numbers: GPU Lab's emulator has cuRAND's distributions, not its sequences (emulator/include/curand.h).
// Every tolerance is six standard errors or more of the estimate it bounds.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstdio>
#include <vector>

static const char* yes(bool b) { return b ? "yes" : "no"; }

struct Moments {
  double mean = 0, deviation = 0, low = 1e300, high = -1e300;
};
template <typename T>
static Moments moments(const std::vector<T>& x) {
  Moments m;
  for (T v : x) m.mean += v, m.low = v < m.low ? v : m.low, m.high = v > m.high ? v : m.high;
  m.mean /= static_cast<double>(x.size());
  for (T v : x) m.deviation += (v - m.mean) * (v - m.mean);
  m.deviation = std::sqrt(m.deviation / static_cast<double>(x.size()));
  return m;
}

// Each thread its own subsequence: points in the unit square, those inside the quarter circle counted.
__global__ void estimate_pi(unsigned long long seed, int draws, unsigned int* inside) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState state;
  curand_init(seed, id, 0, &state);
  unsigned int hits = 0;
  for (int i = 0; i < draws; ++i) {
    float x = curand_uniform(&state), y = curand_uniform(&state);
    if (x * x + y * y <= 1.0f) ++hits;
  }
  atomicAdd(inside, hits);
}

// States kept in device memory between launches, as courses write it: one kernel sets them up,
// another draws normal numbers from them.
__global__ void setup(curandStatePhilox4_32_10_t* states, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}
__global__ void draw_normal(curandStatePhilox4_32_10_t* states, float* out, int per_thread) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t local = states[id];
  for (int i = 0; i < per_thread; i += 4) {
    float4 v = curand_normal4(&local);
    out[id * per_thread + i] = v.x, out[id * per_thread + i + 1] = v.y;
    out[id * per_thread + i + 2] = v.z, out[id * per_thread + i + 3] = v.w;
  }
  states[id] = local;
}

int main() {
  const size_t n = 1 << 20;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  std::vector<float> h(n);

  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandGenerateUniform(gen, d, n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  Moments u = moments(h);
  std::printf("uniform: all in (0, 1]: %s; mean within 0.002 of 1/2: %s; deviation within 0.002 of sqrt(1/12): %s\n",
              yes(u.low > 0 && u.high <= 1), yes(std::fabs(u.mean - 0.5) < 0.002),
              yes(std::fabs(u.deviation - std::sqrt(1.0 / 12)) < 0.002));
  std::vector<float> again(n);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);  // the generator keeps its place in the stream
  curandGenerateUniform(gen, d, n);
  cudaMemcpy(again.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("the same seed again: the same numbers: %s\n", yes(again == h));
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandSetGeneratorOffset(gen, 0);  // and back to its start
  curandGenerateUniform(gen, d, n);
  cudaMemcpy(again.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("the same seed and offset 0: the same numbers: %s\n", yes(again == h));
  curandGenerateUniform(gen, d, n);  // the stream goes on
  cudaMemcpy(again.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("the next call: other numbers: %s\n", yes(again != h));

  curandGenerateNormal(gen, d, n, 2.0f, 3.0f);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  Moments g = moments(h);
  std::printf("normal(2, 3): mean within 0.02 of 2: %s; deviation within 0.02 of 3: %s\n",
              yes(std::fabs(g.mean - 2) < 0.02), yes(std::fabs(g.deviation - 3) < 0.02));
  std::printf("normal numbers, an odd count: status %d\n", static_cast<int>(curandGenerateNormal(gen, d, 7, 0, 1)));
  curandGenerateLogNormal(gen, d, n, 0.0f, 0.5f);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  Moments l = moments(h);
  std::printf("log-normal(0, 0.5): all positive: %s; mean within 0.01 of exp(1/8): %s\n", yes(l.low > 0),
              yes(std::fabs(l.mean - std::exp(0.125)) < 0.01));
  curandDestroyGenerator(gen);

  unsigned int* inside;
  cudaMalloc(&inside, sizeof(unsigned int));
  cudaMemset(inside, 0, sizeof(unsigned int));
  const int threads = 4096, draws = 256;
  estimate_pi<<<threads / 256, 256>>>(42ULL, draws, inside);
  unsigned int hits = 0;
  cudaMemcpy(&hits, inside, sizeof hits, cudaMemcpyDeviceToHost);
  double pi = 4.0 * hits / (static_cast<double>(threads) * draws);
  std::printf("a kernel's XORWOW states: pi within 0.01: %s\n", yes(std::fabs(pi - 3.14159265358979) < 0.01));

  curandStatePhilox4_32_10_t* states;
  cudaMalloc(&states, threads * sizeof(curandStatePhilox4_32_10_t));
  setup<<<threads / 256, 256>>>(states, 7ULL);
  draw_normal<<<threads / 256, 256>>>(states, d, 128);
  cudaMemcpy(h.data(), d, threads * 128 * sizeof(float), cudaMemcpyDeviceToHost);
  h.resize(threads * 128);
  Moments p = moments(h);
  std::printf("Philox states in device memory: normal mean within 0.01 of 0: %s; deviation within 0.01 of 1: %s\n",
              yes(std::fabs(p.mean) < 0.01), yes(std::fabs(p.deviation - 1) < 0.01));
  std::printf("errors: %s\n", cudaGetErrorString(cudaGetLastError()));
  cudaFree(states), cudaFree(inside), cudaFree(d);
  return 0;
}
