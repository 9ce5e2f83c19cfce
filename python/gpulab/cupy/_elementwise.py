"""cupy.ElementwiseKernel(in_params, out_params, operation, name): CuPy's element-wise kernels,
generated as a plain CUDA kernel (one thread per element, a grid-stride loop) and built like any
RawKernel. Parameters are "type name" lists: a NumPy type name (float32), a C type (float), or a
one-word placeholder (T) bound by the arguments' types; "raw T x" passes the whole array, indexed
by hand with `i`. Arrays of one shape and scalars (broadcast) are supported; the outputs are
allocated when not given."""

import re

import numpy

from ._array import ndarray
from ._kernel import RawKernel

_C_TYPES = {
    "bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
    "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int", "uint64": "unsigned long long",
    "float16": "__half", "float32": "float", "float64": "double",
}
_FROM_C = {"float": "float32", "double": "float64", "int": "int32", "long long": "int64", "unsigned int": "uint32",
           "char": "int8", "signed char": "int8", "unsigned char": "uint8", "short": "int16", "bool": "bool",
           "long": "int64", "unsigned long long": "uint64", "half": "float16", "__half": "float16"}


def _parse(params):
    out = []
    for p in filter(None, (x.strip() for x in params.split(","))):
        words = p.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) < 2:
            raise ValueError(f"Syntax error: {p!r}")
        out.append((raw, " ".join(words[:-1]), words[-1]))
    return out


def _dtype_of(type_name):
    """The NumPy type a parameter's type names, or None for a placeholder (T, U, ...). Only the names
    CuPy's element-wise kernels take count as types: NumPy 2 reads "T" as its string type."""
    if type_name in _FROM_C:
        return numpy.dtype(_FROM_C[type_name])
    if type_name in _C_TYPES or type_name in ("complex64", "complex128"):
        return numpy.dtype(type_name)
    return None


class ElementwiseKernel:
    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="", no_return=False,
                 return_tuple=False, loop_prep="", after_loop="", options=()):
        self.in_params = _parse(in_params)
        self.out_params = _parse(out_params)
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.options = tuple(options)
        self.no_return = no_return
        self.return_tuple = return_tuple
        self._kernels = {}

    def _bind(self, args):
        types = {}
        for (raw, t, name), a in zip(self.in_params + self.out_params, args):
            if a is None or _dtype_of(t) is not None:
                continue
            got = a.dtype if isinstance(a, (ndarray, numpy.ndarray, numpy.generic)) else None
            if got is not None and (t not in types or isinstance(a, ndarray)):
                types[t] = got
        for (raw, t, name), a in zip(self.in_params, args):  # Python scalars last: weakest
            if t not in types and _dtype_of(t) is None and a is not None:
                types[t] = numpy.asarray(a).dtype
        return types

    def _source(self, types, scalars):
        def ctype(t):
            d = _dtype_of(t) or types.get(t)
            if d is None:
                raise TypeError(f"{self.name}: the type {t} is not determined by the arguments")
            return _C_TYPES.get(d.name, t)

        params, body = [], []
        for k, (raw, t, name) in enumerate(self.in_params + self.out_params):
            out = k >= len(self.in_params)
            c = ctype(t)
            if scalars[k]:
                params.append(f"const {c} {name}")
            elif raw:
                params.append(f"{'' if out else 'const '}{c}* {name}")
            else:
                params.append(f"{'' if out else 'const '}{c}* _p_{name}")
                body.append(f"    {c}& {name} = _p_{name}[i];" if out else f"    const {c} {name} = _p_{name}[i];")
        typedefs = "".join(f"typedef {_C_TYPES.get(d.name, d.name)} {t};\n" for t, d in types.items())
        half = "#include <cuda_fp16.h>\n" if "__half" in " ".join(params) else ""
        return (f"{half}{typedefs}{self.preamble}\n"
                f"struct _gpulab_index {{ long long n; __device__ long long size() const {{ return n; }} }};\n"
                f"extern \"C\" __global__ void {self.name}({', '.join(params + ['const long long _n'])}) {{\n"
                f"  const _gpulab_index _ind{{_n}};\n  (void)_ind;\n  {self.loop_prep}\n"
                f"  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < _n;\n"
                f"       i += (long long)blockDim.x * gridDim.x) {{\n" + "\n".join(body) +
                f"\n    {self.operation};\n  }}\n  {self.after_loop}\n}}\n")

    def __call__(self, *args, size=None, block_size=128, stream=None):
        n_in, n_out = len(self.in_params), len(self.out_params)
        if len(args) not in (n_in, n_in + n_out):
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either {n_in} or "
                            f"{n_in + n_out} (with outputs), but given {len(args)}.")
        args = list(args) + [None] * (n_in + n_out - len(args))
        shapes = {a.shape for a, p in zip(args, self.in_params + self.out_params) if isinstance(a, ndarray) and not p[0]}
        if len(shapes) > 1:
            raise ValueError(f"{self.name}: arrays of different shapes {sorted(shapes)} (GPU Lab's element-wise "
                             "kernels broadcast scalars only)")
        shape = shapes.pop() if shapes else None
        if shape is None:
            if size is None:
                raise ValueError("Loop size is undecided")
            shape = (int(size),)
        types = self._bind(args)
        for k, (raw, t, name) in enumerate(self.out_params):
            if args[n_in + k] is None:
                d = _dtype_of(t) or types.get(t)
                if d is None:
                    raise TypeError(f"{self.name}: the output type {t} is not determined by the inputs")
                args[n_in + k] = ndarray(shape, d)
        scalars = tuple(not isinstance(a, ndarray) for a in args)
        key = (tuple(sorted((t, d.str) for t, d in types.items())), scalars)
        if key not in self._kernels:
            self._kernels[key] = RawKernel(self._source(types, scalars), self.name, self.options)
        kernel = self._kernels[key]
        n = 1
        for s in shape:
            n *= s
        marshalled = []
        for a, (raw, t, name) in zip(args, self.in_params + self.out_params):
            if isinstance(a, ndarray):
                marshalled.append(a)
            else:
                d = _dtype_of(t) or types[t]
                marshalled.append(d.type(a))
        if n > 0:
            grid = min((n + block_size - 1) // block_size, 65535)
            kernel((grid,), (block_size,), tuple(marshalled) + (numpy.int64(n),), stream=stream)
        outs = args[n_in:]
        if self.no_return:
            return None
        return tuple(outs) if (len(outs) > 1 or self.return_tuple) else outs[0]


_BINARY = {}


def binary(op, a, b, out=None):
    """a op b for arrays and scalars, as an element-wise kernel; the result type as NumPy's."""
    def dtype(x):
        if isinstance(x, ndarray):
            return x.dtype
        return numpy.asarray(x).dtype

    result = numpy.result_type(*(x.dtype if isinstance(x, ndarray) else x for x in (a, b)))
    if op == "/" and result.kind in "iub":
        result = numpy.dtype(numpy.float64)
    key = (op, dtype(a).name, dtype(b).name, result.name)
    if key not in _BINARY:
        _BINARY[key] = ElementwiseKernel(f"{dtype(a).name} a, {dtype(b).name} b", f"{result.name} c",
                                         f"c = ({_C_TYPES[result.name]})a {op} ({_C_TYPES[result.name]})b",
                                         "gpulab_" + {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}[op])
    if out is not None:
        _BINARY[key](a, b, out)
        return out
    return _BINARY[key](a, b)
