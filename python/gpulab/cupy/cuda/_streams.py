"""cupy.cuda.Stream and Event. On the emulator work runs at once, in order, so a stream is a name
and an event a CPU time; on a GPU they are CUDA's."""

import ctypes
import threading

from ..._native import runtime as _rt
from .runtime import check

_current = threading.local()


class Stream:
    """A CUDA stream. `Stream.null` is the default stream; `with stream:` (or stream.use()) makes
    it the one kernels and copies go to."""

    null = None  # set below

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self._owned = False
        self.ptr = 0
        if not null:
            handle = ctypes.c_void_p()
            check(_rt().stream_create(ctypes.byref(handle), 1 if non_blocking else 0))
            self.ptr = handle.value or 0
            self._owned = True

    def __del__(self):
        if getattr(self, "_owned", False) and self.ptr:
            try:
                _rt().stream_destroy(self.ptr)
            except Exception:  # the interpreter is shutting down
                pass

    def synchronize(self):
        check(_rt().stream_synchronize(self.ptr or None))

    @property
    def done(self):
        return _rt().stream_query(self.ptr or None) == 0

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        check(_rt().stream_wait_event(self.ptr or None, event.ptr))

    def use(self):
        _current.stream = self
        return self

    def __enter__(self):
        stack = getattr(_current, "stack", [])
        stack.append(get_current_stream())
        _current.stack = stack
        self.use()
        return self

    def __exit__(self, *exc):
        _current.stream = _current.stack.pop()

    def __repr__(self):
        return f"<Stream {self.ptr:#x}>" if self.ptr else "<Stream null>"


Stream.null = Stream(null=True)


def get_current_stream():
    return getattr(_current, "stream", Stream.null)


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        handle = ctypes.c_void_p()
        check(_rt().event_create(ctypes.byref(handle), 0 if disable_timing else 1))
        self.ptr = handle.value

    def __del__(self):
        if getattr(self, "ptr", None):
            try:
                _rt().event_destroy(self.ptr)
            except Exception:
                pass

    def record(self, stream=None):
        stream = stream or get_current_stream()
        check(_rt().event_record(self.ptr, stream.ptr or None))

    def synchronize(self):
        check(_rt().event_synchronize(self.ptr))

    @property
    def done(self):
        return _rt().event_query(self.ptr) == 0


def get_elapsed_time(start_event, end_event):
    """Milliseconds between two recorded events (CUDA's cudaEventElapsedTime)."""
    ms = ctypes.c_float(0)
    check(_rt().event_elapsed(ctypes.byref(ms), start_event.ptr, end_event.ptr))
    return ms.value
