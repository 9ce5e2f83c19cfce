"""RawKernel, RawModule and ElementwiseKernel as CuPy scripts call them: answers against NumPy,
the arguments marshalled as CuPy marshals them, and every error path a Python exception."""

import time

import numpy as np
import pytest

import gpulab.cupy as cp

VECTOR_ADD = r'''
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
'''


@pytest.mark.parametrize("n", [1, 31, 1000, 4097])
def test_a_raw_kernel_adds_vectors(n, rng):
    add = cp.RawKernel(VECTOR_ADD, "vector_add")
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = cp.full(n, np.nan, cp.float32)  # poisoned: every element must be written
    add(((n + 255) // 256,), (256,), (cp.asarray(x), cp.asarray(y), c, np.int32(n)))
    np.testing.assert_array_equal(c.get(), x + y)  # one rounding, the same on both


def test_a_python_int_is_passed_as_cupy_passes_it():
    add = cp.RawKernel(VECTOR_ADD, "vector_add")
    a = cp.arange(10, dtype=cp.float32)
    c = cp.zeros(10, cp.float32)
    add((1,), (32,), (a, a, c, 10))  # an int64 for an int parameter: CuPy's bytes, read as the int
    np.testing.assert_array_equal(c.get(), np.arange(10, dtype=np.float32) * 2)


def test_a_module_holds_every_kernel_and_template_instances():
    module = cp.RawModule(code=r'''
template <typename T> __global__ void fill(T* x, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}
extern "C" __global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
__global__ void twice(double* x, int n) { for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] *= 2; }
''', options=("-DUNUSED=1", "--std=c++17"), name_expressions=["fill<float>", "fill<double>"])
    x = cp.zeros(100, cp.float32)
    module.get_function("fill<float>")((1,), (128,), (x, np.float32(1.5), np.int32(100)))
    module.get_function("scale")((1,), (128,), (x, np.float32(2), np.int32(100)))
    np.testing.assert_array_equal(x.get(), np.full(100, 3, np.float32))
    d = cp.zeros(7)
    module.get_function("fill<double>")((1,), (32,), (d, 2.0, 7))  # a Python float is a double, as in CuPy
    module.get_function("twice")((1,), (4,), (d, 7))
    np.testing.assert_array_equal(d.get(), np.full(7, 4.0))
    with pytest.raises(AttributeError, match="no kernel named 'missing'"):
        module.get_function("missing")


def test_defines_reach_the_source():
    k = cp.RawKernel(r'extern "C" __global__ void k(int* x) { x[0] = VALUE; }', "k", options=("-DVALUE=42",))
    x = cp.zeros(1, cp.int32)
    k((1,), (1,), (x,))
    assert int(x.get()[0]) == 42


def test_elementwise_kernels_bind_types_and_broadcast_scalars(rng):
    squared_diff = cp.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
    x = rng.standard_normal(1000)
    a = cp.asarray(x)
    np.testing.assert_allclose(squared_diff(a, cp.asarray(x * 0 + 1)).get(), (x - 1) ** 2)
    np.testing.assert_allclose(squared_diff(a, 2.0).get(), (x - 2) ** 2)
    assert squared_diff(a.astype(cp.float32), np.float32(0)).dtype == np.float32
    out = cp.empty(1000)
    assert squared_diff(a, a, out) is out
    np.testing.assert_array_equal(out.get(), np.zeros(1000))
    axpy = cp.ElementwiseKernel("float32 a, raw float32 x, float32 y", "float32 z", "z = a * x[i] + y", "axpy")
    xs = cp.arange(8, dtype=cp.float32)
    np.testing.assert_array_equal(axpy(np.float32(2), xs, cp.ones(8, cp.float32)).get(), 2 * np.arange(8) + 1)
    iota = cp.ElementwiseKernel("", "int32 y", "y = i", "iota")
    np.testing.assert_array_equal(iota(size=5).get(), np.arange(5))
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        squared_diff(a)
    with pytest.raises(ValueError, match="different shapes"):
        squared_diff(a, cp.zeros(3))


# ---- arguments CuPy would marshal wrongly, and launches CUDA refuses
@pytest.fixture(scope="module")
def add():
    return cp.RawKernel(VECTOR_ADD, "vector_add")


def test_a_wrong_argument_count_is_a_type_error(add):
    with pytest.raises(TypeError, match="takes 4 arguments, but 3 were given"):
        add((1,), (32,), (cp.zeros(1, cp.float32),) * 3)


@pytest.mark.parametrize("bad, words", [
    (1.5, "Python float .* 4-byte signed integer"),
    (np.float32(1), "numpy.float32 .* signed integer"),
    (np.int16(3), "numpy.int16 .* read past them"),
    (2**40, "does not fit"),
])
def test_a_scalar_of_the_wrong_kind_says_what_cupy_would_have_passed(add, bad, words):
    a = cp.zeros(4, cp.float32)
    with pytest.raises(TypeError, match=words):
        add((1,), (32,), (a, a, a, bad))


def test_a_scalar_for_a_pointer_and_an_array_for_a_value_are_type_errors(add):
    a = cp.zeros(4, cp.float32)
    with pytest.raises(TypeError, match="pointer: pass a cupy array"):
        add((1,), (32,), (a, 1.0, a, 4))
    with pytest.raises(TypeError, match="not a pointer"):
        add((1,), (32,), (a, a, a, a))
    with pytest.raises(TypeError, match="args must be a tuple"):
        add((1,), (32,), a)


@pytest.mark.parametrize("grid, block, words", [
    ((1,), (2048,), "block dimension 0 is over 1024"),
    ((1, 70000), (32,), "grid dimension 1 is over 65535"),
    ((0,), (32,), "dimension is 0"),
])
def test_a_launch_cuda_refuses_raises_cupys_driver_error(add, grid, block, words):
    a = cp.zeros(4, cp.float32)
    with pytest.raises(cp.cuda.driver.CUDADriverError) as e:
        add(grid, block, (a, a, a, 4))
    if cp.cuda.runtime.is_emulated():
        assert words in str(e.value)
    add((1,), (32,), (a, a, a, 4))  # and the next launch works


def test_grid_and_block_must_be_ints(add):
    a = cp.zeros(4, cp.float32)
    with pytest.raises(ValueError, match="out of range"):
        add((-1,), (32,), (a, a, a, 4))
    with pytest.raises(TypeError):
        add((1.0,), (32,), (a, a, a, 4))


def test_a_compile_error_names_the_kernels_own_line():
    source = 'extern "C" __global__ void broken(float* x) {\n  x[0] = 1\n}\n'
    with pytest.raises(cp.cuda.compiler.CompileException) as e:
        cp.RawKernel(source, "broken")((1,), (1,), (cp.zeros(1, cp.float32),))
    assert "broken.cu:2" in str(e.value) or "broken.cu(2)" in str(e.value) or "broken.cu(3)" in str(e.value) \
        or "broken.cu:3" in str(e.value)


def test_streams_and_events_time_a_launch(add):
    n = 1 << 16
    a = cp.ones(n, cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    with stream:
        start.record()
        add(((n + 255) // 256,), (256,), (a, a, a, np.int32(n)))
        end.record()
    end.synchronize()
    assert cp.cuda.get_elapsed_time(start, end) >= 0
    stream.synchronize()
    assert stream.done and end.done
    np.testing.assert_array_equal(a.get(), np.full(n, 2, np.float32))
    add(((n + 255) // 256,), (256,), (a, a, a, np.int32(n)), stream=stream)
    stream.synchronize()


def test_a_cached_launch_costs_under_a_millisecond(add):
    a = cp.zeros(32, cp.float32)
    args = (a, a, a, np.int32(32))
    add((1,), (32,), args)
    times = []
    for _ in range(50):
        t = time.perf_counter()
        add((1,), (32,), args)
        times.append(time.perf_counter() - t)
    assert sorted(times)[len(times) // 2] < 1e-3


def test_launches_from_threads_and_mixed_arguments_keep_their_own_values(add):
    import threading
    results = {}

    def work(k):
        a = cp.full(64, k, cp.float32)
        c = cp.zeros(64, cp.float32)
        for _ in range(20):
            add((1,), (64,), (a, a, c, np.int32(64)))
        results[k] = c.get()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(1, 5):
        np.testing.assert_array_equal(results[k], np.full(64, 2 * k, np.float32))
    a, c = cp.ones(8, cp.float32), cp.zeros(8, cp.float32)
    add((1,), (8,), (a.data.ptr, a, c, np.int64(8)))  # a raw address and an int64: the general path
    add((1,), (8,), (a, a, c, np.int32(8)))  # then the fast one again
    np.testing.assert_array_equal(c.get(), np.full(8, 2, np.float32))
