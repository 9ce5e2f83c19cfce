#!/usr/bin/env bash
# Installs what is missing, configures once, and builds (incrementally): tools/build.sh [preset]
# GPULAB_CUDA_ARCHITECTURES, where set, overrides the preset's GPU architectures when the build
# folder is first configured (CI builds for one, .ci/run; a learner's build covers every GPU).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
"$root/tools/setup.sh"
cd "$root"
# ccache (where CMakeLists.txt found it): paths relative to the repository and the build folder's
# name left out of its hash, so that build/default and build/emulated share objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
binary_dir=build/$preset
[[ "$preset" == h100 ]] && binary_dir=build-h100  # the device tool carries it at the top level
if [[ ! -f "$binary_dir/build.ninja" ]]; then
  architectures=()
  [[ -n "${GPULAB_CUDA_ARCHITECTURES:-}" ]] && architectures=("-DCMAKE_CUDA_ARCHITECTURES=$GPULAB_CUDA_ARCHITECTURES")
  cmake --preset "$preset" "${architectures[@]}"
fi
cmake --build --preset "$preset"
# `import gpulab` (python/gpulab) for the Python the tests use, with what it needs.
"$root/tools/python-setup.sh" > /dev/null
