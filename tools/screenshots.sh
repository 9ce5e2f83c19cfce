#!/usr/bin/env bash
# Renders the app's views under Xvfb into docs/screenshots/ (the pictures in the README and docs).
#   tools/screenshots.sh [BUILD_DIR]    default: build/default
set -euo pipefail
cd "$(dirname "$0")/.."
app="${1:-build/default}/bin/gpulab"
out=docs/screenshots
mkdir -p "$out"
shot() {
  local name="$1"; shift
  xvfb-run -a -s '-screen 0 1600x1000x24' "$app" --width 1400 --height 860 --screenshot "$out/$name.png" "$@"
}
shot run-lesson01 --lesson 01 --sweep --backend cpu --backend emulated
shot learn-lesson01 --lesson 01 --view learn
shot code-lesson03 --lesson 03 --view code
shot visualize-lesson02 --lesson 02 --view visualize
shot visualize-lesson03 --lesson 03 --view visualize
shot visualize-lesson07 --lesson 07 --view visualize
shot visualize-lesson08 --lesson 08 --view visualize
shot visualize-lesson13 --lesson 13 --view visualize
shot visualize-lesson14 --lesson 14 --view visualize
shot visualize-lesson15 --lesson 15 --view visualize
shot visualize-lesson19 --lesson 19 --view visualize
shot learn-lesson10 --lesson 10 --view learn
shot exercise-lesson06 --lesson 06 --grade --hints 1
shot run-lesson05 --lesson 05 --run --n 256 --backend cpu --backend emulated
shot run-lesson06 --lesson 06 --run --n 32 --backend cpu --backend emulated
shot device --lesson 04 --view device
shot run-lesson17 --lesson 17 --run --n 2048 --backend cpu --backend emulated
shot run-lesson19 --lesson 19 --run --backend cpu --backend emulated --open assets/results/lesson19-attention-h200.json
shot memory-lesson19 --lesson 19 --view memory
