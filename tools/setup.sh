#!/usr/bin/env bash
# Installs the Debian packages in tools/debian-packages.txt that are missing (nothing when none
# is), and says whether the CUDA toolkit is there (without it, GPU Lab builds emulated-only).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

missing=()
while read -r package; do
  [[ -z "$package" || "$package" == \#* ]] && continue
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done < "$here/debian-packages.txt"

if ((${#missing[@]} > 0)); then
  echo "Installing: ${missing[*]}"
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "note: no CUDA toolkit (no nvcc on PATH or in /usr/local/cuda/bin): building the emulated-only" >&2
  echo "      GPU Lab, which runs every GPU kernel on the CPU. For the GPU backend, install the toolkit" >&2
  echo "      from NVIDIA (https://developer.nvidia.com/cuda-downloads) and run this again." >&2
fi
