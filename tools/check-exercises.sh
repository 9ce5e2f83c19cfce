#!/usr/bin/env bash
# Proves that the grader can fail and can pass, on the emulated backend: every exercise file as a
# learner gets it (a stub) must fail its grader, and every solution (GPULAB_SOLUTIONS=ON) must
# pass it, through gpulab_grade and through `ctest -L exercise`. Only the exercise library and the
# grader are rebuilt; the build folder is left with the learner's files, as it was.
#   tools/check-exercises.sh [BUILD_DIR]      (default build/emulated, made by tools/build.sh emulated)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${1:-build/emulated}
if [ ! -d exercises/solutions ]; then
  echo "check-exercises: this copy has no exercises/solutions (a student copy): nothing to prove"
  exit 0
fi
grader="$build/bin/gpulab_grade"
mkdir -p "$build/grades"
use() {  # use OFF|ON: the learner's files or the solutions, and the grader built with them
  cmake -DGPULAB_SOLUTIONS="$1" "$build" > /dev/null
  cmake --build "$build" --target gpulab_grade > /dev/null
}
exercises=$("$grader" --list | awk 'NF == 2 { print $1 }')
status=0
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
restore() { use OFF; }
trap restore EXIT

# grade_each KIND RC: grades every exercise, which must exit with RC (1: failed, 0: passed).
grade_each() {
  local kind=$1 want=$2 e rc
  for e in $exercises; do
    set +e
    "$grader" --lesson "$e" --backend emulated --seed "$seed" --report "$build/grades/check-$kind-$e.json" \
      > "$build/grades/check-$kind-$e.txt" 2>&1
    rc=$?
    set -e
    if [ $rc -ne "$want" ]; then
      echo "  WRONG $e: the $kind's grader exited with $rc, not $want"; cat "$build/grades/check-$kind-$e.txt"; status=1
    elif [ "$want" -eq 1 ]; then
      echo "  ok    $e: the stub fails — $(grep -m1 -A1 "First failure" "$build/grades/check-$kind-$e.txt" | tail -1 | sed 's/^ *//' | cut -c1-160)"
    else
      echo "  ok    $e: the solution passes — $(grep -m1 PASSED "$build/grades/check-$kind-$e.txt" | sed 's/^ *//')"
    fi
  done
}

echo "== the learner's files: every stub must fail its grader (seed $seed) =="
use OFF
grade_each stub 1

count=$(echo "$exercises" | wc -w)
echo "== ctest -L exercise with the stubs: all $count must fail =="
ctest --test-dir "$build" -L exercise -j 2 > "$build/grades/check-stub-ctest.txt" 2>&1 || true  # must fail
if grep -q "0% tests passed, $count tests failed out of $count" "$build/grades/check-stub-ctest.txt"; then
  echo "  ok    0 of $count passed"
else
  echo "  WRONG: ctest -L exercise did not fail every stub"; cat "$build/grades/check-stub-ctest.txt"; status=1
fi

echo "== the solutions (GPULAB_SOLUTIONS=ON): every one must pass its grader (seed $seed) =="
use ON
grade_each solution 0
echo "== ctest -L exercise with the solutions (fresh seeds) =="
ctest --test-dir "$build" -L exercise --output-on-failure -j 2 || status=1

if [ $status -eq 0 ]; then
  echo "check-exercises: every stub fails its grader and every solution passes it"
else
  echo "check-exercises: FAILED (above)"
fi
exit $status
