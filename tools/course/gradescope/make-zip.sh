#!/usr/bin/env bash
# Makes Gradescope's autograder zip for one or more exercises (tools/course/README.md):
#   tools/course/gradescope/make-zip.sh 01_vector_add,05_matmul autograder.zip
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
exercises=${1:?usage: make-zip.sh EXERCISE[,EXERCISE...] OUT.zip}
out=$(realpath -m "${2:?usage: make-zip.sh EXERCISE[,EXERCISE...] OUT.zip}")
for e in ${exercises//,/ }; do
  ls "$root"/lessons/*/exercises/"$e"/exercise.json > /dev/null 2>&1 || { echo "make-zip: no exercise $e" >&2; exit 2; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bash "$root/tools/student-copy.sh" "$stage/gpulab" > /dev/null   # no solutions in the image
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
echo "$exercises" > "$stage/exercises.txt"
rm -f "$out"
(cd "$stage" && python3 -c "import shutil, sys; shutil.make_archive(sys.argv[1][:-4], 'zip', '.')" "$out")
echo "$out: Gradescope's autograder for $exercises"
