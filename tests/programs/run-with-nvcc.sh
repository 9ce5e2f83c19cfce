#!/usr/bin/env bash
# Builds every corpus program of tests/programs with nvcc alone — no GPU Lab — runs it on the GPU
# and compares its output with the expected one the emulator must also give: the proof that the
# corpus is valid CUDA that nvcc builds as written and that the emulator answers as the GPU does.
#   tests/programs/run-with-nvcc.sh [OUT_DIR]     (on a machine with a GPU and nvcc)
# A .cu is built as `nvcc -std=c++17 -arch=native FILE.cu`; a folder with a file `command` with
# the words in it (its files, -I, -D), from inside the folder. Prints one line per program and
# "N passed, N failed" last.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
passed=0 failed=0
run() {  # run NAME EXPECTED DIR WORDS...
  local name=$1 expected=$2 dir=$3
  shift 3
  if ! (cd "$dir" && nvcc -std=c++17 -arch=native -o "$out/$name" "$@") > "$out/$name.build.log" 2>&1; then
    echo "FAIL  $name: nvcc did not build it"; cat "$out/$name.build.log"; failed=$((failed + 1)); return
  fi
  (cd "$dir" && "$out/$name") > "$out/$name.out" 2> "$out/$name.err"
  local status=$?
  if diff "$out/$name.out" "$expected" > "$out/$name.diff"; then
    echo "ok    $name (exit $status): $(head -c 100 "$out/$name.out" | head -1)"
    passed=$((passed + 1))
  else
    echo "FAIL  $name: the GPU printed"; cat "$out/$name.diff"; failed=$((failed + 1))
  fi
}
for f in "$here"/*.cu; do
  name=$(basename "$f" .cu)
  run "$name" "$here/$name.expected" "$here" "$f"
done
for c in "$here"/*/command; do
  dir=$(dirname "$c")
  name=$(basename "$dir")
  read -r -a words < "$c"
  run "$name" "$here/$name.expected" "$dir" "${words[@]}"
done
run vector_add_program "$here/vector_add_program.expected" "$here" "$here/../../lessons/01_vector_add/vector_add_program.cu"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
