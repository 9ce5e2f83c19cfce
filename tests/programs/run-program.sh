#!/usr/bin/env bash
# Runs one corpus program through gpulab_run and compares its output with the expected one:
#   run-program.sh GPULAB_RUN --emulated|--gpu PROGRAM EXPECTED.txt [-- ARGS...]
# PROGRAM is a .cu file, or a folder whose file `command` holds gpulab_run's words for it (its
# files, -I, -D: what nvcc would be given), run from inside the folder.
# Exit 77 (skipped) for --gpu where there is no GPU.
set -uo pipefail
runner=$1 backend=$2 program=$3 expected=$4
shift 4
if [[ $backend == --gpu ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipped"
  exit 77
fi
words=("$program")
if [[ -d $program ]]; then
  read -r -a words < "$program/command"
  cd "$program" || exit 1
fi
stderr=$(mktemp)
actual=$("$runner" "$backend" "${words[@]}" "$@" 2>"$stderr")
status=$?
cat "$stderr" >&2
rm -f "$stderr"
if ! diff <(printf '%s\n' "$actual") "$expected"; then
  echo "FAIL: $(basename "$program") ($backend) printed the lines marked < instead of those marked >"
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "FAIL: $(basename "$program") ($backend) exited with $status"
  exit 1
fi
echo "$(basename "$program") ($backend): the expected output"
