#!/usr/bin/env python3
"""PyTorch DDP's time for one data-parallel training step of lesson 10's networks, to compare with
`lesson10_multi_gpu` on the same machine: the same network (Linear + sigmoid, two layers), batch
per GPU, loss (MSE, mean), optimiser (plain SGD, lr 0.5), one process per GPU, NCCL, gradients
averaged by DistributedDataParallel. Each step is timed on rank 0 with CUDA events around
zero_grad + forward + backward + step (warm-up first; median and min-max), data already on the GPUs.

    python3 docs/pytorch/ddp_mlp.py [--gpus 1,2,4] [--reps 200] [--json FILE]
    torchrun --nproc-per-node 2 docs/pytorch/ddp_mlp.py [--reps 200] [--json FILE]

Started by torchrun (as a cluster starts it: RANK, WORLD_SIZE and MASTER_ADDR set), each process
runs its rank and the world is torchrun's; otherwise the script spawns each world size itself.

NVLink multicast stays off whatever the environment says (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1): on shared machines it can take the
GPUs out of service."""
import argparse
import json
import os
import statistics

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
SHAPES = [((2, 16, 1), 64), ((784, 128, 10), 128), ((784, 1024, 10), 4096)]


def worker(rank, world, reps, warmup, port, queue):
    os.environ.update(NO_MULTICAST)
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    init = "env://" if "TORCHELASTIC_RUN_ID" in os.environ else f"tcp://127.0.0.1:{port}"
    dist.init_process_group("nccl", init_method=init, rank=rank, world_size=world)
    rows = []
    for sizes, batch in SHAPES:
        torch.manual_seed(0)
        layers = []
        for i in range(len(sizes) - 1):
            layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.Sigmoid()]
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*layers).cuda(), device_ids=[rank])
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        x = torch.rand(batch, sizes[0], device="cuda") * 2 - 1
        t = torch.rand(batch, sizes[-1], device="cuda")

        def step():
            opt.zero_grad(set_to_none=False)
            loss = torch.nn.functional.mse_loss(model(x), t)
            loss.backward()
            opt.step()

        for _ in range(warmup):
            step()
        torch.cuda.synchronize()
        dist.barrier()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        dist.barrier()
        rows.append({"network": "x".join(map(str, sizes)), "batch_per_gpu": batch, "gpus": world,
                     "median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times)})
    if rank == 0:
        queue.put(rows)
    dist.destroy_process_group()


class Rows:
    """The queue torchrun's rank 0 hands its rows to (no process to hand them across)."""
    rows = []

    def put(self, rows):
        self.rows += rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", default="1,2,4", help="world sizes to run, comma-separated")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--json", help="write the rows to FILE")
    args = parser.parse_args()
    os.environ.update(NO_MULTICAST)  # before any process is spawned, and again in each (worker)
    available = torch.cuda.device_count()
    results = []
    if "TORCHELASTIC_RUN_ID" in os.environ:  # torchrun started this process: one rank of its world
        rows = Rows()
        worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args.reps, args.warmup, 0, rows)
        if int(os.environ["RANK"]) != 0:
            return
        results = rows.rows
    for i, world in enumerate([] if results else (int(g) for g in args.gpus.split(","))):
        if world > available:
            print(f"skipping {world} GPUs: {available} visible")
            continue
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        workers = mp.spawn(worker, args=(world, args.reps, args.warmup, 29500 + i, queue), nprocs=world, join=False)
        results += queue.get()  # before joining: rank 0 exits once its rows are read
        workers.join()
    launcher = "torchrun" if "TORCHELASTIC_RUN_ID" in os.environ else "torch.multiprocessing"
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name(0)}, DDP step (ms) under {launcher}, "
          "median [min - max]")
    for r in results:
        print(f"{r['network']:>12} batch {r['batch_per_gpu']:>5} x {r['gpus']} GPU(s): {r['median_ms']:.4f} "
              f"[{r['min_ms']:.4f} - {r['max_ms']:.4f}]")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
