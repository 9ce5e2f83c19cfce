"""cupy.cuda.compiler's CompileException: a kernel source that did not build."""

from ..._modules import CompileError as CompileException  # noqa: F401
