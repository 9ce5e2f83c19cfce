"""GPU Lab from Python: CuPy's kernel API on a GPU or the emulator (gpulab.cupy), the lessons as
data (run, plot), the grader (grade), and a %%cuda cell for notebooks (%load_ext gpulab)."""

from ._native import use  # noqa: F401

__version__ = "0.1.0"


def load_ipython_extension(ipython):
    from .magic import register
    register(ipython)


def __getattr__(name):  # the lessons' functions, imported when first used (matplotlib is slow to load)
    if name in ("run", "recorded", "plot", "grade", "LessonError"):
        from . import lessons
        return getattr(lessons, name)
    raise AttributeError(f"module 'gpulab' has no attribute {name!r}")
