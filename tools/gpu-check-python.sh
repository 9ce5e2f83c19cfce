#!/usr/bin/env bash
# The Python package on a GPU machine, in one go (CuPy and PyTorch are there; Debian's packages
# are not): the parity scripts on CuPy itself, on gpulab.cupy on the GPU and on the emulator;
# pytest's suites on the GPU backend where pytest is there; the seed's network trained on all
# three; and the launch overhead against CuPy's. Logs and JSON under OUT.
#   tools/gpu-check-python.sh [build-dir] [out-dir]
set -uo pipefail
build=${1:-build-h100}
out=${2:-gpu-python-out}
mkdir -p "$out"
root=$(pwd)
export GPULAB_BUILD="$root/$build" PYTHONPATH="$root/python" XDG_CACHE_HOME="$root/$out/cache"
py=${GPULAB_PYTHON:-python3}
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$py" -c 'import sys, numpy, cupy; print(sys.version.split()[0], "numpy", numpy.__version__, "cupy", cupy.__version__)'
  "$py" -c 'import pytest; print("pytest", pytest.__version__)' || echo "no pytest"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

echo "== the must-show: a RawKernel vector add on the emulator, then a planted race =="
GPULAB_BACKEND=emulated "$py" -c '
import gpulab.cupy as cp, numpy as np
add = cp.RawKernel(r"""extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }""", "add")
a, b, c = cp.arange(1000, dtype=cp.float32), cp.ones(1000, dtype=cp.float32), cp.zeros(1000, dtype=cp.float32)
add((4,), (256,), (a, b, c, np.int32(1000)))
print("emulated:", cp.cuda.runtime.is_emulated(), "right:", bool((c.get() == np.arange(1000) + 1).all()))
racy = cp.RawKernel(r"""extern "C" __global__ void count(int* total) { *total += 1; }""", "count")
try:
    racy((1,), (64,), (cp.zeros(1, dtype=cp.int32),))
except cp.KernelCheckError as e:
    print("raised KernelCheckError:", e.tool, e.kernel); print(e.report)
' > "$out/must-show.txt" 2>&1
cat "$out/must-show.txt"

echo "== parity: each script on CuPy, gpulab.cupy on the GPU, gpulab.cupy emulated =="
: > "$out/parity.txt"
for script in python/parity/*.py; do
  name=$(basename "$script" .py)
  "$py" "$script" > "$out/$name.cupy.out" 2>> "$out/parity.err"
  GPULAB_BACKEND=gpu "$py" -m gpulab.as_cupy "$script" > "$out/$name.gpu.out" 2>> "$out/parity.err"
  GPULAB_BACKEND=emulated "$py" -m gpulab.as_cupy "$script" > "$out/$name.emulated.out" 2>> "$out/parity.err"
  for how in cupy gpu emulated; do
    if cmp -s "$out/$name.$how.out" "${script%.py}.expected"; then r=same; else r=DIFFERENT; fi
    echo "$name $how: $r" | tee -a "$out/parity.txt"
  done
done

if "$py" -c 'import pytest' 2> /dev/null; then
  echo "== pytest on the GPU backend =="
  GPULAB_BACKEND=gpu "$py" -m pytest -q -p no:cacheprovider python/tests/test_arrays.py python/tests/test_arithmetic.py \
    python/tests/test_kernels.py python/tests/test_cupy_cnn.py python/tests/test_parity.py python/tests/test_checked.py > "$out/pytest-gpu.txt" 2>&1
  tail -n 5 "$out/pytest-gpu.txt"
fi

echo "== the seed's network: CuPy, gpulab.cupy on the GPU, gpulab.cupy emulated (the same steps) =="
small=(--steps 30 --batch 32 --side 16 --c1 8 --c2 16 --hidden 64 --rate 0.05 --seed 1)
"$py" python/examples/cupy_cnn/train.py --lib cupy "${small[@]}" --json "$out/cnn-small-cupy.json" > "$out/cnn-small-cupy.txt" 2>&1
GPULAB_BACKEND=gpu "$py" python/examples/cupy_cnn/train.py --lib gpulab "${small[@]}" --json "$out/cnn-small-gpu.json" > "$out/cnn-small-gpu.txt" 2>&1
GPULAB_BACKEND=emulated "$py" python/examples/cupy_cnn/train.py --lib gpulab "${small[@]}" --json "$out/cnn-small-emulated.json" > "$out/cnn-small-emulated.txt" 2>&1
full=(--steps 200 --batch 64 --side 32 --seed 1)
"$py" python/examples/cupy_cnn/train.py --lib cupy "${full[@]}" --json "$out/cnn-full-cupy.json" > "$out/cnn-full-cupy.txt" 2>&1
GPULAB_BACKEND=gpu "$py" python/examples/cupy_cnn/train.py --lib gpulab "${full[@]}" --json "$out/cnn-full-gpu.json" > "$out/cnn-full-gpu.txt" 2>&1
tail -n 1 "$out"/cnn-*.txt

echo "== launch overhead: CuPy and gpulab.cupy on the GPU =="
for i in 1 2; do
  "$py" python/benchmarks/launch_overhead.py 5000 2>&1 | tee -a "$out/launch.txt"
  GPULAB_BACKEND=gpu "$py" -m gpulab.as_cupy python/benchmarks/launch_overhead.py 5000 2>&1 | tee -a "$out/launch.txt"
done
rm -rf "$out/cache"
