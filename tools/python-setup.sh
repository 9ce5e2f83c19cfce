#!/usr/bin/env bash
# Makes GPU Lab's Python package (python/gpulab) importable by one interpreter and gives that
# interpreter what the package and its tests use (NumPy, pytest, matplotlib, IPython, nbclient,
# nbformat, ipykernel, nbconvert): Debian's python3 gets them as Debian packages
# (tools/debian-packages.txt, installed by tools/setup.sh); any other interpreter (a pyenv one, a
# virtual environment) from PyPI, for that interpreter alone. The package itself is not copied: a
# gpulab.pth file in the interpreter's site folder names python/, so an edit is seen at once.
#   tools/python-setup.sh [PYTHON]   (default: $GPULAB_PYTHON, else Debian's /usr/bin/python3, else python3)
# Prints the interpreter's path last.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${1:-${GPULAB_PYTHON:-}}
if [[ -z "$python" ]]; then
  if [[ -x /usr/bin/python3 ]]; then python=/usr/bin/python3; else python=python3; fi
fi
python=$(command -v "$python")

# module:PyPI name, for each thing the package, its notebooks and its tests import
wanted=(numpy:numpy pytest:pytest matplotlib:matplotlib IPython:ipython nbclient:nbclient nbformat:nbformat
        ipykernel:ipykernel nbconvert:nbconvert)
missing=()
for pair in "${wanted[@]}"; do
  "$python" -c "import ${pair%%:*}" 2>/dev/null || missing+=("${pair#*:}")
done
if ((${#missing[@]} > 0)); then
  if [[ "$python" == /usr/bin/python3* ]]; then
    echo "python-setup: $python lacks ${missing[*]}: run tools/setup.sh (Debian's python3-* packages)" >&2
    exit 1
  fi
  echo "python-setup: installing ${missing[*]} for $python from PyPI" >&2
  # Into the interpreter's own site-packages where it may write (a virtual environment, a pyenv
  # one): its user site is shared with every interpreter of its version (Debian's too).
  writable=$("$python" -c 'import os, sysconfig; print(int(os.access(sysconfig.get_paths()["purelib"], os.W_OK)))')
  user=(--user)
  [[ "$writable" == 1 ]] && user=()
  "$python" -m pip install -q --no-warn-script-location "${user[@]}" "${missing[@]}" >&2
fi

# The package: a .pth in the interpreter's user site (its site-packages in a virtual environment).
site=$("$python" -c 'import sys, site; print(site.getsitepackages()[0] if sys.prefix != sys.base_prefix else site.getusersitepackages())')
mkdir -p "$site"
if [[ "$(cat "$site/gpulab.pth" 2>/dev/null)" != "$root/python" ]]; then
  echo "$root/python" > "$site/gpulab.pth"
  echo "python-setup: 'import gpulab' now works in $python (through $site/gpulab.pth)" >&2
fi
echo "$python"
