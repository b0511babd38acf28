"""One rank of the SyncBatchNorm tests (test_sync_batch_norm.py).

    python _sync_batch_norm_worker.py OUT_DIR RANK WORLD_SIZE STORE_FILE   # as the tests start it
    python -m torch.distributed.run --nnodes 1 --nproc-per-node 3 --rdzv-backend c10d \
        --rdzv-endpoint 127.0.0.1:0 _sync_batch_norm_worker.py OUT_DIR         # or under torchrun

The tests start the ranks themselves with a file rendezvous (a FileStore on STORE_FILE): no TCP
store, and gloo on the loopback interface, so nothing listens beyond 127.0.0.1 (torchrun's agent
store listens on every interface). Each rank takes its slice of every case's batch (the same seeded
batch on every rank), runs normgrad.nn.SyncBatchNorm forward and backward over gloo, and saves what it
got to OUT_DIR/rank<r>.pt; the test compares those with one BatchNorm2d over the whole batch. The
case list and the inputs live here so that the test and the ranks build the same tensors.
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist

C, H, W = 4, 5, 3


@dataclass(frozen=True)
class Case:
    name: str
    batches: tuple[int, ...]          # per-rank batch sizes (0: an empty rank)
    dtype: torch.dtype                # input and output
    param_dtype: torch.dtype          # weight, bias, running statistics
    channels_last: bool = False


def cases(world_size: int) -> list[Case]:
    f32, bf16 = torch.float32, torch.bfloat16
    if world_size == 2:
        return [Case("fp32", (3, 5), f32, f32), Case("bf16", (3, 5), bf16, bf16),
                Case("bf16_input_fp32_params", (5, 2), bf16, f32),
                Case("fp32_empty_rank", (0, 4), f32, f32), Case("bf16_empty_rank", (4, 0), bf16, bf16)]
    return [Case("fp32", (2, 1, 4), f32, f32), Case("bf16", (2, 1, 4), bf16, bf16),
            Case("fp32_channels_last", (3, 2, 1), f32, f32, channels_last=True),
            Case("fp32_empty_rank", (3, 0, 2), f32, f32), Case("bf16_empty_rank", (0, 2, 3), bf16, bf16)]


def inputs(case: Case) -> dict[str, torch.Tensor]:
    """The whole batch: x (shifted and scaled so the mean matters), dy, weight and bias, rounded to
    their dtypes."""
    gen = torch.Generator().manual_seed(zlib.crc32(f"{case.name}{case.batches}".encode()))  # stable
    n = sum(case.batches)
    x = (torch.randn(n, C, H, W, generator=gen) * 2 + 0.5).to(case.dtype)
    dy = torch.randn(n, C, H, W, generator=gen).to(case.dtype)
    if case.channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
        dy = dy.contiguous(memory_format=torch.channels_last)
    weight = torch.randn(C, generator=gen).to(case.param_dtype)
    bias = torch.randn(C, generator=gen).to(case.param_dtype)
    return {"x": x, "dy": dy, "weight": weight, "bias": bias}


def run_rank(case: Case, rank: int) -> dict[str, torch.Tensor]:
    import normgrad.nn

    data = inputs(case)
    lo = sum(case.batches[:rank])
    hi = lo + case.batches[rank]
    bn = normgrad.nn.SyncBatchNorm(C, dtype=case.param_dtype)
    with torch.no_grad():
        bn.weight.copy_(data["weight"])
        bn.bias.copy_(data["bias"])
    x = data["x"][lo:hi].detach().clone().requires_grad_()
    y = bn(x)
    # sum(y * dy): its gradient with respect to y is dy exactly (dy is already rounded to y's dtype).
    loss = (y.float() * data["dy"][lo:hi].float()).sum()
    loss.backward()
    return {"y": y.detach(), "dx": x.grad, "dweight": bn.weight.grad, "dbias": bn.bias.grad,
            "loss": loss.detach(), "running_mean": bn.running_mean, "running_var": bn.running_var}


def main(argv: list[str]) -> None:
    # A timeout so that a lost peer fails the test instead of hanging it.
    timeout = timedelta(seconds=60)
    if len(argv) == 4:
        dist.init_process_group("gloo", init_method=f"file://{argv[3]}", rank=int(argv[1]),
                                world_size=int(argv[2]), timeout=timeout)
    else:  # env:// as torch.distributed.run sets it
        dist.init_process_group("gloo", timeout=timeout)
    out_dir = Path(argv[0])
    rank, world_size = dist.get_rank(), dist.get_world_size()
    results = {case.name: run_rank(case, rank) for case in cases(world_size)}
    torch.save(results, out_dir / f"rank{rank}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
