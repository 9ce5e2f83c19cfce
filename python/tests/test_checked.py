"""The emulator's checked mode from Python: each bug a CuPy user makes raises KernelCheckError with
compute-sanitizer's tool, the kernel, the thread and block, the array and the lines — and the
process goes on (the next launch works). What CuPy on a GPU cannot do."""

import numpy as np
import pytest

import gpulab.cupy as cp

from conftest import emulated_only

pytestmark = emulated_only

SOURCE = r'''
extern "C" __global__ void block_sum(const float* x, float* out, int n) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) total += x[i];  // the planted race: every thread adds to one place, no atomic
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
extern "C" __global__ void no_bounds_check(float* x, int n) { x[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
extern "C" __global__ void copy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" __global__ void half_barrier(float* x) {
  if (threadIdx.x < 16) __syncthreads();  // a barrier only half the block reaches
  x[threadIdx.x] = 0;
}
'''


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def test_a_race_raises_racecheck_s_report(module):
    x = cp.ones(256, cp.float32)
    out = cp.zeros(1, cp.float32)
    with pytest.raises(cp.KernelCheckError) as e:
        module.get_function("block_sum")((1,), (256,), (x, out, np.int32(256)))
    assert (e.value.tool, e.value.kernel) == ("racecheck", "block_sum")
    report = e.value.report
    assert "module.cu:7" in report and "'total'" in report and "__shared__" in report and "block (0,0,0)" in report
    assert "test_checked.py" in report  # the launch: the Python line that made it


def test_an_out_of_bounds_write_is_stopped_and_names_the_array(module):
    x = cp.zeros(256, cp.float32)
    with pytest.raises(cp.KernelCheckError) as e:
        module.get_function("no_bounds_check")((2,), (256,), (x, np.int32(256)))
    assert e.value.tool == "memcheck"
    assert "Invalid __global__ write of size 4 bytes" in e.value.report
    assert "float32[256]" in e.value.report and "test_checked.py" in e.value.report  # where the array was made
    assert "block (1,0,0)" in e.value.report
    np.testing.assert_array_equal(x.get(), np.ones(256, np.float32))  # the first block's writes happened


def test_reading_an_array_nothing_wrote_is_initchecks(module):
    y = cp.zeros(32, cp.float32)
    with pytest.raises(cp.KernelCheckError) as e:
        module.get_function("copy")((1,), (32,), (cp.empty(32, cp.float32), y, np.int32(32)))
    assert e.value.tool == "initcheck" and "Uninitialized __global__ memory read" in e.value.report


def test_a_barrier_half_the_block_reaches_is_synccheck_s(module):
    with pytest.raises(cp.KernelCheckError) as e:
        module.get_function("half_barrier")((1,), (32,), (cp.zeros(32, cp.float32),))
    assert e.value.tool == "synccheck"


def test_a_kernel_on_a_freed_arrays_address_is_reported(module):
    x = cp.zeros(64, cp.float32)
    address = x.data.ptr
    del x
    with pytest.raises(cp.KernelCheckError) as e:
        module.get_function("no_bounds_check")((1,), (64,), (address, np.int32(64)))
    assert e.value.tool == "memcheck"


def test_after_a_report_the_next_launch_runs_clean(module):
    with pytest.raises(cp.KernelCheckError):
        module.get_function("no_bounds_check")((2,), (256,), (cp.zeros(256, cp.float32), np.int32(256)))
    x, y = cp.arange(100, dtype=cp.float32), cp.zeros(100, cp.float32)
    module.get_function("copy")((1,), (128,), (x, y, np.int32(100)))
    np.testing.assert_array_equal(y.get(), np.arange(100, dtype=np.float32))


def test_a_kernel_error_is_a_cuda_driver_error_too(module):
    with pytest.raises(cp.cuda.driver.CUDADriverError):
        module.get_function("no_bounds_check")((2,), (256,), (cp.zeros(256, cp.float32), np.int32(256)))
