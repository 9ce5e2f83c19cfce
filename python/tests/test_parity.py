"""Scripts written for CuPy (python/parity), run unchanged — their `import cupy` answered by
gpulab.cupy (python -m gpulab.as_cupy) — print exactly the lines in their .expected files; where
CuPy itself is installed (a GPU machine), it prints them too."""

import subprocess
import sys
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent.parent / "parity"
SCRIPTS = sorted(FOLDER.glob("*.py"))


def _run(command):
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_gpulab_cupy_prints_what_cupy_prints(script):
    got = _run([sys.executable, "-m", "gpulab.as_cupy", str(script)])
    assert got == script.with_suffix(".expected").read_text()


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_cupy_itself_prints_the_expected_lines(script):
    try:
        import cupy  # noqa: F401
    except ImportError:
        pytest.skip("CuPy is not installed here (it is on the GPU machines GPU Lab is measured on)")
    got = _run([sys.executable, str(script)])
    assert got == script.with_suffix(".expected").read_text()
