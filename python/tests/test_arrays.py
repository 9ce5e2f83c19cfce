"""gpulab.cupy's arrays against NumPy: constructors, copies, views, and the errors CuPy gives (arithmetic:
test_arithmetic.py)."""

import numpy as np
import pytest

import gpulab.cupy as cp

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (31,), (3, 5), (2, 3, 4)])
def test_an_array_holds_what_numpy_gave_it(dtype, shape, rng):
    host = (rng.standard_normal(shape) * 50).astype(dtype)
    a = cp.asarray(host)
    assert (a.shape, a.dtype, a.size, a.nbytes, a.ndim) == (host.shape, host.dtype, host.size, host.nbytes, host.ndim)
    if host.size:
        assert a.strides == host.strides
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(cp.asnumpy(a.copy()), host)


def test_constructors_match_numpys():
    np.testing.assert_array_equal(cp.zeros((2, 3), cp.float32).get(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(cp.ones(7, cp.int32).get(), np.ones(7, np.int32))
    np.testing.assert_array_equal(cp.full(4, 2.5).get(), np.full(4, 2.5))
    np.testing.assert_array_equal(cp.arange(3, 17, 2).get(), np.arange(3, 17, 2))
    a = cp.arange(6, dtype=cp.float32)
    assert cp.zeros_like(a).dtype == np.float32 and cp.empty_like(a).shape == (6,)
    np.testing.assert_array_equal(cp.ones_like(a).get(), np.ones(6, np.float32))
    assert cp.empty(5).dtype == np.float64  # CuPy's default, as NumPy's
    assert cp.array([[1, 2], [3, 4]]).shape == (2, 2)


def test_fill_reshape_and_views_share_memory():
    a = cp.zeros(12, cp.float32)
    a.fill(3)
    b = a.reshape(3, 4)
    assert b.shape == (3, 4) and b.data.ptr == a.data.ptr
    assert a.reshape(-1, 6).shape == (2, 6)
    with pytest.raises(ValueError):
        a.reshape(5, 5)
    np.testing.assert_array_equal(b.get(), np.full((3, 4), 3, np.float32))


def test_a_hidden_copy_to_numpy_is_refused_as_cupy_refuses_it():
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(cp.zeros(3))


def test_bad_shapes_and_sizes_are_errors():
    with pytest.raises(ValueError, match="negative"):
        cp.empty((2, -1))
    a = cp.zeros((2, 2))
    with pytest.raises(ValueError, match="Shape mismatch"):
        a.set(np.zeros(3))
    with pytest.raises(TypeError):
        len(cp.asarray(np.float32(1)))


def test_the_device_answers_cupys_queries():
    assert cp.cuda.runtime.getDeviceCount() >= 1
    p = cp.cuda.runtime.getDeviceProperties(0)
    assert isinstance(p["name"], bytes) and p["warpSize"] == 32 and p["maxThreadsPerBlock"] == 1024
    assert len(p["maxGridSize"]) == 3
    free, total = cp.cuda.runtime.memGetInfo()
    assert 0 <= free <= total
    cp.cuda.Device(0).synchronize()
    cp.cuda.Device().use()
    assert cp.is_available()


def test_the_memory_pool_keeps_freed_memory_on_a_gpu():
    pool = cp.get_default_memory_pool()
    a = cp.zeros(1000, cp.float32)
    if cp.cuda.runtime.is_emulated():
        assert pool.used_bytes() == 0  # each array its own allocation, for the checked mode
        return
    used = pool.used_bytes()
    assert used >= 4000
    address = a.data.ptr
    del a
    assert pool.used_bytes() == used - 4096
    assert cp.zeros(1000, cp.float32).data.ptr == address  # the same block, again
    pool.free_all_blocks()


def test_libraries_loaded_after_the_emulator_still_get_static_tls():
    # The emulator's thread-local state is in the little static TLS a process keeps for libraries
    # loaded later (kernels/CMakeLists.txt); matplotlib's libgomp (136 bytes) must still fit.
    import subprocess
    import sys
    script = "import gpulab.cupy as cp; cp.zeros(3).get(); import matplotlib.pyplot; import PIL.Image; print('ok')"
    p = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
