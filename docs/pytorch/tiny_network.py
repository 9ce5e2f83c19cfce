#!/usr/bin/env python3
"""PyTorch's time for one training step of lesson 07's networks, to compare with
`lesson07_tiny_network` on the same machine: the same network (Linear + sigmoid, two layers),
batch, loss (MSE, mean), optimiser (plain SGD, lr 0.5), and the same way of timing (CUDA events
around each step, warm-up first, median and min-max of the repetitions; data already on the GPU).

    python3 docs/pytorch/tiny_network.py [--reps 200] [--json FILE]

Rows: eager CUDA, CUDA-graph replay (the whole step captured once), and eager CPU."""
import argparse
import json
import statistics
import time

import torch

SHAPES = [((2, 16, 1), 64), ((784, 128, 10), 128), ((784, 1024, 10), 4096)]


def make(sizes, batch, device):
    torch.manual_seed(0)
    layers = []
    for i in range(len(sizes) - 1):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.Sigmoid()]
    model = torch.nn.Sequential(*layers).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    x = torch.rand(batch, sizes[0], device=device) * 2 - 1
    t = torch.rand(batch, sizes[-1], device=device)
    return model, opt, x, t


def step(model, opt, x, t):
    opt.zero_grad(set_to_none=False)
    loss = torch.nn.functional.mse_loss(model(x), t)
    loss.backward()
    opt.step()
    return loss


def summary(times_ms):
    return {"median_ms": statistics.median(times_ms), "min_ms": min(times_ms), "max_ms": max(times_ms)}


def time_cuda(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return summary(times)


def time_cpu(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return summary(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for sizes, batch in SHAPES:
        name = "→".join(map(str, sizes)) + f", batch {batch}"
        model, opt, x, t = make(sizes, batch, "cuda")
        rows.append({"network": name, "mode": "cuda eager", **time_cuda(lambda: step(model, opt, x, t), args.reps, args.warmup)})
        # The graph: warm up on a side stream, capture one whole step, replay it.
        model, opt, x, t = make(sizes, batch, "cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step(model, opt, x, t)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step(model, opt, x, t)
        rows.append({"network": name, "mode": "cuda graph replay", **time_cuda(graph.replay, args.reps, args.warmup)})
        model, opt, x, t = make(sizes, batch, "cpu")
        cpu_reps = max(5, args.reps // 10) if batch >= 4096 else args.reps
        rows.append({"network": name, "mode": "cpu eager", **time_cpu(lambda: step(model, opt, x, t), cpu_reps, 3)})
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}, {torch.get_num_threads()} CPU threads")
    for r in rows:
        print(f"{r['network']:<26} {r['mode']:<18} {r['median_ms'] * 1e3:9.1f} µs  ({r['min_ms'] * 1e3:.1f} – {r['max_ms'] * 1e3:.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
