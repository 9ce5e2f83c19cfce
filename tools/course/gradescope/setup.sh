#!/usr/bin/env bash
# Gradescope's set-up, run once when the autograder image is built: the packages GPU Lab lists
# (tools/debian-packages.txt, through tools/setup.sh) and the grader, built for the emulator.
set -euo pipefail
gpulab=/autograder/source/gpulab
bash "$gpulab/tools/setup.sh"
cmake -S "$gpulab" --preset emulated
cmake --build "$gpulab/build/emulated" --target gpulab_grade
