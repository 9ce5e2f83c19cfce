"""Building a learner's CUDA source into a module Python loads — the way gpulab_run builds a
program: on the emulator GPU Lab's source rewrite, then the host compiler with the checked mode's
instrumentation; on a GPU nvcc. Each kernel gets two C functions appended (python/native/launch.hpp):
one launches it through the source's own kernel<<<...>>> with CuPy's calling convention, one says
its parameters. Modules are cached by a hash of everything they are built from, so the second run
of a script (or a notebook cell) loads the module at once."""

import ctypes
import hashlib
import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

from . import _config
from ._native import runtime

_RECIPE = "python module (2: cuda_runtime.h precompiled)"


class CompileError(Exception):
    """A source that did not build: the compiler's messages, on the source's own lines."""

    def __init__(self, message, source, name, options):
        super().__init__(message)
        self.source = source
        self.name = name
        self.options = options

    def get_message(self):
        return str(self)

    def dump(self, f):
        f.write(str(self) + "\n")


def _symbol(name):
    """A C identifier for a kernel's name ("scale<float>" included)."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "x" + hashlib.sha1(name.encode()).hexdigest()[:16]


def kernel_names(source):
    """The __global__ functions a source defines (not templates: those need name_expressions)."""
    names = []
    for m in re.finditer(r"__global__\b([^;{(]*?)\b([A-Za-z_]\w*)\s*\(", source):
        before = source[max(0, m.start() - 200):m.start()]
        if re.search(r"template\s*<[^;{}]*>\s*$", before):
            continue
        if m.group(2) not in names:
            names.append(m.group(2))
    return names


def _wrappers(names):
    out = ['\n#include "launch.hpp"\n']
    for name in names:
        s = _symbol(name)
        out.append(
            f'extern "C" int gpulab_parameters_{s}(const std::size_t** sizes, const int** kinds) {{\n'
            f"  return ::gpulab_python::describe<decltype({name})>(sizes, kinds);\n}}\n"
            f'extern "C" int gpulab_launch_{s}(void** gpulab_args, const unsigned* gpulab_dims, '
            f"unsigned gpulab_shared, void* gpulab_stream) {{\n"
            f"  ::gpulab_python::Parameters<decltype({name})>::call(gpulab_args, [&](const auto&... gpulab_x) {{\n"
            f"    {name}<<<dim3(gpulab_dims[0], gpulab_dims[1], gpulab_dims[2]), "
            f"dim3(gpulab_dims[3], gpulab_dims[4], gpulab_dims[5]), gpulab_shared, "
            f"static_cast<cudaStream_t>(gpulab_stream)>>>(gpulab_x...);\n"
            f"  }});\n  return static_cast<int>(cudaPeekAtLastError());\n}}\n")
    return "".join(out)


def _split_options(options):
    """nvcc's and NVRTC's options a module takes: -I and -D (others, such as --std or
    --use_fast_math, are accepted and left to the compiler's defaults)."""
    includes, defines = [], []
    words = list(options)
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-I", "--include-path", "-D", "--define-macro") and i + 1 < len(words):
            (includes if w in ("-I", "--include-path") else defines).append(words[i + 1])
            i += 2
            continue
        if w.startswith("-I") or w.startswith("--include-path="):
            includes.append(w.split("=", 1)[1] if w.startswith("--") else w[2:])
        elif w.startswith("-D") or w.startswith("--define-macro="):
            defines.append(w.split("=", 1)[1] if w.startswith("--") else w[2:])
        i += 1
    return [os.path.abspath(p) for p in includes], defines


def _run(command, cwd, log):
    p = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.append(p.stdout)
    return p.returncode == 0


class Module:
    """A loaded module: its kernels' launch and parameter functions."""

    def __init__(self, path, names):
        self.path = path
        self.lib = ctypes.CDLL(str(path))
        self.names = names
        self._kernels = {}

    def kernel(self, name):
        if name not in self._kernels:
            s = _symbol(name)
            try:
                launch = getattr(self.lib, "gpulab_launch_" + s)
                describe = getattr(self.lib, "gpulab_parameters_" + s)
            except AttributeError:
                raise AttributeError(f"no kernel named {name!r} in this module (its kernels: "
                                     f"{', '.join(self.names) or 'none'})") from None
            launch.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint), ctypes.c_uint,
                               ctypes.c_void_p]
            launch.restype = ctypes.c_int
            describe.argtypes = [ctypes.POINTER(ctypes.POINTER(ctypes.c_size_t)),
                                 ctypes.POINTER(ctypes.POINTER(ctypes.c_int))]
            describe.restype = ctypes.c_int
            sizes = ctypes.POINTER(ctypes.c_size_t)()
            kinds = ctypes.POINTER(ctypes.c_int)()
            count = describe(ctypes.byref(sizes), ctypes.byref(kinds))
            params = [(sizes[i], kinds[i]) for i in range(count)]
            self._kernels[name] = (launch, params)
        return self._kernels[name]


