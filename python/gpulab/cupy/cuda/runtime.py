"""cupy.cuda.runtime: the device queries CuPy scripts make, and CUDARuntimeError."""

import ctypes

from ..._native import runtime as _rt


class CUDARuntimeError(RuntimeError):
    def __init__(self, status, message=""):
        self.status = status
        super().__init__(message)


def check(code):
    """Raises CUDARuntimeError for a non-zero CUDA error code, with the runtime's explanation."""
    if code != 0:
        rt = _rt()
        text = rt.error_text(code)
        rt.get_last_error()  # read: the next call starts clean, as CuPy's does
        raise CUDARuntimeError(code, text)


# getDeviceProperties' numbers, in the order python/native/bridge.cpp gives them.
_PROPERTIES = ("totalGlobalMem", "sharedMemPerBlock", "regsPerBlock", "warpSize", "maxThreadsPerBlock",
               "maxThreadsDim0", "maxThreadsDim1", "maxThreadsDim2", "maxGridSize0", "maxGridSize1", "maxGridSize2",
               "totalConstMem", "major", "minor", "multiProcessorCount", "l2CacheSize",
               "maxThreadsPerMultiProcessor", "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
               "memoryBusWidth")


def _int_from(call):
    """The int a runtime call writes through its one pointer argument."""
    value = ctypes.c_int(0)
    check(call(ctypes.byref(value)))
    return value.value


def getDeviceCount():
    return _int_from(_rt().device_count)


def getDevice():
    return _int_from(_rt().get_device)


def setDevice(device):
    check(_rt().set_device(int(device)))


def deviceSynchronize():
    check(_rt().device_synchronize())


def getDeviceProperties(device):
    """A dict as CuPy's: 'name' as bytes, the numbers by CUDA's field names (maxThreadsDim and
    maxGridSize as tuples)."""
    name = ctypes.create_string_buffer(256)
    values = (ctypes.c_longlong * len(_PROPERTIES))()
    check(_rt().device_properties(int(device), name, 256, values, len(_PROPERTIES)))
    p = dict(zip(_PROPERTIES, values))
    for field in ("maxThreadsDim", "maxGridSize"):
        p[field] = tuple(p.pop(field + str(i)) for i in range(3))
    p["name"] = name.value
    return p


def memGetInfo():
    free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
    check(_rt().mem_get_info(ctypes.byref(free), ctypes.byref(total)))
    return free.value, total.value


def runtimeGetVersion():
    return _int_from(_rt().runtime_version)


def driverGetVersion():
    return _int_from(_rt().driver_version)


def is_emulated():
    """True on GPU Lab's emulator (not CuPy's)."""
    return not _rt().gpu
