#!/usr/bin/env bash
# Host code of a learner's .cu is compiled plain on the emulator (lessons/run/two_halves.hpp): the
# CPU multiply of host_multiply.cu, built by gpulab_run, calls none of the checked mode's hooks
# (__tsan_*), while its kernel does.
#   host_code_is_plain.sh GPULAB_RUN CACHE_FOLDER
set -euo pipefail
runner=$1 cache=$2
rm -rf "$cache"
mkdir -p "$cache"
XDG_CACHE_HOME=$cache "$runner" --emulated -o "$cache/program" "$(dirname "$0")/host_multiply.cu"
function_of() {  # the disassembly of the function whose mangled name starts with $1
  objdump -d --no-show-raw-insn "$cache/program" | awk -v name="<$1" 'index($0, name) && /:$/ {on = !done; next} on && /^$/ {on = 0; done = 1} on'
}
host=$(function_of _Z15multiply_on_cpu)
kernel=$(function_of _ZN6gpulab8emulated6detail11run_threads)
[[ -n $host && -n $kernel ]] || { echo "FAIL: multiply_on_cpu or the kernel's checked loop not found"; exit 1; }
echo "multiply_on_cpu: $(grep -c . <<<"$host") instructions, $(grep -c '__tsan_' <<<"$host" || true) calls to the checks"
echo "the kernel's checked loop: $(grep -c '__tsan_' <<<"$kernel" || true) calls to the checks"
