"""cupy.RawKernel and cupy.RawModule on GPU Lab: the source built by gpulab._modules (the emulator
with the checked mode, or nvcc on a GPU), launched as CuPy launches —
kernel(grid, block, args, shared_mem=0, stream=None) — with the arguments marshalled as CuPy
marshals them: an array as its device pointer, a NumPy scalar as its bytes, a Python int as a
64-bit integer, a float as a double, a bool as a bool. Where CuPy would hand the kernel bytes of the
wrong size (a Python float for a `float` parameter), GPU Lab says so instead."""

import ctypes
import re
import struct
import threading

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
        self._plan = None

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
        plan = self._plan if self._plan is not None else self._make_plan()
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"{self.name}: args must be a tuple, not {type(args).__name__}")
        if len(args) != plan.count:
            n = plan.count
            raise TypeError(f"{self.name} takes {n} argument{'s' if n != 1 else ''}, but "
                            f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
        if type(shared_mem) is not int or shared_mem < 0:
            if not isinstance(shared_mem, (int, numpy.integer)) or shared_mem < 0:
                raise ValueError("shared_mem must be a non-negative int")
            shared_mem = int(shared_mem)
        if threading.get_ident() != plan.thread:  # another thread's launch: slots of its own
            plan = _Plan(plan.launch, list(zip(plan.sizes, plan.kinds)))
        # each argument's bits into its 8-byte slot (the fast path), or a buffer of its own
        slots, pointers, held = plan.slots, plan.pointers, None
        i = 0
        for a in args:
            bits = plan.fast[i](a)
            if bits is None:  # not a common case: checked and marshalled the general way
                if held is None:
                    held = []
                held.append((i, _marshal(i, a, plan.sizes[i], plan.kinds[i], self.name)))
            else:
                slots[i] = bits
            i += 1
        if held is not None or plan.dirty:  # pointers to the slots, but for the general path's buffers
            for j, address in enumerate(plan.slot_addresses):
                pointers[j] = address
            for j, buffer in held or ():
                pointers[j] = ctypes.addressof(buffer)
            plan.dirty = held is not None
        if grid is not plan.grid or block is not plan.block:  # the configuration, set when it changes
            g, b = _dims(grid, "grid"), _dims(block, "block")
            plan.dims[:] = g + b
            plan.grid, plan.block = grid, block
        stream = stream or get_current_stream()
        code = plan.launch(pointers, plan.dims, shared_mem, stream.ptr or None)
        if code != 0:
            _raise_launch_error(code, self.name)

    def _make_plan(self):
        launch, params = self._kernel()
        self._plan = _Plan(launch, params)
        return self._plan


class _Plan:
    """A kernel's launch, prepared once: a slot of 8 bytes per argument and the array of pointers to
    them that the launcher reads, and for each parameter a converter from a Python value to the
    slot's bits — or None, for the general path (_marshal: every check and its message)."""

    def __init__(self, launch, params):
        self.launch = launch
        self.count = len(params)
        self.sizes = [size for size, _ in params]
        self.kinds = [kind for _, kind in params]
        n = max(1, self.count)
        self.slots = (ctypes.c_uint64 * n)()
        base = ctypes.addressof(self.slots)
        self.slot_addresses = [base + 8 * i for i in range(n)]
        self.pointers = (ctypes.c_void_p * n)(*self.slot_addresses)
        self.dims = (ctypes.c_uint * 6)()
        self.fast = [_fast_converter(size, kind) for size, kind in params]
        self.thread = threading.get_ident()  # the thread whose launches use these slots
        self.dirty = False  # whether a pointer points elsewhere than its slot
        self.grid = self.block = None


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")


def _fast_converter(size, kind):
    """The common arguments' bits, without the checks' cost: an array for a pointer, a NumPy scalar
    of the parameter's own type, a Python int that fits an integer parameter, a Python float for a
    double. Anything else returns None (the general path decides, or says why not)."""
    if kind == 0:
        def pointer(a):
            return a.data.ptr if type(a) is ndarray else None
        return pointer
    if kind in (1, 2) and size <= 8:
        low, high = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if kind == 1 else (0, (1 << (8 * size)) - 1)
        mask = (1 << 64) - 1
        exact = numpy.dtype(("i" if kind == 1 else "u") + str(size)).type

        def integer(a):
            t = type(a)
            if t is int or t is exact:
                v = int(a)
                if low <= v <= high:
                    return v & mask
            return None
        return integer
    if kind == 3 and size == 4:
        def single(a):
            return _U32.unpack(_F32.pack(a))[0] if type(a) is numpy.float32 else None
        return single
    if kind == 3 and size == 8:
        def double(a):
            t = type(a)
            return _U64.unpack(_F64.pack(a))[0] if t is float or t is numpy.float64 else None
        return double
    return lambda a: None


def _raise_launch_error(code, kernel):
    from .._native import runtime
    rt = runtime()
    # The launch is the Python line that called the kernel, not the module's generated launcher.
    file, line = _caller()
    text = re.sub(r" failed at [^:\n]+:\d+:", f" failed at {file}:{line}:", rt.error_text(code), count=1)
    text = text.replace(" — =========", ":\n=========", 1)  # the report on lines of its own
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
