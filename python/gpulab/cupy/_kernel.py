"""cupy.RawKernel and cupy.RawModule on GPU Lab: the source built by gpulab._modules (the emulator
with the checked mode, or nvcc on a GPU), launched as CuPy launches —
kernel(grid, block, args, shared_mem=0, stream=None) — with the arguments marshalled as CuPy
marshals them: an array as its device pointer, a NumPy scalar as its bytes, a Python int as a
64-bit integer, a float as a double, a bool as a bool. Where CuPy would hand the kernel bytes of the
wrong size (a Python float for a `float` parameter), GPU Lab says so instead."""

import ctypes
import re

import numpy

from .. import _modules
from ._array import _caller, ndarray
from .cuda._streams import get_current_stream
from .cuda.driver import CUDADriverError, KernelCheckError, checked_tool

_KIND_NAMES = {0: "pointer", 1: "signed integer", 2: "unsigned integer", 3: "floating-point", 4: "bool", 5: "value"}


def _dims(value, what):
    if isinstance(value, (int, numpy.integer)):
        value = (int(value),)
    value = tuple(value)
    if not 1 <= len(value) <= 3:
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, not {value!r}")
    for v in value:
        if not isinstance(v, (int, numpy.integer)) or isinstance(v, bool):
            raise TypeError(f"{what} must hold ints, not {type(v).__name__}")
        if not 0 <= v < 2**32:
            raise ValueError(f"{what} dimension {v} is out of range")
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


def _describe(arg):
    if isinstance(arg, numpy.generic):
        return f"numpy.{arg.dtype.name} ({arg.dtype.itemsize} bytes)"
    if isinstance(arg, bool):
        return "a Python bool (passed as 1 byte)"
    if isinstance(arg, int):
        return "a Python int (passed as a 64-bit integer, as CuPy does)"
    if isinstance(arg, float):
        return "a Python float (passed as a double, 8 bytes, as CuPy does)"
    return type(arg).__name__


def _marshal(i, arg, size, kind, kernel):
    """The bytes of argument i for a parameter of `size` bytes and `kind`, or a TypeError that says
    what CuPy would have passed."""
    where = f"{kernel}: argument {i}"
    if kind == 0:  # a pointer
        if isinstance(arg, ndarray):
            return ctypes.c_void_p(arg.data.ptr)
        if arg is None:
            return ctypes.c_void_p(0)
        if isinstance(arg, (int, numpy.integer)) and not isinstance(arg, bool):
            return ctypes.c_void_p(int(arg))  # a raw address (x.data.ptr)
        raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter is a pointer: pass a cupy array")
    if isinstance(arg, ndarray):
        raise TypeError(f"{where} is an array, but the kernel's parameter is a {size}-byte {_KIND_NAMES[kind]} "
                        "value, not a pointer")
    if isinstance(arg, bool):
        value = numpy.bool_(arg)
    elif isinstance(arg, int):
        value = numpy.int64(arg)
    elif isinstance(arg, float):
        value = numpy.float64(arg)
    elif isinstance(arg, complex):
        value = numpy.complex128(arg)
    elif isinstance(arg, numpy.generic):
        value = arg
    else:
        raise TypeError(f"{where}: unsupported type {type(arg).__name__}")
    got = value.dtype
    if kind in (1, 2) and got.kind in "iub":
        # An integer of another width: CuPy hands over its bytes, and a little-endian GPU reads the
        # low ones right when the value fits; it does not fit, or the kernel reads more than it got.
        target = numpy.dtype(("i" if kind == 1 else "u") + str(size))
        if got.itemsize < size and not isinstance(arg, (int, bool)):
            raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter has {size} bytes: CuPy "
                            f"would pass {got.itemsize} and the kernel would read past them. Pass "
                            f"numpy.{target.name}(value)")
        info = numpy.iinfo(target)
        if not info.min <= int(value) <= info.max:
            raise TypeError(f"{where} is {int(value)}, which does not fit the kernel's {size}-byte "
                            f"{_KIND_NAMES[kind]} parameter")
        value = target.type(int(value))
    elif kind == 3 and got.kind == "f" and got.itemsize != size:
        name = {2: "float16", 4: "float32", 8: "float64"}.get(size, "?")
        raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter is a {size}-byte float: CuPy "
                        f"would hand it {got.itemsize} bytes and the kernel would read a wrong number. Pass "
                        f"numpy.{name}(value)")
    elif kind == 3 and got.kind in "iu" and isinstance(arg, int):
        # CuPy would pass an int64, whose bits the kernel reads as a float.
        raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter is a {size}-byte float: "
                        f"the kernel would read the integer's bits as a float. Pass numpy.float{size * 8}"
                        f"({arg})")
    elif kind in (1, 2, 4) and got.kind not in "iub":
        raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter is a {size}-byte "
                        f"{_KIND_NAMES[kind]}")
    elif value.dtype.itemsize != size:
        raise TypeError(f"{where} is {_describe(arg)}, but the kernel's parameter has {size} bytes")
    buf = ctypes.create_string_buffer(value.tobytes(), size)
    return buf


