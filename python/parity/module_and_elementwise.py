"""RawModule with template instances, ElementwiseKernel with a type placeholder, streams and events:
the same lines on CuPy, gpulab.cupy on a GPU and on the emulator."""
import cupy as cp
import numpy as np

module = cp.RawModule(code=r'''
template<typename T>
__global__ void scale(T* x, T factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
extern "C" __global__ void iota(int* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = i;
}
''', options=('--std=c++14',), name_expressions=('scale<float>', 'scale<double>'))
n = 1000
f = cp.arange(n, dtype=cp.float32)
module.get_function('scale<float>')((4,), (256,), (f, np.float32(0.5), np.int32(n)))
d = cp.ones(10, dtype=cp.float64)
module.get_function('scale<double>')((1,), (32,), (d, 3.0, 10))
i = cp.empty(n, dtype=cp.int32)
module.get_function('iota')((2,), (64,), (i, n))
print(float(f.sum()), cp.asnumpy(d).tolist()[:3], int(i.sum()), int(i[-1:].get()[0]))

squared_diff = cp.ElementwiseKernel('T x, T y', 'T z', 'z = (x - y) * (x - y)', 'squared_diff')
x = cp.arange(10, dtype=cp.float32)
print(squared_diff(x, 5).get().tolist())
print(squared_diff(x, x[::-1].copy()).get().tolist())

stream = cp.cuda.Stream(non_blocking=True)
start, end = cp.cuda.Event(), cp.cuda.Event()
with stream:
    start.record()
    module.get_function('iota')((1,), (128,), (i, n))
    end.record()
end.synchronize()
print('elapsed is a float >= 0:', cp.cuda.get_elapsed_time(start, end) >= 0, int(i.sum()))
print((x + x).get().tolist()[:4], (x * 2 - 1).get().tolist()[:4], (x / 4).dtype, float((x + 1).sum()))
