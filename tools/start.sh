#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run lesson 01.
# Extra arguments go to the lesson: tools/start.sh --sweep
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh" default
exec "$root/build/default/bin/lesson01_vector_add" "$@"
