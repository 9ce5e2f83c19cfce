#!/usr/bin/env bash
# The grader on a real GPU, in one go: every case in its sandbox with the device inside, the
# solutions under compute-sanitizer and timed (--performance), the class of thirteen of
# tests/class/ (tampering, host computation, a hang, ...) and the messages of chosen buggy
# submissions, to set beside the emulator's.
#   tools/gpu-check-grader.sh [build-dir] [out-dir]
set -uo pipefail
build=${1:-build-h100}
out=${2:-gpu-grader-out}
mkdir -p "$out"
root=$(pwd)
grade=("$build/bin/gpulab_grade" --exercises "$root/lessons" --backend gpu)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  bwrap=${GPULAB_BWRAP:-bwrap}
  "$bwrap" --ro-bind / / --unshare-all --die-with-parent true && echo "bwrap works: $bwrap"
} > "$out/machine.txt" 2>&1

# The solutions of lessons 01, 03 and 05 under compute-sanitizer, timed (about 9 minutes on an H200;
# GPULAB_GRADER_SOLUTIONS=no leaves them out).
if [ "${GPULAB_GRADER_SOLUTIONS:-yes}" != no ]; then
  echo "== the solutions of lessons 01, 03 and 05, with --performance =="
  "${grade[@]}" --exercise 01,03,05 --solutions --performance --seed 7 --report "$out/solutions.json" \
    > "$out/solutions.log" 2>&1
  tail -n 3 "$out/solutions.log"
fi

echo "== the class of thirteen =="
class=$(mktemp -d)
for f in tests/class/*.cu; do
  s=$(basename "$f" .cu)
  mkdir -p "$class/$s/01_vector_add"
  name=exercise.cu
  [ "$s" = misnamed ] && name=add.cu
  sed "s|@SOURCE@|$root|" "$f" > "$class/$s/01_vector_add/$name"
done
mkdir -p "$class/stub/01_vector_add" "$class/absent"
cp lessons/01_vector_add/exercises/01_vector_add/exercise.cu "$class/stub/01_vector_add/"
"${grade[@]}" --exercise 01_vector_add --time-limit 10 --seed 21 --jobs 4 --no-sanitizers --submissions "$class" \
  --gradebook "$out/class.csv" --gradescope > "$out/class.log" 2>&1
sleep 4  # the tampering student's leftover process would strike now
ls "$class/tampers/01_vector_add" > "$out/tampers-folder.txt"
for s in "$class"/*/; do cp "$s/results.json" "$out/results-$(basename "$s").json" 2> /dev/null; done
cut -c1-120 "$out/class.csv"

echo "== messages of buggy submissions =="
: > "$out/messages.log"
for f in lessons/05_matmul/exercises/05_matmul/buggy/barrier_in_condition.cu lessons/03_matrix_add/exercises/03_matrix_add/buggy/square_only.cu \
  lessons/01_vector_add/exercises/01_vector_add/buggy/frees_with_free.cu tests/efficiency/03_column_major.cu; do
  exercise=$(basename "$(dirname "$f")")
  [ "$exercise" = buggy ] && exercise=$(basename "$(dirname "$(dirname "$f")")")
  [ "$exercise" = efficiency ] && exercise=03_matrix_add
  echo "### $f" >> "$out/messages.log"
  "${grade[@]}" --exercise "$exercise" --file "$f" --seed 4 >> "$out/messages.log" 2>&1
done
grep -c "### " "$out/messages.log"
