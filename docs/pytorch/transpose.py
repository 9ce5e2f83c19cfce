#!/usr/bin/env python3
"""PyTorch's transpose, FP32, to compare with `lesson12_transpose` on the same GPU: eager
`b.copy_(a.t())` and `torch.compile` of `a.t().contiguous()` (its generated kernel), beside a copy
of the same bytes (`d.copy_(a)`) — the ceiling for a kernel that reads a once and writes b once
at that size (a small copy is over before it reaches a large one's rate). Each is timed as 20
calls back to back between two CUDA events (the launches hidden behind the work), after a warm-up;
median and min-max of 15 such.

    python3 docs/pytorch/transpose.py [--shapes 4097x8191,16384x16384] [--json FILE]"""
import argparse
import json
import torch


def per_call_us(f, calls=20, samples=15):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(5):
        f()
    times = []
    for _ in range(samples):
        start.record()
        for _ in range(calls):
            f()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / calls)
    times.sort()
    return {"median_us": times[len(times) // 2], "min_us": times[0], "max_us": times[-1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="16384x16384,4097x8191,8191x4097,10007x3001,3001x10007,1x67108864")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "shapes": []}
    print(f"torch {torch.__version__}, {out['gpu']}")
    for text in args.shapes.split(","):
        rows, cols = (int(v) for v in text.split("x"))
        a = torch.rand(rows, cols, device="cuda")
        b, d = torch.empty(cols, rows, device="cuda"), torch.empty_like(a)
        moved = 2 * a.numel() * 4  # read a, write b
        ways = {"copy": lambda: d.copy_(a), "eager": lambda: b.copy_(a.t())}
        if not args.no_compile and rows > 1 and cols > 1:  # a row's or column's .t() is contiguous: no copy
            torch._dynamo.reset()  # a fresh compilation per shape, past the recompile limit
            compiled = torch.compile(lambda t: t.t().contiguous(), dynamic=False)
            assert torch.equal(compiled(a), a.t())
            ways["compiled"] = lambda: compiled(a)
        row = {"rows": rows, "cols": cols}
        for name, f in ways.items():
            row[name] = per_call_us(f)
            row[name]["GB/s"] = moved / row[name]["median_us"] / 1e3
        assert torch.equal(b, a.t())
        out["shapes"].append(row)
        print(f"{rows}x{cols}: " + " | ".join(
            f"{name} {row[name]['median_us']:.1f} us ({row[name]['GB/s']:.0f} GB/s)" for name in ways))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
