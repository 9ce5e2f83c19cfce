#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and open the app on lesson 01.
# Extra arguments go to the app: tools/start.sh --lesson 03 --view visualize
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh" default
exec "$root/build/default/bin/gpulab" --lesson 01 "$@"
