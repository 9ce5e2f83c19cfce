"""cupy.ndarray for GPU Lab: a C-contiguous array in device memory (the emulator's, checked, or a
GPU's), with the constructors CuPy scripts use most. Arithmetic (+ - * /) runs as element-wise
kernels (_elementwise.py); sum() is computed through the host."""

import ctypes
import os
import sys

import numpy

from .._native import runtime as _rt
from .cuda._streams import get_current_stream
from .cuda.runtime import check

_HOST_TO_DEVICE, _DEVICE_TO_HOST, _DEVICE_TO_DEVICE = 1, 2, 3


def _caller():
    """The file and line of the user's code that made an array or a launch (the checked mode's
    reports name them): a notebook's cell by its number, In [3]."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame = frame.f_back
    if frame is None:
        return "<python>", 0
    file = frame.f_code.co_filename
    if "ipykernel_" in file or file.startswith("<ipython-input"):
        try:
            number = get_ipython().compile._filename_map[file]  # noqa: F821 (IPython's own)
            file = f"In [{number}]"
        except Exception:
            file = "a notebook cell"
    return file, frame.f_lineno


class MemoryPool:
    """CuPy's memory pool, on a GPU: a freed array's memory is kept for the next array of the same
    rounded size (cudaMalloc and cudaFree cost far more than a launch). On the emulator there is no
    pool: each array is its own allocation, so that the checked mode sees a read of memory nothing
    wrote, or of an array already freed."""

    def __init__(self):
        self._free = {}  # rounded size: device addresses
        self._used = 0
        self._held = 0

    @staticmethod
    def rounded(nbytes):
        return (nbytes + 511) // 512 * 512

    def malloc(self, nbytes):
        size = self.rounded(nbytes)
        blocks = self._free.get(size)
        if blocks:
            self._used += size
            return blocks.pop(), size
        handle = ctypes.c_void_p()
        code = _rt().malloc(ctypes.byref(handle), size, b"", b"", 0, 1)
        if code != 0:  # out of memory: give back what is kept, then once more
            self.free_all_blocks()
            code = _rt().malloc(ctypes.byref(handle), size, b"", b"", 0, 1)
        check(code)
        self._used += size
        self._held += size
        return handle.value, size

    def free(self, ptr, size):
        self._used -= size
        self._free.setdefault(size, []).append(ptr)

    def free_all_blocks(self):
        rt = _rt()
        for size, blocks in self._free.items():
            for ptr in blocks:
                rt.free(ptr)
                self._held -= size
        self._free.clear()

    def used_bytes(self):
        return self._used

    def total_bytes(self):
        return self._held

    def free_bytes(self):
        return self._held - self._used


_pool = MemoryPool()


def get_default_memory_pool():
    return _pool


class _Memory:
    """One array's device memory: from the pool on a GPU, a named cudaMalloc on the emulator."""

    def __init__(self, nbytes, label, element_bytes):
        self.rt = _rt()
        self.size = nbytes
        self.ptr = 0
        self.pooled = 0
        if nbytes > 0:
            if self.rt.gpu:
                self.ptr, self.pooled = _pool.malloc(nbytes)
                return
            file, line = _caller()
            handle = ctypes.c_void_p()
            check(self.rt.malloc(ctypes.byref(handle), nbytes, label.encode(), os.path.basename(file).encode(), line,
                                 element_bytes))
            self.ptr = handle.value

    def __del__(self):
        if self.ptr:
            try:
                if self.pooled:
                    _pool.free(self.ptr, self.pooled)
                else:
                    self.rt.free(self.ptr)
            except Exception:  # the interpreter is shutting down
                pass
            self.ptr = 0


class MemoryPointer:
    """cupy.cuda.MemoryPointer: `ptr` is the device address."""

    def __init__(self, mem, offset=0):
        self.mem = mem
        self.ptr = mem.ptr + offset if mem.ptr else 0


