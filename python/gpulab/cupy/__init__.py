"""gpulab.cupy: CuPy's kernel-facing API on GPU Lab — on a GPU (nvcc and CUDA's runtime) or, without
one, on GPU Lab's emulator in its checked mode, where an out-of-bounds access, a race, an
uninitialised read or a barrier not every thread reaches raises KernelCheckError with the report.

    import gpulab.cupy as cp      # instead of: import cupy as cp

Arrays (ndarray and its constructors), RawKernel, RawModule, ElementwiseKernel, cuda.Stream,
cuda.Event, cuda.Device and cuda.runtime's device queries; what is not here raises AttributeError."""

import numpy

from . import cuda  # noqa: F401
from ._array import (MemoryPointer, MemoryPool, arange, get_default_memory_pool, array, asarray, asnumpy, empty, empty_like, full, get_array_module,  # noqa: F401
                     ndarray, ones, ones_like, zeros, zeros_like)
from ._elementwise import ElementwiseKernel  # noqa: F401
from ._kernel import RawKernel, RawModule  # noqa: F401
from .cuda.driver import KernelCheckError  # noqa: F401

# NumPy's types under CuPy's names.
from numpy import (bool_, dtype, float16, float32, float64, int8, int16, int32, int64, uint8, uint16,  # noqa: F401
                   uint32, uint64)

__all__ = ["ndarray", "array", "asarray", "asnumpy", "empty", "zeros", "ones", "full", "empty_like", "zeros_like",
           "ones_like", "arange", "RawKernel", "RawModule", "ElementwiseKernel", "cuda", "KernelCheckError"]


def is_available():
    return cuda.is_available()


def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    return a.sum(axis=axis, dtype=dtype, keepdims=keepdims)


newaxis = numpy.newaxis
