#!/usr/bin/env bash
# Copies a build folder without its object files and archives into .carry/, small enough for the
# device tool to carry (64 MiB). On the GPU machine: tar xf .carry/BUILD.tar.xz, then run as usual —
# CTest's files name the executables by their absolute path, which the move restores.
#   tools/pack-build.sh [build-h100]
set -euo pipefail
build=${1:-build-h100}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf ".carry/$build" ".carry/$build.tar.xz"
mkdir -p .carry
cp -a "$build" ".carry/$build"
find ".carry/$build" \( -name '*.o' -o -name '*.a' -o -name '*.d' -o -name '*.gch' \) -delete
# The app and its tests need a display and Debian's GLFW and md4c, which GPU machines lack.
rm -f ".carry/$build/bin/gpulab" ".carry/$build"/tests/app_*test
# CMake's compiler checks, and the executables' symbol tables (CUDA's line info stays).
find ".carry/$build/CMakeFiles" -maxdepth 2 -name 'CompilerId*' -exec rm -rf {} +
find ".carry/$build/bin" ".carry/$build/tests" -maxdepth 1 -type f -perm -u+x -exec strip --strip-unneeded {} +
# One archive: the executables are mostly the same bytes (every lesson links every lesson), which
# xz's window (64 MiB at -9, one thread: one window over the whole tar) finds. On the GPU machine: tar xf .carry/BUILD.tar.xz
tar -C .carry -cf - "$build" | xz -T1 -9 > ".carry/$build.tar.xz"
rm -rf ".carry/$build"
du -sh ".carry/$build.tar.xz"
