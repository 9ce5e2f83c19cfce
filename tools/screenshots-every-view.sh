#!/usr/bin/env bash
# Renders every view of every lesson under Xvfb, to look at after a change to the app or to what a
# lesson offers: OUT/LESSON-VIEW.png (the Run view after a small run on the CPU and the emulator,
# or on the GPU where there is one). A view a lesson does not offer is not rendered.
#   tools/screenshots-every-view.sh [BUILD_DIR] [OUT_DIR] [--gpu]
#   default: build/default, build/default/screenshots; --gpu runs the Run view on the GPU
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
out="${2:-$build/screenshots}"
backends=(--backend cpu --backend emulated)
[[ "${3:-}" == "--gpu" ]] && backends=(--backend cpu --backend gpu)
app="$build/bin/gpulab"
mkdir -p "$out"
# Under Xvfb, unless a display is there already (the GPU machine's, say).
xvfb=(xvfb-run -a -s '-screen 0 1600x1000x24')
[[ -n "${DISPLAY:-}" ]] && xvfb=()
# A size each lesson runs in seconds on the emulator.
declare -A small=([01]=65536 [02]=65536 [03]=128 [04]=65536 [05]=128 [06]=16 [07]=256 [08]=65536 [09]=128 [10]=32)
for dir in lessons/[0-9][0-9]_*/; do
  lesson=$(basename "$dir" | cut -c1-2)
  for view in $("$app" --lesson "$lesson" --list-views); do
    extra=(--view "$view")
    [[ "$view" == run ]] && extra=(--run --n "${small[$lesson]:-64}" "${backends[@]}")
    [[ "$view" == exercise ]] && extra+=(--grade --hints 1)
    "${xvfb[@]}" "$app" --width 1400 --height 860 --lesson "$lesson" "${extra[@]}" \
      --screenshot "$out/$lesson-$view.png" > "$out/$lesson-$view.log" 2>&1 || echo "lesson $lesson, $view: failed (see $out/$lesson-$view.log)"
    echo "$out/$lesson-$view.png"
  done
done
