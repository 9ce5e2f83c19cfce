#!/usr/bin/env python3
"""PyTorch's row kernels, FP32, to compare with `lesson17_softmax` and `lesson18_layer_norm` on the
same GPU: `torch.softmax(x, dim=-1)` or `torch.nn.functional.layer_norm(x, (cols,), weight, bias)`,
eager and through `torch.compile` (its generated kernel), each timed with CUDA events after a
warm-up (median and min-max), beside a plain copy of the same bytes (`y.copy_(x)`), whose GB/s is
the ceiling a kernel that reads x once and writes y once can reach.

    python3 docs/pytorch/rows.py --op softmax [--shape 4096x32768] [--reps 50] [--json FILE]
    python3 docs/pytorch/rows.py --op layer_norm --shape 4096x8192"""
import argparse
import json
import torch

from tiny_network import time_cuda  # CUDA events around each call, after a warm-up (this folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", choices=["softmax", "layer_norm"], default="softmax")
    parser.add_argument("--shape", default="4096x32768")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows, cols = (int(v) for v in args.shape.split("x"))
    torch.manual_seed(0)
    x = torch.rand(rows, cols, device="cuda") * 16 - 8
    weight, bias = torch.rand(cols, device="cuda") + 0.5, torch.rand(cols, device="cuda") - 0.5
    y = torch.empty_like(x)
    if args.op == "softmax":
        def op(t):
            return torch.softmax(t, dim=-1)
    else:
        def op(t):
            return torch.nn.functional.layer_norm(t, (cols,), weight.to(t.dtype), bias.to(t.dtype), 1e-5)
    moved = 2 * x.numel() * 4  # read x, write y
    ways = {"copy": lambda: y.copy_(x), "eager": lambda: op(x)}
    try:
        compiled = torch.compile(op)
        compiled(x)
        ways["compiled"] = lambda: compiled(x)
    except Exception as e:  # no compiler on this machine: say so, time the rest
        print(f"torch.compile unavailable: {e}")
    rows_out = []
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name(0)}, {args.op}, {rows} x {cols} FP32")
    for name, fn in ways.items():
        t = time_cuda(fn, args.reps, warmup=5)
        gbps = moved / (t["median_ms"] * 1e-3) / 1e9
        rows_out.append({"way": name, **t, "gbps": gbps})
        print(f"{name:>9}: {t['median_ms'] * 1e3:8.1f} us [{t['min_ms'] * 1e3:.1f} - {t['max_ms'] * 1e3:.1f}]  "
              f"{gbps:7.1f} GB/s")
    reference = op(x.double())
    error = (op(x).double() - reference).abs().max() / reference.abs().max()
    print(f"eager's largest error against float64, relative to the largest output: {error.item():.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "op": args.op,
                       "shape": [rows, cols], "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
