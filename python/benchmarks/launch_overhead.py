"""What a RawKernel launch costs from Python: the host time of `launches` back-to-back launches of
a kernel that does (almost) nothing, then one synchronize, per launch; the median of 7 rounds after
a warm-up. Run the same file on CuPy and on gpulab.cupy to set them side by side:

    python3 launch_overhead.py                       # CuPy
    python3 -m gpulab.as_cupy launch_overhead.py     # gpulab.cupy (GPULAB_BACKEND=gpu or emulated)"""
import statistics
import sys
import time

import cupy as cp
import numpy as np

launches = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
kernel = cp.RawKernel(r'''
extern "C" __global__ void touch(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
''', 'touch')
x = cp.zeros(256, dtype=cp.float32)
args = (x, np.int32(256))
for _ in range(100):
    kernel((1,), (256,), args)
cp.cuda.Device().synchronize()
rounds = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(launches):
        kernel((1,), (256,), args)
    cp.cuda.Device().synchronize()
    rounds.append((time.perf_counter() - t) / launches * 1e6)
name = getattr(cp, "__name__", "cupy")
print(f"{name}: {statistics.median(rounds):.2f} µs a launch (median of 7 rounds of {launches}; "
      f"min {min(rounds):.2f}, max {max(rounds):.2f})")
