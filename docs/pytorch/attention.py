#!/usr/bin/env python3
"""PyTorch's attention forward, `torch.nn.functional.scaled_dot_product_attention`, to compare with
`lesson19_attention` on the same GPU: each backend PyTorch offers for the shape (FlashAttention-2,
memory-efficient, cuDNN's fused attention, and the plain math), FP16 or BF16, causal or not, each
timed with CUDA events after a warm-up (median and min-max), with TFLOP/s counted as
FlashAttention's papers count them (4 · batch · heads · seq² · head_dim, half of it causal).

    python3 docs/pytorch/attention.py [--shape 4x16x4096x128] [--causal] [--dtype fp16|bf16] [--reps 30] [--json FILE]"""
import argparse
import json
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from tiny_network import time_cuda  # CUDA events around each call, after a warm-up (this folder)

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="4x16x4096x128", help="BATCHxHEADSxSEQxHEAD_DIM")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--json")
    args = parser.parse_args()
    b, h, s, d = (int(v) for v in args.shape.split("x"))
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    torch.manual_seed(0)
    q, k = ((torch.rand(b, h, s, d, device="cuda") * 4 - 2).to(dtype) for _ in range(2))
    v = (torch.rand(b, h, s, d, device="cuda") * 2 - 1).to(dtype)
    flops = 4 * b * h * s * s * d / (2 if args.causal else 1)
    reference = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                                                 is_causal=args.causal)
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name(0)}, {args.shape}"
          f"{' causal' if args.causal else ''} {args.dtype}")
    rows = []
    for name, backend in BACKENDS.items():
        def run():
            with sdpa_kernel(backend):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=args.causal)
        try:
            error = (run().double() - reference).abs().max().item()
        except RuntimeError as e:  # the backend does not take this shape or GPU: say so
            print(f"{name:>9}: not available ({str(e).splitlines()[0][:100]})")
            continue
        t = time_cuda(run, args.reps, warmup=3)
        tflops = flops / (t["median_ms"] * 1e-3) / 1e12
        rows.append({"backend": name, **t, "tflops": tflops, "max_error": error})
        print(f"{name:>9}: {t['median_ms'] * 1e3:9.1f} us [{t['min_ms'] * 1e3:.1f} - {t['max_ms'] * 1e3:.1f}]  "
              f"{tflops:6.1f} TFLOP/s  max error {error:.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "shape": [b, h, s, d],
                       "causal": args.causal, "dtype": args.dtype, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