def _shape_of(shape):
    if isinstance(shape, (int, numpy.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


class ndarray:
    """A C-contiguous array in device memory. `ndarray(shape, dtype=float)` allocates it uninitialised
    (as cupy.empty: on the emulator, a kernel that reads it before anything writes it is reported)."""

    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None):
        self._shape = _shape_of(shape)
        self._dtype = numpy.dtype(dtype)
        size = 1
        for s in self._shape:
            size *= s
        self._size = size
        if memptr is None:
            label = f"{self._dtype.name}[{','.join(map(str, self._shape))}]"
            memptr = MemoryPointer(_Memory(size * self._dtype.itemsize, label, self._dtype.itemsize))
        self.data = memptr

    # ---- what an array is
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    size = property(lambda self: self._size)
    ndim = property(lambda self: len(self._shape))
    itemsize = property(lambda self: self._dtype.itemsize)
    nbytes = property(lambda self: self._size * self._dtype.itemsize)

    @property
    def strides(self):
        strides, step = [], self.itemsize
        for s in reversed(self._shape):
            strides.append(step)
            step *= s
        return tuple(reversed(strides))

    @property
    def device(self):
        from .cuda import Device
        return Device(0)

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __repr__(self):
        return "array(" + numpy.array2string(self.get(), separator=", ", prefix="array(") + \
            (f", dtype={self.dtype.name})" if self.dtype not in (numpy.float64, numpy.int64, numpy.bool_) else ")")

    def __str__(self):
        return str(self.get())

    # CuPy refuses to turn itself into a NumPy array silently (a hidden copy from the device).
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct "
                        "a NumPy array explicitly.")

    # ---- copies
    def get(self, stream=None, out=None):
        """The array's contents in a NumPy array (a copy from the device)."""
        host = out if out is not None else numpy.empty(self._shape, self._dtype)
        if self.nbytes:
            s = stream or get_current_stream()
            check(_rt().memcpy(host.ctypes.data, self.data.ptr, self.nbytes, _DEVICE_TO_HOST, s.ptr or None))
            if s.ptr:
                s.synchronize()
        return host

    def set(self, arr, stream=None):
        """Copies a NumPy array of the same shape in."""
        host = numpy.asarray(arr, dtype=self._dtype, order="C")
        if host.shape != self._shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._shape}, new shape: {host.shape}")
        if self.nbytes:
            s = stream or get_current_stream()
            check(_rt().memcpy(self.data.ptr, host.ctypes.data, self.nbytes, _HOST_TO_DEVICE, s.ptr or None))
            if s.ptr:
                s.synchronize()

    def copy(self, order="C"):
        out = ndarray(self._shape, self._dtype)
        if self.nbytes:
            check(_rt().memcpy(out.data.ptr, self.data.ptr, self.nbytes, _DEVICE_TO_DEVICE,
                               get_current_stream().ptr or None))
        return out

    def fill(self, value):
        if not self.nbytes:
            return
        if value == 0:
            check(_rt().memset(self.data.ptr, 0, self.nbytes, get_current_stream().ptr or None))
        else:
            self.set(numpy.full(self._shape, value, self._dtype))

    def astype(self, dtype, copy=True):
        dtype = numpy.dtype(dtype)
        if dtype == self._dtype and not copy:
            return self
        return array(self.get().astype(dtype))

    # ---- indexing, through the host: a copy of the selected elements (not a view, as CuPy's
    # slices are); assignment copies the whole array there and back
    def __getitem__(self, key):
        if isinstance(key, ndarray):
            key = key.get()
        return array(numpy.asarray(self.get()[key]))

    def __setitem__(self, key, value):
        host = self.get()
        host[key] = value.get() if isinstance(value, ndarray) else value
        self.set(host)

    # ---- views (the same memory)
    def reshape(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], (int, numpy.integer)):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) == 1:
            known = 1
            for s in shape:
                known *= s if s != -1 else 1
            shape[shape.index(-1)] = self._size // known if known else 0
        shape = _shape_of(shape)
        n = 1
        for s in shape:
            n *= s
        if n != self._size:
            raise ValueError(f"cannot reshape array of size {self._size} into shape {shape}")
        return ndarray(shape, self._dtype, memptr=self.data)

    def ravel(self):
        return self.reshape(self._size)

    @property
    def T(self):
        if self.ndim < 2:
            return self
        return array(self.get().T)

    # ---- arithmetic: element-wise kernels
    def _binary(self, other, op, reflected=False):
        from ._elementwise import binary
        return binary(op, other, self) if reflected else binary(op, self, other)

    def __add__(self, o): return self._binary(o, "+")
    def __radd__(self, o): return self._binary(o, "+", True)
    def __sub__(self, o): return self._binary(o, "-")
    def __rsub__(self, o): return self._binary(o, "-", True)
    def __mul__(self, o): return self._binary(o, "*")
    def __rmul__(self, o): return self._binary(o, "*", True)
    def __truediv__(self, o): return self._binary(o, "/")
    def __rtruediv__(self, o): return self._binary(o, "/", True)
    def __neg__(self): return self._binary(-1, "*", True)

    def __iadd__(self, o):
        from ._elementwise import binary
        return binary("+", self, o, out=self)

    def __isub__(self, o):
        from ._elementwise import binary
        return binary("-", self, o, out=self)

    def __imul__(self, o):
        from ._elementwise import binary
        return binary("*", self, o, out=self)

    # ---- reductions, through the host (a copy back; a lesson's reduction kernel is the fast way)
    def sum(self, axis=None, dtype=None, keepdims=False):
        return array(numpy.asarray(self.get().sum(axis=axis, dtype=dtype, keepdims=keepdims)))

    def mean(self, axis=None, dtype=None, keepdims=False):
        return array(numpy.asarray(self.get().mean(axis=axis, dtype=dtype, keepdims=keepdims)))

    def max(self, axis=None, keepdims=False):
        return array(numpy.asarray(self.get().max(axis=axis, keepdims=keepdims)))

    def argmax(self, axis=None):
        return array(numpy.asarray(self.get().argmax(axis=axis)))

    def item(self):
        return self.get().item()

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __bool__(self):
        if self._size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous.")
        return bool(self.get())


