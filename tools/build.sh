#!/usr/bin/env bash
# Installs what is missing, configures once, and builds (incrementally): tools/build.sh [preset]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
"$root/tools/setup.sh"
cd "$root"
binary_dir=build/$preset
[[ "$preset" == h100 ]] && binary_dir=build-h100  # the device tool carries it at the top level
if [[ ! -f "$binary_dir/build.ninja" ]]; then
  cmake --preset "$preset"
fi
cmake --build --preset "$preset"
