"""CuPy's cupy.cuda, as far as GPU Lab serves it: streams, events, the device, the runtime's
device queries, and CuPy's exception types (runtime, driver, compiler)."""

from . import compiler, driver, runtime  # noqa: F401
from ._streams import Event, Stream, get_current_stream, get_elapsed_time  # noqa: F401
from .driver import CUDADriverError, KernelCheckError  # noqa: F401
from .runtime import CUDARuntimeError  # noqa: F401


class Device:
    """cupy.cuda.Device: the device (GPU Lab's runtime has one current device)."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def use(self):
        runtime.setDevice(self.id)

    def __enter__(self):
        self._previous = runtime.getDevice()
        self.use()
        return self

    def __exit__(self, *exc):
        runtime.setDevice(self._previous)

    def synchronize(self):
        runtime.deviceSynchronize()

    @property
    def compute_capability(self):
        p = runtime.getDeviceProperties(self.id)
        return f"{p['major']}{p['minor']}"

    @property
    def mem_info(self):
        return runtime.memGetInfo()

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def is_available():
    return runtime.getDeviceCount() > 0
