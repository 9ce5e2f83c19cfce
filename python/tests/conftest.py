"""The Python package's tests: run by ctest (python/CMakeLists.txt) with GPULAB_BUILD naming the
build and GPULAB_BACKEND the backend (emulated, or gpu on a GPU machine); by hand:
    GPULAB_BUILD=build/default GPULAB_BACKEND=emulated python3 -m pytest python/tests"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gpulab.cupy as cp  # noqa: E402

# On a machine without a GPU the GPU run of the suite is skipped as a whole (ctest: exit 77).
if os.environ.get("GPULAB_BACKEND") == "gpu":
    try:
        cp.cuda.runtime.getDeviceCount()
    except RuntimeError as e:
        print(f"skipped: {e}", flush=True)
        os._exit(77)


emulated_only = pytest.mark.skipif(not cp.cuda.runtime.is_emulated(),
                                   reason="the checked mode's reports are the emulator's (a GPU has none)")


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    return __import__("numpy").random.default_rng(seed)
