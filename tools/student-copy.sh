#!/usr/bin/env bash
# For instructors: a copy of GPU Lab to hand to a class, without the exercises' solutions. It
# builds, runs and grades on its own: tools/start.sh, tools/test.sh, gpulab_grade.
# (Each exercise folder, lessons/NN_*/exercises/NAME/, keeps its exercise.cu and exercise.json;
# its solution.cu and its buggy submissions, near-solutions some of them, are left out.)
#   tools/student-copy.sh DEST            a new folder
#   tools/student-copy.sh DEST.tar.gz     an archive
# The copy is the committed tree (git archive HEAD): changes not committed are not in it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:?usage: tools/student-copy.sh DEST-FOLDER | DEST.tar.gz}
if [ -e "$dest" ]; then
  echo "student-copy: $dest already exists; name a new folder or archive" >&2
  exit 2
fi
if ! git -C "$root" rev-parse --git-dir > /dev/null 2>&1 || ! ls "$root"/lessons/*/exercises/*/solution.cu > /dev/null 2>&1; then
  echo "student-copy: $root is not the instructors' repository (no git, or no lessons/*/exercises/*/solution.cu)" >&2
  exit 2
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git -C "$root" archive --format=tar HEAD | tar -x -C "$stage"
rm -f "$stage"/lessons/*/exercises/*/solution.cu
rm -rf "$stage"/lessons/*/exercises/*/buggy
# The learner's files must be the stubs: no solution may have been committed in their place.
if grep -slE "// (SOLUTION|FIX [0-9])" "$stage"/lessons/*/exercises/*/* > "$stage/.leaks"; then
  echo "student-copy: these files still hold solutions (marked SOLUTION or FIX):" >&2
  cat "$stage/.leaks" >&2
  exit 1
fi
rm -f "$stage/.leaks"
case "$dest" in
  *.tar.gz | *.tgz) tar -czf "$dest" -C "$stage" . ;;
  *) mkdir -p "$(dirname "$dest")" && cp -a "$stage" "$dest" && chmod 755 "$dest" ;;
esac
files=$(find "$stage" -type f | wc -l)
echo "student-copy: $dest — $files files from commit $(git -C "$root" rev-parse --short HEAD), without the exercises' solution.cu and buggy submissions."
echo "In it: tools/start.sh opens the app; gpulab_grade (build/default/bin or build/emulated/bin) grades."
