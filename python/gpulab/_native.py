"""The CUDA runtime the package runs on, loaded once: GPU Lab's emulator (the CPU, with the checked
mode) or CUDA's own runtime on a GPU. Chosen by $GPULAB_BACKEND — "emulated", "gpu" or "auto" (the
default: the GPU where this build has the GPU backend and a GPU is there, else the emulator) — or
by gpulab.use() before the first array or kernel."""

import ctypes
import os
import threading

from . import _config

_lock = threading.Lock()
_runtime = None
_chosen = None

c_size = ctypes.c_size_t
c_void = ctypes.c_void_p
c_int = ctypes.c_int

# (name, argument types): every function returns CUDA's error code (python/native/bridge.cpp).
_SIGNATURES = {
    "gl_get_last_error": [],
    "gl_malloc": [ctypes.POINTER(c_void), c_size, ctypes.c_char_p, ctypes.c_char_p, c_int, c_size],
    "gl_free": [c_void],
    "gl_memcpy": [c_void, c_void, c_size, c_int, c_void],
    "gl_memset": [c_void, c_int, c_size, c_void],
    "gl_device_count": [ctypes.POINTER(c_int)],
    "gl_set_device": [c_int],
    "gl_get_device": [ctypes.POINTER(c_int)],
    "gl_device_synchronize": [],
    "gl_mem_get_info": [ctypes.POINTER(c_size), ctypes.POINTER(c_size)],
    "gl_runtime_version": [ctypes.POINTER(c_int)],
    "gl_driver_version": [ctypes.POINTER(c_int)],
    "gl_device_properties": [c_int, ctypes.c_char_p, c_size, ctypes.POINTER(ctypes.c_longlong), c_int],
    "gl_stream_create": [ctypes.POINTER(c_void), c_int],
    "gl_stream_destroy": [c_void],
    "gl_stream_synchronize": [c_void],
    "gl_stream_query": [c_void],
    "gl_stream_wait_event": [c_void, c_void],
    "gl_event_create": [ctypes.POINTER(c_void), c_int],
    "gl_event_destroy": [c_void],
    "gl_event_record": [c_void, c_void],
    "gl_event_synchronize": [c_void],
    "gl_event_query": [c_void],
    "gl_event_elapsed": [ctypes.POINTER(ctypes.c_float), c_void, c_void],
}


class Runtime:
    """The loaded bridge: `gpu` says which. Its functions are attributes (ctypes functions)."""

    def __init__(self, path, gpu):
        self.gpu = gpu
        self.path = path
        # Global: the kernel modules loaded later resolve the emulator's functions to this copy.
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        for name, args in _SIGNATURES.items():
            f = getattr(self.lib, name)
            f.argtypes = args
            f.restype = c_int
            setattr(self, name[3:], f)
        self.lib.gl_error_text.argtypes = [c_int]
        self.lib.gl_error_text.restype = ctypes.c_char_p

    def error_text(self, code):
        return self.lib.gl_error_text(code).decode(errors="replace")

    @property
    def name(self):
        return "gpu" if self.gpu else "emulated"


def use(backend):
    """Chooses the backend ("emulated", "gpu" or "auto") before anything has run."""
    global _chosen
    if backend not in ("emulated", "gpu", "auto"):
        raise ValueError(f"gpulab.use: backend must be 'emulated', 'gpu' or 'auto', not {backend!r}")
    with _lock:
        if _runtime is not None and backend != "auto" and _runtime.name != backend:
            raise RuntimeError(f"gpulab.use({backend!r}): this process already runs on the {_runtime.name} "
                               "backend (choose before the first array or kernel, or set GPULAB_BACKEND)")
        _chosen = backend


def _gpu_runtime(cfg):
    path = cfg.get("gpu_bridge") or ""
    if not path or not os.path.exists(path):
        return None, "this GPU Lab was built without the CUDA toolkit"
    try:
        rt = Runtime(path, gpu=True)
    except OSError as e:
        return None, f"CUDA's runtime did not load ({e})"
    count = c_int(0)
    if rt.device_count(ctypes.byref(count)) != 0 or count.value == 0:
        return None, "no GPU here"
    return rt, ""


def runtime():
    """The runtime, loaded on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            cfg = _config.config()
            wanted = _chosen or os.environ.get("GPULAB_BACKEND", "auto")
            if wanted not in ("emulated", "gpu", "auto"):
                raise ValueError(f"GPULAB_BACKEND must be emulated, gpu or auto, not {wanted!r}")
            if wanted in ("gpu", "auto"):
                rt, why = _gpu_runtime(cfg)
                if rt is None and wanted == "gpu":
                    raise RuntimeError(f"gpulab: the GPU backend was asked for, but {why}")
                _runtime = rt
            if _runtime is None:
                _runtime = Runtime(cfg["emulated_bridge"], gpu=False)
        return _runtime