_loaded = {}


def build(source, names, options=(), file_name="kernel.cu"):
    """The module of `source` with launchers for `names`, built or found built."""
    rt = runtime()
    cfg = _config.config()
    includes, defines = _split_options(options)
    key_text = "\n".join([_RECIPE, rt.name, cfg["cxx"], cfg.get("nvcc", ""), source, "|".join(names),
                          "|".join(includes), "|".join(defines), file_name])
    if not rt.gpu:  # a rebuilt emulator rebuilds the modules
        key_text += str(os.stat(cfg["emulated_bridge"]).st_mtime_ns)
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    if key in _loaded:
        return _loaded[key]
    folder = _config.cache_dir("python") / key
    module_path = folder / "module.so"
    if not module_path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:
            built = _compile(source, names, includes, defines, file_name, Path(work), rt.gpu, cfg)
            os.replace(built, module_path)
    module = Module(module_path, names)
    _loaded[key] = module
    return module


def _compile(source, names, includes, defines, file_name, work, gpu, cfg):
    src = work / file_name
    src.write_text(source + "\n" + _wrappers(names))
    user = []
    for d in includes:
        user += ["-I", d]
    for d in defines:
        user += ["-D" + d]
    log = []
    out = work / "module.so"
    if gpu:
        ok = _run([cfg["nvcc"], "-std=c++20", "-O2", "-arch=native", "-lineinfo", "-Xcompiler", "-fPIC", "-shared",
                   "-cudart", "shared", "-I", cfg["native_include"]] + user + ["-o", str(out), file_name], work, log)
    else:
        rewritten = work / (Path(file_name).stem + ".emulated.cpp")
        obj = work / "module.o"
        # The emulator's cuda_runtime.h precompiled with these flags at GPU Lab's build (its 87,000
        # lines parsed once there: 1.2 s -> 0.2 s a module), where there is one.
        pch = Path(cfg.get("precompiled", ""))
        precompiled = (["-I", str(pch), "-include", "cuda_runtime.h", "-include", "after_precompiled.h"]
                       if cfg.get("precompiled") and (pch / "cuda_runtime.h.gch").exists() else [])
        ok = (_run([cfg["rewrite"], "--emulated", "--header", file_name, str(rewritten)], work, log) and
              _run([cfg["cxx"], "-std=c++20", "-O2", "-fPIC", "-Wno-unknown-pragmas", "-Wno-volatile"] + precompiled +
                   ["-iquote", str(work),
                    "-I", cfg["emulator_include"], "-I", cfg["kernels_include"], "-I", cfg["native_include"],
                    # reports name the source as the learner wrote it, without the build's folder
                    f"-fdebug-prefix-map={work}="] + user +
                   cfg["checked_flags"] + ["-x", "c++", "-c", str(rewritten), "-o", str(obj)], work, log) and
              _run([cfg["cxx"], "-shared", "-o", str(out), str(obj)], work, log))
    if not ok:
        text = "".join(log).replace(str(work) + "/", "")
        raise CompileError(text.strip() or "the build failed", source, names, (includes, defines))
    return out
