"""A RawKernel vector add of 2^22 floats, timed from Python (median of 5 launches after a warm-up),
to set beside the same kernel in a whole program run by gpulab_run (vector_add_2_22.cu)."""
import statistics
import time

import cupy as cp
import numpy as np

n = 1 << 22
add = cp.RawKernel(r'''
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
''', 'add')
a = cp.asarray(np.ones(n, np.float32))
b = cp.asarray(np.full(n, 2, np.float32))
c = cp.zeros(n, dtype=cp.float32)
grid = ((n + 255) // 256,)
add(grid, (256,), (a, b, c, np.int32(n)))
times = []
for _ in range(5):
    t = time.perf_counter()
    add(grid, (256,), (a, b, c, np.int32(n)))
    cp.cuda.Device().synchronize()
    times.append((time.perf_counter() - t) * 1e3)
print(f"{getattr(cp, '__name__', 'cupy')}: vector add of 2^22 floats {statistics.median(times):.1f} ms "
      f"(median of 5; min {min(times):.1f}, max {max(times):.1f}); right: {bool((c.get() == 3).all())}")
