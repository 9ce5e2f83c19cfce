"""Trains the seed's CuPy network (cnn.py) on GPU Lab's image classes and prints the loss at every
step, so that runs on different backends can be set side by side:

    python3 train.py --lib cupy                                # real CuPy, on a GPU
    python3 train.py --lib gpulab                              # gpulab.cupy: the GPU, else the emulator
    GPULAB_BACKEND=emulated python3 train.py --lib gpulab --steps 10 --batch 16 --side 16

Each step's batch is the next `batch` images of a training set drawn from --seed; the parameters
start from --seed too, so every backend trains the same network on the same images."""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cnn import CNN, initial_parameters  # noqa: E402
from shapes import make_shapes  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", choices=("cupy", "gpulab"), default="gpulab")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--side", type=int, default=32, help="image side, a multiple of 4")
    ap.add_argument("--c1", type=int, default=16)
    ap.add_argument("--c2", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--rate", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the losses and the run's facts to this file")
    a = ap.parse_args(argv)
    if a.side % 4 or a.side < 4 or a.batch < 1 or a.steps < 0:
        ap.error("--side must be a multiple of 4 (two poolings), --batch at least 1, --steps not negative")
    if a.lib == "cupy":
        import cupy as cp
        backend = "CuPy " + cp.__version__
    else:
        import gpulab.cupy as cp
        backend = "gpulab.cupy, " + ("emulated (checked)" if cp.cuda.runtime.is_emulated() else "GPU")
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    images, labels = make_shapes(a.batch * max(a.steps, 1), a.side, a.seed)
    test_images, test_labels = make_shapes(256, a.side, a.seed + 1000)
    net = CNN(cp, initial_parameters(a.side, a.c1, a.c2, a.hidden, seed=a.seed))
    print(f"{backend} on {device}: {a.steps} steps of {a.batch} images {a.side}x{a.side}, "
          f"conv {a.c1}, {a.c2}, hidden {a.hidden}, SGD rate {a.rate}, seed {a.seed}")
    losses, start = [], time.perf_counter()
    for step in range(a.steps):
        lo, hi = step * a.batch, (step + 1) * a.batch
        loss = net.step(cp.asarray(images[lo:hi]), cp.asarray(labels[lo:hi]), a.rate)
        losses.append(loss)
        print(f"step {step:4d}  loss {loss:.6f}", flush=True)
    seconds = time.perf_counter() - start
    accuracy = net.accuracy(cp.asarray(test_images), cp.asarray(test_labels))
    print(f"{a.steps} steps in {seconds:.2f} s; accuracy on 256 test images {accuracy:.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"backend": backend, "device": device, "args": vars(a), "losses": losses,
                       "accuracy": accuracy, "seconds": seconds}, f, indent=1)


if __name__ == "__main__":
    main()
