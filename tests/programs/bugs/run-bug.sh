#!/usr/bin/env bash
# Runs one buggy program of GPU Lab's corpus and checks that its bug is reported:
#   run-bug.sh GPULAB_RUN --emulated PROGRAM.cu   the emulator's checked mode (gpulab_run)
#   run-bug.sh NVCC --gpu PROGRAM.cu              compute-sanitizer on a GPU (exit 77 without one)
# The program's comments say what must be seen: each `// expect: TEXT` in the emulator's report,
# each `// gpu-expect: TEXT` in compute-sanitizer's, run with `--tool` the `// tool:` line names.
# Either way the program must exit non-zero, and not by a signal — except where the program says
# `// gpu-expect-clean: WHY`: a bug CUDA's rules forbid that the GPU and compute-sanitizer let
# pass, which the emulator reports; there compute-sanitizer must report nothing, as recorded.
set -uo pipefail
tool=$1 backend=$2 program=$3
name=$(basename "$program")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $backend == --gpu ]]; then
  if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "no GPU: skipped"
    exit 77
  fi
  "$tool" -std=c++17 -lineinfo -arch=native -o "$work/program" "$program" || exit 1
  sanitizer_tool=$(sed -n 's|^// tool: ||p' "$program")
  compute-sanitizer --tool "$sanitizer_tool" --error-exitcode 3 "$work/program" >"$work/out" 2>&1
  status=$?
  prefix=gpu-expect
else
  "$tool" --emulated "$program" >"$work/out" 2>&1
  status=$?
  prefix=expect
fi
cat "$work/out"
clean=$(sed -n 's|^// gpu-expect-clean: ||p' "$program")
if [[ $backend == --gpu && -n $clean ]]; then
  if grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed" "$work/out"; then  # (racecheck says the latter)
    echo "$name ($backend): no report from compute-sanitizer, as recorded ($clean); the emulator reports it"
    exit 0
  fi
  echo "FAIL: $name ($backend): compute-sanitizer now reports it: drop the gpu-expect-clean line"
  exit 1
fi
failed=0
while IFS= read -r want; do
  if ! grep -qF -- "$want" "$work/out"; then
    echo "FAIL: $name ($backend) did not report: $want"
    failed=1
  fi
done < <(sed -n "s|^// $prefix: ||p" "$program")
if [[ $status -eq 0 || $status -ge 128 ]]; then
  echo "FAIL: $name ($backend) exited with $status (a report must make it exit non-zero, not by a signal)"
  failed=1
fi
[[ $failed -eq 0 ]] && echo "$name ($backend): reported as expected, exit status $status"
exit $failed
