"""CuPy's RawKernel as its documentation writes it: a vector add, checked, at awkward sizes.
Prints the same lines on CuPy, on gpulab.cupy on a GPU and on the emulator (python/parity/README.md)."""
import cupy as cp
import numpy as np

add = cp.RawKernel(r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y, unsigned int n) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n) y[tid] = x1[tid] + x2[tid];
}
''', 'my_add')
for n in (1, 31, 1000, 100003):
    x1 = cp.arange(n, dtype=cp.float32)
    x2 = cp.arange(n, dtype=cp.float32) * 3
    y = cp.zeros(n, dtype=cp.float32)
    add(((n + 127) // 128,), (128,), (x1, x2, y, np.uint32(n)))
    host = cp.asnumpy(y)
    print(n, host[:3].tolist(), host[-1].item(), bool((host == np.arange(n, dtype=np.float32) * 4).all()))
