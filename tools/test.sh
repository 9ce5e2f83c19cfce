#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite — for the
# default build (GPU and emulated backends; emulated-only without the CUDA toolkit) and for the
# emulated-only build a machine without the toolkit gets. Without a GPU the tests labelled gpu are
# reported as skipped and the suite passes. Extra arguments go to ctest: tools/test.sh -L emu
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
for preset in default emulated; do
  echo "== $preset build =="
  tools/build.sh "$preset"
  ctest --preset "$preset" "$@"
done
# The exercises: every stub fails its grader, every solution passes (skipped in a student copy).
echo "== exercises =="
tools/check-exercises.sh build/emulated
