#!/usr/bin/env python3
"""PyTorch's softmax over rows, FP32, to compare with `lesson17_attention` on the same GPU: eager
`torch.softmax(x, dim=-1)` and the same through `torch.compile` (its generated kernel), each timed
with CUDA events after a warm-up (median and min-max), beside a plain copy of the same bytes
(`y.copy_(x)`), whose GB/s is the ceiling a softmax that reads x once and writes y once can reach.

    python3 docs/pytorch/softmax.py [--shape 4096x32768] [--reps 50] [--json FILE]"""
import argparse
import json
import torch

from tiny_network import time_cuda  # CUDA events around each call, after a warm-up (this folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="4096x32768")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows, cols = (int(v) for v in args.shape.split("x"))
    torch.manual_seed(0)
    x = torch.rand(rows, cols, device="cuda") * 16 - 8
    y = torch.empty_like(x)
    moved = 2 * x.numel() * 4  # read x, write y
    ways = {"copy": lambda: y.copy_(x), "eager": lambda: torch.softmax(x, dim=-1)}
    try:
        compiled = torch.compile(lambda t: torch.softmax(t, dim=-1))
        compiled(x)
        ways["compiled"] = lambda: compiled(x)
    except Exception as e:  # no compiler on this machine: say so, time the rest
        print(f"torch.compile unavailable: {e}")
    rows_out = []
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name(0)}, {rows} x {cols} FP32")
    for name, fn in ways.items():
        t = time_cuda(fn, args.reps, warmup=5)
        gbps = moved / (t["median_ms"] * 1e-3) / 1e9
        rows_out.append({"way": name, **t, "gbps": gbps})
        print(f"{name:>9}: {t['median_ms'] * 1e3:8.1f} us [{t['min_ms'] * 1e3:.1f} - {t['max_ms'] * 1e3:.1f}]  "
              f"{gbps:7.1f} GB/s")
    reference = torch.softmax(x.double(), dim=-1)
    print(f"eager's largest relative error against float64: "
          f"{((torch.softmax(x, dim=-1).double() - reference).abs() / reference).max().item():.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "shape": [rows, cols],
                       "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
