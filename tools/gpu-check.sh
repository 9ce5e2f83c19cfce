#!/usr/bin/env bash
# Everything GPU Lab checks and measures on a real GPU, in one go (the device machine has no
# compiler set-up of ours: build here with the h100 preset, carry build-h100, run this there).
#   tools/gpu-check.sh [build-dir] [out-dir]
# Writes the logs and JSON results to out-dir and prints a short summary last.
set -uo pipefail
build=${1:-build-h100}
out=${2:-gpu-check-out}
mkdir -p "$out"
bin="$build/bin"
status=0

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nproc
} > "$out/machine.txt" 2>&1

echo "== ctest (every label but app and exercise: the app needs a display, the stubs fail by design) =="
# The corpus programs run through gpulab_run --emulated compile against the emulator's library,
# which a packed build leaves out: they run where the build is made (their GPU runs are here).
ctest --test-dir "$build" --output-on-failure -j 4 -LE "app|exercise" -E "^(program|bug)_.*_emulated$" \
  > "$out/ctest.log" 2>&1 || status=1
tail -n 30 "$out/ctest.log"

echo "== compute-sanitizer memcheck =="
: > "$out/memcheck.log"
memcheck() { compute-sanitizer --tool memcheck --error-exitcode 99 "$@" >> "$out/memcheck.log" 2>&1 || status=1; }
for t in "$build"/tests/*_gpu_test; do
  [[ "$t" == *cli_gpu_test ]] && continue  # it only starts other processes
  memcheck "$t" '~[launch-error]'
  # Launches refused on purpose are API errors by design: memory errors are still reported.
  if [[ -n "$("$t" '[launch-error]' --list-test-names-only 2>/dev/null)" ]]; then
    memcheck --report-api-errors no "$t" '[launch-error]'
  fi
done
# Lesson 06 at its awkward shapes (n = 1000 there is 10^10 multiply-adds), every variant and the
# correct debugging kernel.
conv_shapes=2x3x17x19:5:3x3,1x2x70x40:9:3x3,1x1x67x33:3:5x5:2,2x4x23x21:3:5x5:2:2,1x64x18x18:3:16x16:0
conv_all=all,debug_fixed  # the planted bugs fail their checks by design: run below, one by one
memcheck "$bin/lesson06_conv" --shape "$conv_shapes" --reps 1 --warmup 0 --backend gpu --variant "$conv_all" \
  --json "$out/memcheck-lesson06.json"
# Lesson 07: every step at awkward networks and batches.
mlp_shapes=2x16x1:64,2x8x1:200,7x17x3:31,1x1x1:5,784x128x10:128
memcheck "$bin/lesson07_tiny_network" --shape "$mlp_shapes" --reps 1 --warmup 0 --backend gpu \
  --json "$out/memcheck-lesson07.json"
for exe in "$bin"/lesson0[1-5]*; do
  memcheck "$exe" --n 1000 --reps 2 --warmup 1
  # Larger sizes include launches refused on purpose (one block of n > 1024 threads).
  memcheck --report-api-errors no "$exe" --n 1025 --reps 2 --warmup 1 --backend gpu
done
grep -E "ERROR SUMMARY" "$out/memcheck.log" | sort | uniq -c

echo "== compute-sanitizer racecheck (the kernels that use shared memory) =="
: > "$out/racecheck.log"
for n in 127 257; do
  compute-sanitizer --tool racecheck --error-exitcode 99 "$bin/lesson05_matmul" --n $n --backend gpu --reps 1 \
    --warmup 0 >> "$out/racecheck.log" 2>&1 || status=1
done
compute-sanitizer --tool racecheck --error-exitcode 99 "$bin/lesson06_conv" --shape "$conv_shapes" --backend gpu \
  --variant all,debug_fixed --reps 1 --warmup 0 >> "$out/racecheck.log" 2>&1 || status=1
compute-sanitizer --tool racecheck --error-exitcode 99 "$bin/lesson07_tiny_network" --shape "$mlp_shapes" \
  --backend gpu --variant fused,fused_registers --reps 1 --warmup 0 >> "$out/racecheck.log" 2>&1 || status=1
grep -E "RACECHECK SUMMARY|ERROR SUMMARY" "$out/racecheck.log" | sort | uniq -c
# The planted bugs, one by one: what the sanitizers say about each (the missing barrier is a race).
: > "$out/sanitizer-bugs.log"
for v in bug_shared_index bug_channels bug_barrier; do
  for tool in memcheck racecheck; do
    echo "== $v, $tool ==" >> "$out/sanitizer-bugs.log"
    compute-sanitizer --tool $tool "$bin/lesson06_conv" --shape 2x3x17x19:5:3x3 --backend gpu --variant $v \
      --reps 1 --warmup 0 >> "$out/sanitizer-bugs.log" 2>&1
  done
done
grep -E "^==|SUMMARY|FAILED|passed" "$out/sanitizer-bugs.log"

echo "== benchmarks =="
"$bin/lesson01_vector_add" --n 268435456 --backend gpu,cpu --json "$out/lesson01-n28.json" \
  > "$out/lesson01-n28.txt" 2>&1 || status=1
"$bin/lesson02_thread_hierarchy" --n 268435456 --backend gpu,cpu --json "$out/lesson02-n28.json" \
  > "$out/lesson02-n28.txt" 2>&1 || status=1
"$bin/lesson02_thread_hierarchy" --n 268435456 --backend gpu --variant blocks_1d --blocks 32,64,128,256,512,1024 \
  --json "$out/lesson02-blocks.json" > "$out/lesson02-blocks.txt" 2>&1 || status=1
"$bin/lesson03_matrix_add" --n 16384 --backend gpu --json "$out/lesson03-n16384.json" \
  > "$out/lesson03-n16384.txt" 2>&1 || status=1
"$bin/lesson03_matrix_add" --n 4096 --backend cpu --reps 10 --json "$out/lesson03-cpu-n4096.json" \
  > "$out/lesson03-cpu-n4096.txt" 2>&1 || status=1
"$bin/lesson04_sigmoid" --n 268435456 --backend gpu,cpu --json "$out/lesson04-n28.json" \
  > "$out/lesson04-n28.txt" 2>&1 || status=1
"$bin/lesson05_matmul" --n 4096 --backend gpu,cpu --reps 10 --json "$out/lesson05-n4096.json" \
  > "$out/lesson05-n4096.txt" 2>&1 || status=1
"$bin/lesson05_matmul" --sweep --backend gpu,cpu --variant cpu_blocked,openblas,warp_tiled,cublas --reps 5 \
  --json "$out/lesson05-sweep.json" > "$out/lesson05-sweep.txt" 2>&1 || status=1
# Lesson 06: the shapes its targets are set on (a small CNN's first layer, a ResNet layer, one
# image with a large filter), then the default family's sweep.
for shape in 32x3x32x32:16:3x3 64x64x56x56:64:3x3 1x1x1024x1024:1:31x31; do
  "$bin/lesson06_conv" --shape $shape --backend gpu,cpu --reps 20 --json "$out/lesson06-${shape%%:*}.json" \
    > "$out/lesson06-${shape%%:*}.txt" 2>&1 || status=1
done
"$bin/lesson06_conv" --sweep --backend gpu,cpu --variant cpu_im2col,tiled,implicit_gemm,winograd,cudnn --reps 5 \
  --json "$out/lesson06-sweep.json" > "$out/lesson06-sweep.txt" 2>&1 || status=1
# Lesson 07: the networks of the PyTorch comparison, then PyTorch itself where it is installed.
for shape in 2x16x1:64 784x128x10:128 784x1024x10:4096; do
  reps=300; [[ $shape == 784x1024x10:4096 ]] && reps=20
  "$bin/lesson07_tiny_network" --shape $shape --backend gpu,cpu --reps $reps --json "$out/lesson07-${shape%%:*}.json" \
    > "$out/lesson07-${shape%%:*}.txt" 2>&1 || status=1
done
python="${PYTORCH_PYTHON:-python3}"  # e.g. /opt/torch/.venv/bin/python on the device machine
if "$python" -c "import torch" 2> /dev/null; then
  "$python" "$(dirname "${BASH_SOURCE[0]}")/../docs/pytorch/tiny_network.py" --reps 200 --json "$out/pytorch-tiny_network.json" \
    > "$out/pytorch-tiny_network.txt" 2>&1 || status=1
fi
if [[ "${GPU_CHECK_SWEEP:-1}" == 1 ]]; then
  "$bin/lesson01_vector_add" --sweep --json "$out/lesson01-sweep.json" > "$out/lesson01-sweep.txt" 2>&1 || status=1
fi
cat "$out"/lesson0*.txt
exit $status
