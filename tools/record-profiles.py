#!/usr/bin/env python3
"""Records Nsight Compute profiles of a few lesson kernels, for the profiling lesson
(docs/lessons/11-profiling.md) and learners without a GPU (the app shows them):

    tools/record-profiles.py --bin build-h100/bin --out assets/profiles

Each profile is one kernel's first launch, with the sections the lesson reads: Speed Of Light,
Memory Workload Analysis, Occupancy, Warp State Statistics and Launch Statistics, written as
assets/profiles/LESSON-VARIANT.json. Needs ncu and a GPU.
"""
import argparse
import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys

SECTIONS = ["SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy", "WarpStateStats", "LaunchStats"]
# Why warps wait: each reason's share of the cycles between two instructions a warp issues
# (Warp State Statistics' breakdown, which its section shows only as a chart).
STALLS = ["long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "barrier", "math_pipe_throttle",
          "wait", "not_selected", "selected", "dispatch_stall", "no_instruction", "membar", "branch_resolving",
          "drain", "imc_miss", "tex_throttle", "sleeping"]
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
# (lesson, variant, kernel, arguments): the pairs the lesson compares.
PROFILES = [
    ("03", "coalesced", "add_coalesced", ["--n", "8192"]),
    ("03", "transposed", "add_transposed", ["--n", "8192"]),
    ("05", "naive", "naive_kernel", ["--n", "2048"]),
    ("05", "shared_tiles", "shared_tiles_kernel", ["--n", "2048"]),
    ("05", "warp_tiled", "warp_tiled_kernel", ["--n", "2048"]),
]


def executable(bin_dir, lesson):
    for name in sorted(os.listdir(bin_dir)):
        if name.startswith(f"lesson{lesson}_"):
            return os.path.join(bin_dir, name)
    raise SystemExit(f"no lesson{lesson}_* in {bin_dir}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if shutil.which("ncu") is None:
        print("needs Nsight Compute (ncu)")
        return 77
    os.makedirs(a.out, exist_ok=True)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, check=False).stdout.strip()
    version = subprocess.run(["ncu", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    for lesson, variant, kernel, args in PROFILES:
        exe = executable(a.bin, lesson)
        cmd = ["ncu", "--csv", "--page", "details", "--kernel-name", kernel, "--launch-count", "1"]
        for s in SECTIONS:
            cmd += ["--section", s]
        cmd += ["--metrics", ",".join(STALL_METRIC.format(r) for r in STALLS)]
        program = [exe, "--backend", "gpu", "--variant", variant, "--reps", "1", "--warmup", "0"] + args
        done = subprocess.run(cmd + program, capture_output=True, text=True, check=False)
        text = done.stdout[done.stdout.find('"ID"'):] if '"ID"' in done.stdout else ""
        sections = {}
        for row in csv.DictReader(io.StringIO(text)):
            name, section = row["Metric Name"], row["Section Name"]
            if not name:
                continue  # the sections' rule results, not metrics
            if name.startswith("smsp__average_warps_issue_stalled_"):
                section = "Stall reasons (cycles a warp waits per instruction it issues)"
                name = name[len("smsp__average_warps_issue_stalled_"):].replace("_per_issue_active.ratio", "")
            sections.setdefault(section, []).append([name, row.get("Metric Unit", ""), row["Metric Value"]])
        stalls = sections.pop("Stall reasons (cycles a warp waits per instruction it issues)", None)
        if stalls:
            sections["Stall reasons (cycles a warp waits per instruction it issues)"] = stalls  # last
        if not sections:
            print(f"no profile for {lesson} {variant}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
            continue
        profile = {
            "lesson": lesson, "variant": variant, "kernel": kernel, "device": gpu.split(",")[0].strip(),
            "driver": gpu.split(",")[-1].strip(), "ncu": version.splitlines()[-1] if version else "",
            "recorded": datetime.date.today().isoformat(),
            "command": "ncu " + " ".join(f"--section {s}" for s in SECTIONS) + " " +
                       " ".join(["lesson" + os.path.basename(exe)[6:]] + program[1:]),
            "sections": sections}
        with open(os.path.join(a.out, f"{lesson}-{variant}.json"), "w") as f:
            json.dump(profile, f, indent=1)
        print(f"recorded {lesson} {variant}: {sum(len(v) for v in sections.values())} metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