class RawKernel:
    """cupy.RawKernel(code, name, options=()): a kernel of a CUDA source, built on first call."""

    def __init__(self, code, name, options=(), backend="nvcc", translate_cucomplex=False, enable_cooperative_groups=False,
                 jitify=False, *, _module=None):
        self.code = code
        self.name = name
        self.options = tuple(options)
        self._module = _module

    def _kernel(self):
        if self._module is None:
            self._module = _modules.build(self.code, [self.name], self.options, file_name=_file_name(self.name))
        return self._module.kernel(self.name)

    def compile(self, log_stream=None):
        self._kernel()

    @property
    def num_regs(self):
        return 0

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=False):
        launch, params = self._kernel()
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"{self.name}: args must be a tuple, not {type(args).__name__}")
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} argument{'s' if len(params) != 1 else ''}, but "
                            f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
        g, b = _dims(grid, "grid"), _dims(block, "block")
        if shared_mem < 0:
            raise ValueError("shared_mem must not be negative")
        held = [_marshal(i, a, size, kind, self.name) for i, (a, (size, kind)) in enumerate(zip(args, params))]
        pointers = (ctypes.c_void_p * max(1, len(held)))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in held])
        dims = (ctypes.c_uint * 6)(*g, *b)
        stream = stream or get_current_stream()
        code = launch(pointers, dims, int(shared_mem), stream.ptr or None)
        if code != 0:
            _raise_launch_error(code, self.name)


def _raise_launch_error(code, kernel):
    from .._native import runtime
    rt = runtime()
    # The launch is the Python line that called the kernel, not the module's generated launcher.
    file, line = _caller()
    text = re.sub(r" failed at [^:\s]+:\d+:", f" failed at {file}:{line}:", rt.error_text(code), count=1)
    rt.get_last_error()  # read: the next launch starts clean
    tool = checked_tool(text)
    if tool:
        raise KernelCheckError(code, text, tool, kernel)
    raise CUDADriverError(code, text)


def _file_name(name):
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return (safe or "kernel") + ".cu"


class RawModule:
    """cupy.RawModule(code=..., options=(), name_expressions=None): every __global__ function of a
    source (and the template instances name_expressions names), built once."""

    def __init__(self, code=None, path=None, options=(), backend="nvcc", translate_cucomplex=False,
                 enable_cooperative_groups=False, name_expressions=None, jitify=False):
        if code is None:
            if path is None:
                raise TypeError("RawModule needs code= or path=")
            with open(path) as f:
                code = f.read()
        self.code = code
        self.options = tuple(options)
        self.name_expressions = list(name_expressions or ())
        self._module = None

    def _built(self):
        if self._module is None:
            names = _modules.kernel_names(self.code) + self.name_expressions
            self._module = _modules.build(self.code, names, self.options, file_name="module.cu")
        return self._module

    def compile(self, log_stream=None):
        self._built()

    def get_function(self, name):
        module = self._built()
        module.kernel(name)  # raises for a name the module does not have
        return RawKernel(self.code, name, self.options, _module=module)
