#!/usr/bin/env bash
# PrairieLearn's external-grader entry point: grades /grade/student for the exercise named in
# /grade/tests/exercise into /grade/results/results.json (tools/course/README.md).
# GPULAB_PL_ROOT replaces /grade (the tests' fake root); GPULAB_GRADE names gpulab_grade.
set -uo pipefail
root=${GPULAB_PL_ROOT:-/grade}
gpulab=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
grade=${GPULAB_GRADE:-$gpulab/build/emulated/bin/gpulab_grade}
mkdir -p "$root/results"
if [ ! -s "$root/tests/exercise" ]; then
  printf '{"gradable": false, "message": "The question names no exercise (tests/exercise): please tell the course staff.", "tests": []}\n' \
    > "$root/results/results.json"
  exit 0
fi
exercises=$(tr -d ' \n' < "$root/tests/exercise")
"$grade" --backend emulated --exercise "$exercises" --student "$root/student" \
  --results "$root/results/results.json" --format prairielearn
status=$?
if [ $status -ne 0 ] || [ ! -s "$root/results/results.json" ]; then
  printf '{"gradable": false, "message": "The grader failed (gpulab_grade exit status %d): please tell the course staff.", "tests": []}\n' \
    "$status" > "$root/results/results.json"
fi
