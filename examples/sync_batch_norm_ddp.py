"""Training with normgrad.nn.SyncBatchNorm under DistributedDataParallel: docs/torch.md's train.py,
complete. One process per rank, here 3 on this machine over gloo:

    GLOO_SOCKET_IFNAME=lo python -m torch.distributed.run --nnodes 1 --nproc-per-node 3 \\
        --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:0 examples/sync_batch_norm_ddp.py OUT_DIR

A small conv net with two BatchNorm2d layers (one with momentum=None, torch's cumulative average)
trains for STEPS SGD steps on a seeded synthetic batch of GLOBAL_BATCH samples per step, which the
ranks share unevenly (rank r takes a part proportional to r + 1, as a last batch or a sampler without
padding would leave them). Each rank saves its model's state_dict to OUT_DIR/rank<r>.pt.
tests/python/test_sync_batch_norm.py runs this file with 2 and 3 ranks and checks that every rank
ends with the parameters and running statistics of one process training torch.nn.BatchNorm2d on the
whole batch with the mean loss (make_model and batch are shared with that reference).

The loss: DDP averages the ranks' gradients (divides their sum by the world size), while
SyncBatchNorm's statistics and input gradient already span the whole batch. Rank r's loss is its
samples' summed loss times world_size / N (N the global batch): the ranks' gradients then sum to
world_size times the gradient of the whole batch's mean loss, and DDP's average is exactly that
gradient, whatever the shards' sizes. A per-rank mean loss would weight small shards' samples more.

Running statistics: every rank combines the same gathered moments in the same order, so every rank's
buffers are the same bits. DDP's forward_sync_buffers (broadcast_buffers before torch 2.13: rank 0's
buffers copied to every rank before each forward, the default) then changes nothing, and
--no-forward-sync-buffers (forward_sync_buffers=False) saves that broadcast when the model's only
buffers are SyncBatchNorm's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F  # noqa: N812

import normgrad.nn

STEPS, LR, GLOBAL_BATCH, CLASSES = 10, 0.2, 12, 4


def make_model() -> torch.nn.Sequential:
    """The same initial weights in every process (DDP also broadcasts rank 0's at construction)."""
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8, momentum=None), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, CLASSES))


def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Step's whole batch: images (shifted and scaled, so that the mean matters) and labels."""
    gen = torch.Generator().manual_seed(1000 + step)
    x = torch.randn(GLOBAL_BATCH, 3, 6, 6, generator=gen) * 2 + 0.5
    return x, torch.randint(0, CLASSES, (GLOBAL_BATCH,), generator=gen)


def shard(rank: int, world_size: int) -> slice:
    """Rank's samples: parts proportional to 1, 2, ..., world_size (12 -> 4, 8 or 2, 4, 6)."""
    weights = world_size * (world_size + 1) // 2
    return slice(GLOBAL_BATCH * rank * (rank + 1) // 2 // weights,
                 GLOBAL_BATCH * (rank + 1) * (rank + 2) // 2 // weights)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--no-forward-sync-buffers", dest="sync_buffers", action="store_false",
                        help="DistributedDataParallel(forward_sync_buffers=False)")
    args = parser.parse_args()

    dist.init_process_group("gloo")                 # "hccl" with torch_npu on Ascend
    rank, world_size = dist.get_rank(), dist.get_world_size()
    model = normgrad.nn.SyncBatchNorm.convert_sync_batchnorm(make_model())
    options = {} if args.sync_buffers else {"forward_sync_buffers": False}  # torch < 2.13: broadcast_buffers
    model = torch.nn.parallel.DistributedDataParallel(model, **options)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    for step in range(STEPS):
        x, target = (t[shard(rank, world_size)] for t in batch(step))
        n = torch.tensor(len(x))
        dist.all_reduce(n)                          # the global batch size
        loss = F.cross_entropy(model(x), target, reduction="sum") * world_size / n
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model.module.state_dict(), args.out_dir / f"rank{rank}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
