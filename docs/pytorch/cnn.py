#!/usr/bin/env python3
"""PyTorch's time for one training step of the seed article's CNN, to compare with `lesson16_cnn`
on the same machine: the same network (conv 3→16, ReLU, max-pool, conv 16→32, ReLU, max-pool,
linear 2048→128, ReLU, linear 128→10), cross-entropy, Adam (lr 1e-3), random 32 × 32 × 3 images
and labels already on the GPU (the seed's own loop), timed as GPU Lab times (CUDA events around
each step, warm-up first, median and min-max).

    python3 docs/pytorch/cnn.py [--batches 32,256] [--reps 200] [--json FILE]

Rows per batch: FP32 eager; FP32 as one CUDA graph (captured once, replayed); automatic mixed
precision eager (autocast to FP16 and a gradient scaler, as the seed); and torch.compile where it
works here (mode "max-autotune-no-cudagraphs", then "reduce-overhead", which adds CUDA graphs)."""
import argparse
import json

import torch

from tiny_network import time_cuda


def make(batch, seed=0, capturable=False):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(2048, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
    # capturable: Adam keeps its step count on the GPU, which a CUDA graph needs.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=capturable)
    x = torch.randn(batch, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    return model, opt, x, y


def fp32_step(model, opt, x, y):
    opt.zero_grad(set_to_none=False)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def amp_step(model, opt, scaler, x, y):
    opt.zero_grad(set_to_none=False)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return loss


def graphed(step):
    """One whole step captured in a CUDA graph (warm-up on a side stream first, as PyTorch asks)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph.replay


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="32,256")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--json")
    parser.add_argument("--no-compile", action="store_true", help="leave out torch.compile (minutes to compile)")
    args = parser.parse_args()
    rows = []

    def add(batch, mode, make_fn):
        try:
            rows.append({"batch": batch, "mode": mode, **time_cuda(make_fn(), args.reps, args.warmup)})
        except Exception as e:  # torch.compile may not work on every machine: say so, go on
            rows.append({"batch": batch, "mode": mode, "error": f"{type(e).__name__}: {e}"[:200]})

    for batch in [int(b) for b in args.batches.split(",")]:
        model, opt, x, y = make(batch)
        add(batch, "fp32 eager", lambda: lambda: fp32_step(model, opt, x, y))
        model2, opt2, x2, y2 = make(batch, capturable=True)
        add(batch, "fp32 cuda graph", lambda: graphed(lambda: fp32_step(model2, opt2, x2, y2)))
        model3, opt3, x3, y3 = make(batch)
        scaler = torch.amp.GradScaler("cuda")
        add(batch, "amp eager (autocast fp16 + GradScaler)", lambda: lambda: amp_step(model3, opt3, scaler, x3, y3))
        for mode in [] if args.no_compile else ["max-autotune-no-cudagraphs", "reduce-overhead"]:
            model4, opt4, x4, y4 = make(batch)
            compiled = torch.compile(model4, mode=mode)

            def compiled_step(m=compiled, o=opt4, a=x4, b=y4):
                torch.compiler.cudagraph_mark_step_begin()  # this step's graphs may reuse the last one's memory
                o.zero_grad(set_to_none=True)  # the last backward graph's gradients are its outputs: not written into
                loss = torch.nn.functional.cross_entropy(m(a), b)
                loss.backward()
                o.step()
                return loss

            add(batch, f"fp32 torch.compile {mode}", lambda: compiled_step)
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    for r in rows:
        if "error" in r:
            print(f"batch {r['batch']:<5} {r['mode']:<48} failed: {r['error']}")
        else:
            print(f"batch {r['batch']:<5} {r['mode']:<48} {r['median_ms'] * 1e3:9.1f} µs  "
                  f"({r['min_ms'] * 1e3:.1f} – {r['max_ms'] * 1e3:.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
