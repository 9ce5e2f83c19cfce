"""A block reduction as courses write it (shared memory, __syncthreads, then warp shuffles) and
an atomic histogram: integer-valued data, so every sum is exact and the lines match everywhere."""
import cupy as cp
import numpy as np

module = cp.RawModule(code=r'''
extern "C" __global__ void block_sums(const float* x, float* sums, int n) {
    extern __shared__ float part[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0;
    if (i < n) v += x[i];
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    part[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t < 32) {
        v = part[t];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (t == 0) sums[blockIdx.x] = v;
    }
}
extern "C" __global__ void histogram(const int* values, unsigned int* bins, int n, int nbins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[values[i] % nbins], 1u);
}
''')
rng = np.random.default_rng(7)
for n in (1, 100, 4097, 200000):
    host = rng.integers(0, 10, n).astype(np.float32)
    threads = 256
    blocks = (n + 2 * threads - 1) // (2 * threads)
    sums = cp.zeros(blocks, dtype=cp.float32)
    module.get_function('block_sums')((blocks,), (threads,), (cp.asarray(host), sums, np.int32(n)),
                                      shared_mem=threads * 4)
    print(n, float(sums.get().astype(np.float64).sum()), float(host.astype(np.float64).sum()))
values = cp.asarray(rng.integers(0, 1000, 50000).astype(np.int32))
bins = cp.zeros(16, dtype=cp.uint32)
module.get_function('histogram')((32,), (256,), (values, bins, np.int32(50000), np.int32(16)))
print(bins.get().tolist())
