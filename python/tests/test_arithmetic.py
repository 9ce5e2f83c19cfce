"""gpulab.cupy's arithmetic against NumPy. (Each operator is a kernel built on its first use, about a
second each on the emulator with a cold cache: a file of its own, which ctest runs beside the rest.)"""

import numpy as np
import pytest

import gpulab.cupy as cp


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_arithmetic_is_numpys(dtype, rng):
    x = (rng.standard_normal(1000) * 10).astype(dtype)
    y = (rng.standard_normal(1000) * 10 + 50).astype(dtype)
    a, b = cp.asarray(x), cp.asarray(y)
    for got, want in [(a + b, x + y), (a - b, x - y), (a * b, x * y), (a / b, x / y), (a * 2, x * 2), (3 - a, 3 - x),
                      (-a, -x)]:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)
    a += b
    np.testing.assert_allclose(a.get(), x + y, rtol=1e-6)
    # float32 sums: within n·ε of the sum of magnitudes (cancellation makes a relative bound wrong)
    bound = len(x) * float(np.finfo(np.float32).eps) * float(np.abs(x.astype(np.float64)).sum())
    assert float(cp.asarray(x).sum()) == pytest.approx(float(x.astype(np.float64).sum()), abs=bound)
