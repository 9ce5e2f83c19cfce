"""Runs a script written for CuPy, unchanged, on gpulab.cupy: its `import cupy` gets GPU Lab's.

    python3 -m gpulab.as_cupy script.py [arguments...]

(On a GPU where CuPy is installed, `python3 script.py` runs the same file on CuPy itself.)"""

import runpy
import sys

import gpulab.cupy
import gpulab.cupy.cuda


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    sys.modules["cupy"] = gpulab.cupy
    sys.modules["cupy.cuda"] = gpulab.cupy.cuda
    sys.modules["cupy.cuda.runtime"] = gpulab.cupy.cuda.runtime
    sys.modules["cupy.cuda.driver"] = gpulab.cupy.cuda.driver
    sys.modules["cupy.cuda.compiler"] = gpulab.cupy.cuda.compiler
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
