#!/usr/bin/env bash
# Proves that the grader can fail and can pass, on the emulated backend: every exercise file as a
# learner gets it (a stub) must fail its grader, and every solution must pass it — through
# gpulab_grade and through `ctest -L exercise`. Nothing is rebuilt: the grader builds the files.
#   tools/check-exercises.sh [BUILD_DIR]      (default build/emulated, made by tools/build.sh emulated)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${1:-build/emulated}
grader="$build/bin/gpulab_grade"
mkdir -p "$build/grades"
if ! ls lessons/*/exercises/*/solution.cu > /dev/null 2>&1; then
  echo "check-exercises: this copy has no solutions (a student copy): nothing to prove"
  exit 0
fi
exercises=$("$grader" --list | awk 'NF == 2 { print $1 }')
status=0
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

# grade_each KIND RC [OPTIONS]: grades every exercise, which must exit with RC (1: failed, 0: passed).
# The exercises are graded side by side, one per core (each grade compiles on one), then reported
# in order.
grade_each() {
  local kind=$1 want=$2 e rc
  shift 2
  # (sh -c's words: the exercise, then the grader's options; the rest comes through the environment.)
  printf '%s\n' $exercises | GRADER=$grader SEED=$seed BUILD=$build KIND=$kind xargs -P "$(nproc)" -I{} sh -c \
    'e=$1; shift; "$GRADER" --exercise "$e" --backend emulated --seed "$SEED" \
       --report "$BUILD/grades/check-$KIND-$e.json" "$@" > "$BUILD/grades/check-$KIND-$e.txt" 2>&1
     echo $? > "$BUILD/grades/check-$KIND-$e.rc"' sh {} "$@"
  for e in $exercises; do
    rc=$(cat "$build/grades/check-$kind-$e.rc")
    if [ "$rc" -ne "$want" ]; then
      echo "  WRONG $e: the $kind's grader exited with $rc, not $want"; cat "$build/grades/check-$kind-$e.txt"; status=1
    elif [ "$want" -eq 1 ]; then
      echo "  ok    $e: the stub fails — $(grep -m1 -A1 "First failure" "$build/grades/check-$kind-$e.txt" | tail -1 | sed 's/^ *//' | cut -c1-160)"
    else
      echo "  ok    $e: the solution passes — $(grep -m1 PASSED "$build/grades/check-$kind-$e.txt" | sed 's/^ *//')"
    fi
  done
}

echo "== the learner's files: every stub must fail its grader (seed $seed) =="
grade_each stub 1

count=$(echo "$exercises" | wc -w)
echo "== ctest -L exercise with the stubs: all $count must fail =="
# (Their emulated grades: the GPU ones are skipped where there is no GPU.)
ctest --test-dir "$build" -L exercise -LE gpu -j 2 > "$build/grades/check-stub-ctest.txt" 2>&1 || true  # must fail
if grep -q "0% tests passed, $count tests failed out of $count" "$build/grades/check-stub-ctest.txt"; then
  echo "  ok    0 of $count passed"
else
  echo "  WRONG: ctest -L exercise did not fail every stub"; cat "$build/grades/check-stub-ctest.txt"; status=1
fi

echo "== the solutions: every one must pass its grader (seed $seed) =="
grade_each solution 0 --solutions

if [ $status -eq 0 ]; then
  echo "check-exercises: every stub fails its grader and every solution passes it"
else
  echo "check-exercises: FAILED (above)"
fi
exit $status
