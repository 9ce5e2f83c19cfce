#!/usr/bin/env python3
"""PyTorch's time for one training step of the seed article's CNN, to compare with `lesson16_cnn`
on the same machine: the same network (conv 3→16, ReLU, max-pool, conv 16→32, ReLU, max-pool,
linear 2048→128, ReLU, linear 128→10), cross-entropy, Adam (lr 1e-3), random 32 × 32 × 3 images
and labels already on the GPU (the seed's own loop), timed as GPU Lab times (CUDA events around
each step, warm-up first, median and min-max).

    python3 docs/pytorch/cnn.py [--batches 32,256] [--reps 200] [--json FILE]

Rows per batch: FP32 eager; FP32 as one CUDA graph (captured once, replayed), with Adam's
for-each and its fused kernel; automatic mixed precision eager (autocast to FP16 and a gradient
scaler, as the seed) and as one CUDA graph (the fused Adam takes the scaler's inf check and scale
on the GPU, so nothing syncs with the host and the whole step captures), and BF16 autocast (no
scaler) as one CUDA graph; and torch.compile where it works here (mode
"max-autotune-no-cudagraphs", then "reduce-overhead", which adds CUDA graphs), FP32 and with
autocast. The fastest FP32 and the fastest mixed row are what lesson 16 is compared with."""
import argparse
import json

import torch

from tiny_network import time_cuda


def make(batch, seed=0, capturable=False, fused=False, channels_last=False):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(2048, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
    # capturable: Adam keeps its step count on the GPU, which a CUDA graph needs.
    # fused: one kernel for every parameter's update, which also takes GradScaler's scale and inf
    # check as tensors (no host sync: AMP can be captured).
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=capturable, fused=fused or None)
    x = torch.randn(batch, 3, 32, 32, device="cuda")
    if channels_last:  # NHWC, the layout cuDNN's tensor-core convolutions prefer
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (batch,), device="cuda")
    return model, opt, x, y


def fp32_step(model, opt, x, y):
    opt.zero_grad(set_to_none=False)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def amp_step(model, opt, scaler, x, y, dtype=torch.float16):
    opt.zero_grad(set_to_none=False)
    with torch.autocast("cuda", dtype=dtype):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    if scaler is None:  # BF16 has FP32's range: no loss scaling
        loss.backward()
        opt.step()
        return loss
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
    parser.add_argument("--batches", default="32,256,1024")
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
        m5, o5, x5, y5 = make(batch, capturable=True, fused=True)
        add(batch, "fp32 cuda graph, fused Adam", lambda: graphed(lambda: fp32_step(m5, o5, x5, y5)))
        model3, opt3, x3, y3 = make(batch)
        scaler = torch.amp.GradScaler("cuda")
        add(batch, "amp eager (autocast fp16 + GradScaler)", lambda: lambda: amp_step(model3, opt3, scaler, x3, y3))
        m8, o8, x8, y8 = make(batch, capturable=True, fused=True, channels_last=True)
        add(batch, "fp32 cuda graph, fused Adam, channels_last", lambda: graphed(lambda: fp32_step(m8, o8, x8, y8)))
        for channels_last in [False, True]:
            m6, o6, x6, y6 = make(batch, capturable=True, fused=True, channels_last=channels_last)
            scaler6 = torch.amp.GradScaler("cuda")
            add(batch, "amp cuda graph (fp16 + GradScaler, fused Adam" + (", channels_last)" if channels_last else ")"),
                lambda: graphed(lambda: amp_step(m6, o6, scaler6, x6, y6)))
        m7, o7, x7, y7 = make(batch, capturable=True, fused=True)
        add(batch, "amp cuda graph (bf16, fused Adam)",
            lambda: graphed(lambda: amp_step(m7, o7, None, x7, y7, torch.bfloat16)))
        for mode in [] if args.no_compile else ["max-autotune-no-cudagraphs", "reduce-overhead"]:
            for autocast in [None, torch.float16]:
                model4, opt4, x4, y4 = make(batch, fused=True)
                compiled = torch.compile(model4, mode=mode)
                scaler4 = torch.amp.GradScaler("cuda") if autocast else None

                def compiled_step(m=compiled, o=opt4, a=x4, b=y4, dtype=autocast, sc=scaler4):
                    torch.compiler.cudagraph_mark_step_begin()  # this step's graphs may reuse the last one's memory
                    o.zero_grad(set_to_none=True)  # the last backward graph's gradients are its outputs: not written into
                    with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
                        loss = torch.nn.functional.cross_entropy(m(a), b)
                    if sc is None:
                        loss.backward()
                        o.step()
                    else:
                        sc.scale(loss).backward()
                        sc.step(o)
                        sc.update()
                    return loss

                kind = "amp fp16" if autocast else "fp32"
                add(batch, f"{kind} torch.compile {mode}", lambda: compiled_step)
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    for r in rows:
        if "error" in r:
            print(f"batch {r['batch']:<5} {r['mode']:<48} failed: {r['error']}")
        else:
            print(f"batch {r['batch']:<5} {r['mode']:<48} {r['median_ms'] * 1e3:9.1f} µs  "
                  f"({r['min_ms'] * 1e3:.1f} – {r['max_ms'] * 1e3:.1f})")
    for batch in sorted({r["batch"] for r in rows}):
        for kind in ["fp32", "amp"]:
            timed = [r for r in rows if r["batch"] == batch and r["mode"].startswith(kind) and "error" not in r]
            if timed:
                best = min(timed, key=lambda r: r["median_ms"])
                print(f"batch {batch:<5} fastest {kind}: {best['mode']}, {best['median_ms'] * 1e3:.1f} µs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
