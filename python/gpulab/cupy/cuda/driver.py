"""cupy.cuda.driver's error type, and GPU Lab's own: the checked mode's report as an exception."""

import re


class CUDADriverError(RuntimeError):
    """A launch that failed (CuPy raises it from cuLaunchKernel)."""

    def __init__(self, status, message=""):
        self.status = status
        super().__init__(message)


class KernelCheckError(CUDADriverError):
    """A kernel the emulator's checked mode stopped or reported (what CuPy cannot do): `tool` is
    compute-sanitizer's tool that would say the same (memcheck, racecheck, initcheck, synccheck),
    `kernel` the kernel's name, `report` the emulator's words (kernel, thread, block, array, line)."""

    def __init__(self, status, message, tool, kernel):
        super().__init__(status, message)
        self.tool = tool
        self.kernel = kernel
        self.report = message


_TOOLS = ("racecheck", "initcheck", "synccheck", "memcheck")


def checked_tool(text):
    """The tool a report of the checked mode names, or "" for an error of another kind."""
    lowered = text.lower()
    for tool in _TOOLS:
        if tool in lowered:
            return tool
    if re.search(r"invalid __(global|shared|local)__ (read|write)|out of bounds|misaligned", lowered):
        return "memcheck"
    return ""
