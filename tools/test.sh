#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite — for the
# default build (GPU and emulated backends; emulated-only without the CUDA toolkit) and for the
# emulated-only build a machine without the toolkit gets. Without a GPU the tests labelled gpu are
# reported as skipped and the suite passes. Extra arguments go to ctest: tools/test.sh -L emu
#
# Each test runs once: the emulated-only build runs its own tests but those labelled emu, which
# ran the same kernels on the same emulator (built from the same sources with the same flags) in
# the default build just before. Where the default build has no CUDA toolkit it *is* the
# emulated-only build, so it is not built twice.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
echo "== default build =="
tools/build.sh default
ctest --preset default "$@"
if grep -q '^GPULAB_BUILT_WITH_CUDA:INTERNAL=ON' build/default/CMakeCache.txt; then
  echo "== emulated-only build (its emu tests ran in the default build) =="
  tools/build.sh emulated
  # (ctest --preset ignores -LE: the build folder and the preset's settings, by hand.)
  ctest --test-dir build/emulated --output-on-failure -j 2 -LE "emu|exercise" "$@"
else
  echo "== no CUDA toolkit: the default build above is the emulated-only build =="
fi
# The exercises: every stub fails its grader, every solution passes (skipped in a student copy).
# Graded with the default build's grader, on the emulator, whose programs grading_test has just
# built: they come from its cache (the same files, driver and emulator), and only run again.
echo "== exercises =="
tools/check-exercises.sh build/default
