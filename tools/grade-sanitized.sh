#!/usr/bin/env bash
# Grades an exercise on the GPU under compute-sanitizer, memcheck then racecheck: the debugging
# exercise (lesson 06) is done when its sizes pass and neither tool reports anything.
#   tools/grade-sanitized.sh build/default/bin/gpulab_grade 06 [more gpulab_grade options]
# Exit 0: passed and clean; 1: a size failed or a tool reported errors; 77: no GPU or no
# compute-sanitizer here (CTest reports the test as skipped).
set -uo pipefail
grader=${1:?usage: grade-sanitized.sh GRADER LESSON}
lesson=${2:?usage: grade-sanitized.sh GRADER LESSON}
shift 2
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "compute-sanitizer not found: not graded under the sanitizers"
  exit 77
fi
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')  # one seed: both tools grade the same sizes
status=0
for tool in memcheck racecheck; do
  echo "== $tool: $grader --lesson $lesson --backend gpu --seed $seed =="
  "$sanitizer" --tool "$tool" --error-exitcode 99 "$grader" --lesson "$lesson" --backend gpu --seed "$seed" "$@"
  rc=$?
  case $rc in
    0) ;;
    77) echo "no GPU: not graded under the sanitizers"; exit 77 ;;
    99) echo "$tool reported errors (above): the kernel still has a bug the tests may not show"; status=1 ;;
    *) status=1 ;;
  esac
done
exit $status
