#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite. Without a
# GPU the tests labelled gpu are reported as skipped and the suite passes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh" default
cd "$root"
ctest --preset default "$@"
