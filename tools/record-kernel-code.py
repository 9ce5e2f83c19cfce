#!/usr/bin/env python3
"""Records what the CUDA toolkit says of each lesson kernel, for learners without it (the app's
Code and Memory views read them beside the kernels' sources, kernels/TOPIC/machine_code/):

    tools/record-kernel-code.py --exe build-h100/bin/lesson01_vector_add --out kernels

(Every lesson executable holds every lesson's kernels: one is enough.) For each kernel folder
(TOPIC: the kernel's namespace, gpulab::TOPIC, which is its folder's name), OUT/TOPIC/machine_code/
holds
- facts.json: per kernel (its function name), registers per thread, static
  shared memory, local memory and stack (spills), from `cuobjdump -res-usage`;
- KERNEL.sass and KERNEL.ptx: the kernel's machine code for the build's GPU (`cuobjdump -sass`)
  and its PTX (`cuobjdump -ptx`).
Needs cuobjdump (the CUDA toolkit's); the kernels are the lessons' own (not cuBLAS's or cuDNN's).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout


def qualified_name(mangled):
    """(topic, name) of a kernel of ours: _ZN6gpulab3gpu6matmul12naive_kernelEPKf... -> (matmul, naive_kernel)."""
    names = nested_names(mangled)
    return (names[2] if len(names) > 3 else "common"), (names[-1] if names else mangled)


def nested_names(mangled):
    """The nested names of a mangled function's own name: gpulab, gpu, matmul, naive_kernel."""
    names = []
    i = 0
    while i < len(mangled):
        m = re.match(r"(\d+)", mangled[i:])
        if not m:
            i += 1
            continue
        length = int(m.group(1))
        start = i + len(m.group(1))
        name = mangled[start:start + length]
        if length > 0 and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
            # An unnamed namespace (_GLOBAL__N_…, nvcc adds the file's name) is no folder.
            if not name.startswith("_GLOBAL__N"):
                names.append(name)
            i = start + length
        else:
            i = start
        if mangled[i:i + 1] == "E" or mangled[i:i + 1] == "I":
            break
    return names


def ours(mangled):
    # A kernel GPU Lab defines (gpulab::gpu::…), not a library's template instantiated with one of
    # our types as an argument (CUB's DeviceSelectSweepKernel<…gpulab::gpu::scan::Below…>).
    return mangled.startswith("_ZN6gpulab3gpu")


def split_functions(text, header):
    """{mangled: body} from cuobjdump output, where `header` matches a function's first line."""
    found, current, body = {}, None, []
    for line in text.splitlines():
        m = re.match(header, line)
        if m:
            if current:
                found[current] = "\n".join(body)
            current, body = m.group(1), [line]
        elif current:
            body.append(line)
    if current:
        found[current] = "\n".join(body)
    return found


def readable(body, kind):
    lines = []
    for line in body.splitlines():
        if kind == "sass":
            line = re.sub(r"\s*/\* 0x[0-9a-f]{16} \*/\s*$", "", line)
        if line.strip():
            lines.append(line.rstrip())
        # The function's end: PTX's closing brace, SASS's row of dots (the fatbin's headers follow).
        if kind == "ptx" and line.strip() == "}" and not line.startswith((" ", "\t")):
            break
        if kind == "sass" and line.strip() == "..........":
            break
    return "\n".join(lines).strip() + "\n"


def folder_of(out, topic):
    folder = os.path.join(out, topic, "machine_code")
    os.makedirs(folder, exist_ok=True)
    return folder


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--exe", required=True)
    p.add_argument("--cuobjdump", default="cuobjdump", help="the CUDA toolkit's cuobjdump (default: on PATH)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if shutil.which(a.cuobjdump) is None:
        print("needs cuobjdump (the CUDA toolkit's)")
        return 77
    facts = {}  # {topic: {name: facts}}
    for path in [a.exe]:
        usage = run(a.cuobjdump, "-res-usage", path)
        arch = re.search(r"arch = (sm_\d+)", usage)
        for m in re.finditer(r"Function (\S+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", usage):
            mangled = m.group(1)
            if not ours(mangled):
                continue
            topic, name = qualified_name(mangled)
            entry = facts.setdefault(topic, {}).setdefault(name, {
                "registers": int(m.group(2)), "stack_bytes": int(m.group(3)), "shared_bytes": int(m.group(4)),
                "local_bytes": int(m.group(5)), "arch": arch.group(1) if arch else "", "instances": 0})
            entry["instances"] += 1
            # A template's instances differ: keep the largest (what limits occupancy most).
            entry["registers"] = max(entry["registers"], int(m.group(2)))
        sass = split_functions(run(a.cuobjdump, "-sass", path), r"\s+Function : (\S+)")
        ptx = split_functions(run(a.cuobjdump, "-ptx", path), r"\.(?:visible )?\.entry (\w+)\(")
        # Each kernel once, its first instance (a template's others are alike), without the SASS
        # encodings (hex comments) and with the PTX cut at the entry's end: what a learner reads.
        for kind, functions in (("sass", sass), ("ptx", ptx)):
            instances = {}
            for mangled, body in functions.items():
                if ours(mangled):
                    instances.setdefault(qualified_name(mangled), []).append(body)
            for (topic, name), bodies in instances.items():
                text = readable(bodies[0], kind)
                if len(bodies) > 1:
                    text += f"\n// (and {len(bodies) - 1} more instance(s) of this template, left out)\n"
                with open(os.path.join(folder_of(a.out, topic), f"{name}.{kind}"), "w") as f:
                    f.write(text)
    for topic, kernels in facts.items():
        with open(os.path.join(folder_of(a.out, topic), "facts.json"), "w") as f:
            json.dump(kernels, f, indent=1, sort_keys=True)
    print(f"{sum(len(k) for k in facts.values())} kernels in {len(facts)} folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