# ---- constructors, as CuPy's
def empty(shape, dtype=float, order="C"):
    return ndarray(shape, dtype)


def zeros(shape, dtype=float, order="C"):
    a = ndarray(shape, dtype)
    a.fill(0)
    return a


def ones(shape, dtype=float, order="C"):
    a = ndarray(shape, dtype)
    a.fill(1)
    return a


def full(shape, fill_value, dtype=None, order="C"):
    a = ndarray(shape, dtype if dtype is not None else numpy.array(fill_value).dtype)
    a.fill(fill_value)
    return a


def empty_like(a, dtype=None, shape=None):
    return ndarray(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None, shape=None):
    return zeros(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def ones_like(a, dtype=None, shape=None):
    return ones(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def array(obj, dtype=None, copy=True, order="C", ndmin=0):
    if isinstance(obj, ndarray):
        if dtype is not None and numpy.dtype(dtype) != obj.dtype:
            return obj.astype(dtype)
        return obj.copy() if copy else obj
    host = numpy.array(obj, dtype=dtype, order="C", ndmin=ndmin)
    if host.dtype == object:
        raise ValueError("Unsupported dtype object")
    a = ndarray(host.shape, host.dtype)
    a.set(host)
    return a


def asarray(a, dtype=None, order=None):
    return array(a, dtype=dtype, copy=False)


def asnumpy(a, stream=None, order="C", out=None):
    if isinstance(a, ndarray):
        return a.get(stream=stream, out=out)
    return numpy.asarray(a)


def arange(start, stop=None, step=1, dtype=None):
    return array(numpy.arange(start, stop, step, dtype=dtype))


def get_array_module(*args):
    import gpulab.cupy
    return gpulab.cupy if any(isinstance(a, ndarray) for a in args) else numpy
