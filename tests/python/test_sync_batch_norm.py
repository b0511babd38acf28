"""normgrad.nn.SyncBatchNorm: 2 and 3 gloo processes on this machine against one process.

Each world size is one launch of its ranks (_sync_batch_norm_worker.py: file rendezvous, gloo on
the loopback interface, OMP_NUM_THREADS=1, killed after LAUNCH_TIMEOUT_S) running every case of that
world size: different batch sizes per rank, float32, bfloat16 (module and input), bfloat16 input with
float32 parameters, channels_last, and a rank with an empty batch.

References, on the concatenated batch: torch.nn.BatchNorm2d in float64 on the same rounded inputs
and parameters (the golden), and torch.nn.BatchNorm2d in the case's dtypes (the peer). The ranks'
y and dx are concatenated; their dweight/dbias are this rank's share (as torch.nn.SyncBatchNorm's,
DDP sums them), so their sum is compared; the loss is the sum of the ranks' losses.

Tolerances, max|ours - golden| / max|golden| by the tensor's dtype (test_torch.py's budgets):
  * float32 2e-6: statistics are float32 local moments combined in float64, dx and y one float32
    expression of them, the sums a few hundred terms (measured <= 3e-7);
  * bfloat16 2^-7, one ulp: y, dx, dweight, dbias are float32 results rounded once to bfloat16 (half
    an ulp, 2^-9), except that the ranks' dweight/dbias are rounded each before they are summed, so
    ranks' rounding errors add up: at most world_size * 2^-9 of the largest share, under 2^-7 for 3.
  * loss (float32 sum of y * dy): |ours - golden| <= budget(y's dtype) * sum|y * dy|, the error each
    term may carry, over the terms' magnitudes rather than the (cancelling) sum.
Against the peer both sides carry error and torch's bfloat16 kernel is no better than ours, so the
peer bound is the triangle inequality through the golden: budget + max(budget, peer's own error).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

if not dist.is_available() or not dist.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).parent))
import _sync_batch_norm_worker as worker  # noqa: E402

import normgrad.nn as ngnn  # noqa: E402

TOL = {torch.float32: 2e-6, torch.bfloat16: 2.0**-7}
LAUNCH_TIMEOUT_S = 240  # measured ~8 s for 3 ranks on 2 busy cores; a hang fails, not blocks CI


def rel_err(ours: torch.Tensor, ref: torch.Tensor) -> float:
    assert ours.shape == ref.shape
    ref64 = ref.detach().double()
    scale = ref64.abs().max().item()
    return (ours.detach().double() - ref64).abs().max().item() / (scale if scale > 0 else 1.0)


@functools.cache
def launch(world_size: int) -> list[dict[str, dict[str, torch.Tensor]]]:
    """Runs the worker on world_size ranks once per session; each rank's results."""
    out = Path(tempfile.mkdtemp(prefix=f"normgrad-syncbn-{world_size}-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    env = {**os.environ, "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1"}
    procs = []
    for rank in range(world_size):
        with open(out / f"rank{rank}.log", "w") as log:
            procs.append(subprocess.Popen(
                [sys.executable, worker.__file__, str(out), str(rank), str(world_size), str(out / "store")],
                env=env, stdout=log, stderr=subprocess.STDOUT))
    deadline = time.monotonic() + LAUNCH_TIMEOUT_S
    try:
        for p in procs:
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    codes = [p.returncode for p in procs]
    logs = "\n".join(f"--- rank {r}:\n{(out / f'rank{r}.log').read_text()[-2000:]}"
                     for r in range(world_size))
    assert codes == [0] * world_size, \
        f"exit codes {codes} (a rank still running after {LAUNCH_TIMEOUT_S} s is killed):\n{logs}"
    return [torch.load(out / f"rank{r}.pt") for r in range(world_size)]


def reference(case: worker.Case, dtype: torch.dtype, param_dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Single-process torch.nn.BatchNorm2d over the whole batch, in the given dtypes."""
    data = worker.inputs(case)
    bn = torch.nn.BatchNorm2d(worker.C, dtype=param_dtype)
    with torch.no_grad():
        bn.weight.copy_(data["weight"])
        bn.bias.copy_(data["bias"])
    x = data["x"].to(dtype).detach().requires_grad_()
    y = bn(x)
    loss = (y.double() * data["dy"].double()).sum() if dtype == torch.float64 else \
        (y.float() * data["dy"].float()).sum()
    loss.backward()
    return {"y": y.detach(), "dx": x.grad, "dweight": bn.weight.grad, "dbias": bn.bias.grad,
            "loss": loss.detach(), "running_mean": bn.running_mean, "running_var": bn.running_var,
            "loss_scale": (y.detach().double() * data["dy"].double()).abs().sum()}


def gathered(ranks: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The whole batch's results from the ranks' parts."""
    return {"y": torch.cat([r["y"] for r in ranks]), "dx": torch.cat([r["dx"] for r in ranks]),
            "dweight": sum(r["dweight"].double() for r in ranks),
            "dbias": sum(r["dbias"].double() for r in ranks),
            "loss": sum(r["loss"].double() for r in ranks)}


def errors(case: worker.Case, ranks: list[dict[str, torch.Tensor]]) -> dict[str, tuple[float, float, float]]:
    """{name: (ours against the golden, the peer against the golden, ours against the peer)}; the
    loss's as a fraction of sum|y * dy|."""
    ours = gathered(ranks)
    gold = reference(case, torch.float64, torch.float64)
    peer = reference(case, case.dtype, case.param_dtype)
    out = {k: (rel_err(ours[k], gold[k]), rel_err(peer[k], gold[k]), rel_err(ours[k], peer[k]))
           for k in ("y", "dx", "dweight", "dbias")}
    scale = gold["loss_scale"].item()
    a, b, g = ours["loss"].item(), peer["loss"].item(), gold["loss"].item()
    out["loss"] = (abs(a - g) / scale, abs(b - g) / scale, abs(a - b) / scale)
    return out


CASES = [(w, c) for w in (2, 3) for c in worker.cases(w)]


@pytest.mark.parametrize("world_size,case", CASES, ids=[f"{w}ranks-{c.name}" for w, c in CASES])
def test_matches_one_process_batch_norm(world_size: int, case: worker.Case) -> None:
    ranks = [r[case.name] for r in launch(world_size)]
    for r, n in zip(ranks, case.batches, strict=True):
        assert r["y"].shape == (n, worker.C, worker.H, worker.W) and r["y"].dtype == case.dtype
        assert r["dx"] is not None and r["dx"].shape == r["y"].shape and r["dx"].dtype == case.dtype
        assert r["dweight"].dtype == r["dbias"].dtype == case.param_dtype
        if case.channels_last and n > 0:
            assert r["y"].is_contiguous(memory_format=torch.channels_last)
            assert r["dx"].is_contiguous(memory_format=torch.channels_last)
    budget = {"y": TOL[case.dtype], "dx": TOL[case.dtype], "dweight": TOL[case.param_dtype],
              "dbias": TOL[case.param_dtype], "loss": TOL[case.dtype]}
    for name, (ours, peer, ours_peer) in errors(case, ranks).items():
        assert ours <= budget[name], f"{name}: {ours:.3g} against float64, budget {budget[name]:.3g}"
        # |ours - peer| <= |ours - golden| + |golden - peer|: our budget plus the peer's own error.
        assert ours_peer <= budget[name] + max(budget[name], peer), f"{name}: {ours_peer:.3g} against torch"
    # Every rank combined the same gathered moments in the same order: the same bits.
    for r in ranks[1:]:
        assert torch.equal(r["running_mean"], ranks[0]["running_mean"])
        assert torch.equal(r["running_var"], ranks[0]["running_var"])
    gold = reference(case, torch.float64, torch.float64)
    for k in ("running_mean", "running_var"):
        assert rel_err(ranks[0][k], gold[k]) <= TOL[case.param_dtype]


# ---- one process, no process group --------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_without_a_process_group_it_is_batch_norm(dtype: torch.dtype) -> None:
    assert not dist.is_initialized()
    case = worker.Case(f"local_{dtype}", (6,), dtype, dtype)
    ranks = [worker.run_rank(case, 0)]
    for name, (ours, _, _) in errors(case, ranks).items():
        assert ours <= TOL[dtype], f"{name}: {ours:.3g} against float64"


def test_eval_uses_running_statistics_and_convert_shares_parameters() -> None:
    torch.manual_seed(21)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.BatchNorm2d(4))
    with torch.no_grad():
        model[1].running_mean.uniform_(-1, 1)
        model[1].weight.uniform_(0.5, 2)
    bn_before = model[1]
    converted = ngnn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert converted is model and type(model[1]) is ngnn.SyncBatchNorm
    assert model[1].weight is bn_before.weight and model[1].running_mean is bn_before.running_mean
    assert list(model[1].state_dict()) == list(bn_before.state_dict())
    x = torch.randn(2, 3, 4, 4)
    model.eval()
    assert torch.equal(model(x), torch.nn.functional.batch_norm(
        model[0](x), bn_before.running_mean, bn_before.running_var, bn_before.weight, bn_before.bias, False))


def test_errors_name_the_problem() -> None:
    bn = ngnn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"expected more than 1 value per channel when training, got 1"):
        bn(torch.randn(1, 3))
    with pytest.raises(TypeError, match=r"SyncBatchNorm: input has dtype torch.float64"):
        bn(torch.randn(4, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"expected at least 2D input"):
        bn(torch.randn(3))
