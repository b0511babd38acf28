"""normgrad.nn.SyncBatchNorm: 2 and 3 gloo processes on this machine against one process, the module
alone and training under DistributedDataParallel (docs/torch.md's recipe).

Each world size is one launch of its ranks (_sync_batch_norm_worker.py: file rendezvous, gloo on
the loopback interface, OMP_NUM_THREADS=1, killed after LAUNCH_TIMEOUT_S) running every case of that
world size: different batch sizes per rank, float32, bfloat16 (module and input), bfloat16 input with
float32 parameters, channels_last, and a rank with an empty batch.

References, on the concatenated batch: torch.nn.BatchNorm2d in float64 on the same rounded inputs
and parameters (the golden), and torch.nn.BatchNorm2d in the case's dtypes (the peer). The ranks'
y and dx are concatenated; their dweight/dbias are this rank's share (as torch.nn.SyncBatchNorm's:
DDP all-reduces them), so their sum is compared; the loss is the sum of the ranks' losses.

Under DDP: examples/sync_batch_norm_ddp.py, the script docs/torch.md's recipe is an excerpt of,
launched as the docs say (torch.distributed.run, rendezvous on 127.0.0.1 at a free port, gloo on
lo) with 2 ranks and with 3 (then without DDP's buffer broadcast, so that only SyncBatchNorm keeps the
ranks' running statistics equal); 10 SGD steps on uneven shards, and every rank's final state_dict
against one process training the same model with torch.nn.BatchNorm2d on the whole batch: in float64
(budget float32's 2e-6, measured <= 6.2e-7 over the parameters and running statistics) and in float32
(the peer bound below). The ranks must hold the same bits.

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
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

if not dist.is_available() or not dist.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).parent))
import _sync_batch_norm_worker as worker  # noqa: E402

import normgrad.nn as ngnn  # noqa: E402

TOL = {torch.float32: 2e-6, torch.bfloat16: 2.0**-7}
EXAMPLE = Path(__file__).parents[2] / "examples" / "sync_batch_norm_ddp.py"
LAUNCH_TIMEOUT_S = 240  # measured 4-8 s (worker), 8-17 s (torchrun) on 2 busy cores; a hang fails


def rel_err(ours: torch.Tensor, ref: torch.Tensor) -> float:
    assert ours.shape == ref.shape
    ref64 = ref.detach().double()
    scale = ref64.abs().max().item()
    return (ours.detach().double() - ref64).abs().max().item() / (scale if scale > 0 else 1.0)


def run_to_completion(commands: list[list[str]], out: Path) -> None:
    """Runs the commands at once, each in a session of its own with its output in out/log<i>; kills
    every process of the sessions still running after LAUNCH_TIMEOUT_S; fails unless all exit 0."""
    env = {**os.environ, "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1"}
    procs = []
    for i, command in enumerate(commands):
        with open(out / f"log{i}", "w") as log:
            procs.append(subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True))
    deadline = time.monotonic() + LAUNCH_TIMEOUT_S
    try:
        for p in procs:
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)  # the session: torchrun's workers too
                p.wait()
    codes = [p.returncode for p in procs]
    logs = "\n".join(f"--- {' '.join(c)}:\n{(out / f'log{i}').read_text()[-3000:]}"
                     for i, c in enumerate(commands))
    assert codes == [0] * len(procs), \
        f"exit codes {codes} (still running after {LAUNCH_TIMEOUT_S} s: killed):\n{logs}"


def scratch_dir(prefix: str) -> Path:
    out = Path(tempfile.mkdtemp(prefix=f"normgrad-{prefix}-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    return out


@functools.cache
def launch(world_size: int) -> list[dict[str, dict[str, torch.Tensor]]]:
    """Runs the worker on world_size ranks once per session; each rank's results."""
    out = scratch_dir(f"syncbn-{world_size}")
    run_to_completion([[sys.executable, worker.__file__, str(out), str(rank), str(world_size),
                        str(out / "store")] for rank in range(world_size)], out)
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


# ---- the documented recipe: DistributedDataParallel, SGD, uneven shards ---------------------------

def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_batch_norm_ddp", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = load_example()


@functools.cache
def train_under_ddp(world_size: int, sync_buffers: bool) -> list[dict[str, torch.Tensor]]:
    """The example under docs/torch.md's command (torchrun, rendezvous on 127.0.0.1, a free port);
    each rank's final state_dict."""
    out = scratch_dir(f"syncbn-ddp-{world_size}")
    run_to_completion([[sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
                        "--nproc-per-node", str(world_size), "--rdzv-backend", "c10d",
                        "--rdzv-endpoint", "127.0.0.1:0", str(EXAMPLE), str(out),
                        *([] if sync_buffers else ["--no-forward-sync-buffers"])]], out)
    return [torch.load(out / f"rank{r}.pt") for r in range(world_size)]


def train_one_process(dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """The example's model with torch.nn.BatchNorm2d, trained in one process on each whole batch with
    the mean loss: what every rank must end with."""
    model = example.make_model().to(dtype)  # float64: the float32 initial weights, exactly
    optimizer = torch.optim.SGD(model.parameters(), lr=example.LR)
    for step in range(example.STEPS):
        x, target = example.batch(step)
        loss = torch.nn.functional.cross_entropy(model(x.to(dtype)), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.state_dict()


# 2 ranks as the docs' command runs it; 3 ranks without DDP's buffer broadcast, so that nothing but
# SyncBatchNorm keeps the ranks' running statistics equal.
@pytest.mark.parametrize("world_size,sync_buffers", [(2, True), (3, False)],
                         ids=["2ranks", "3ranks-no-forward-sync-buffers"])
def test_ddp_training_matches_one_process_batch_norm(world_size: int, sync_buffers: bool) -> None:
    ranks = train_under_ddp(world_size, sync_buffers)
    gold, peer = train_one_process(torch.float64), train_one_process(torch.float32)
    assert list(ranks[0]) == list(gold)  # BatchNorm2d's state_dict keys
    budget = TOL[torch.float32]
    for name, g in gold.items():
        for r, state in enumerate(ranks[1:], 1):  # DDP's averaged gradients, our shared statistics
            assert torch.equal(state[name], ranks[0][name]), f"{name}: rank {r} differs from rank 0"
        ours = ranks[0][name]
        if name.endswith("num_batches_tracked"):
            assert ours.item() == g.item() == example.STEPS
            continue
        err, peer_err, ours_peer = rel_err(ours, g), rel_err(peer[name], g), rel_err(ours, peer[name])
        assert err <= budget, f"{name}: {err:.3g} against float64, budget {budget:.3g}"
        assert ours_peer <= budget + max(budget, peer_err), f"{name}: {ours_peer:.3g} against torch"


def test_docs_recipe_is_the_example() -> None:
    """docs/torch.md's train.py block is, line for line, a run of the example's lines."""
    doc = (Path(__file__).parents[2] / "docs" / "torch.md").read_text()
    block = doc.split("# train.py: examples/sync_batch_norm_ddp.py\n", 1)[1].split("```", 1)[0]
    lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
    source = [ln.strip() for ln in EXAMPLE.read_text().splitlines()]
    assert len(lines) >= 10
    assert any(source[i:i + len(lines)] == lines for i in range(len(source))), \
        "docs/torch.md's train.py is not a contiguous excerpt of examples/sync_batch_norm_ddp.py"


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


def test_torch_sync_batch_norm_compatibility_without_its_class() -> None:
    """A _BatchNorm, not a torch.nn.SyncBatchNorm (which DDP refuses on CPU); torch's constructor,
    state_dict both ways, process_group; convert and revert share the very parameter objects."""
    group = object()  # stands for a process group: only stored
    ours = ngnn.SyncBatchNorm(4, eps=1e-3, momentum=None, process_group=group, bias=False)
    assert isinstance(ours, torch.nn.modules.batchnorm._BatchNorm)
    assert not isinstance(ours, torch.nn.SyncBatchNorm)
    assert ours.process_group is group and ours.bias is None and ours.momentum is None
    torchs = torch.nn.SyncBatchNorm(4, eps=1e-3, momentum=None, bias=False)
    assert repr(ours) == repr(torchs)
    for source, target in ((torch.nn.SyncBatchNorm(4), ngnn.SyncBatchNorm(4)),
                           (torch.nn.BatchNorm2d(4), ngnn.SyncBatchNorm(4)),
                           (ngnn.SyncBatchNorm(4), torch.nn.BatchNorm2d(4))):
        with torch.no_grad():
            for t in source.state_dict().values():
                t.copy_(torch.arange(t.numel()).reshape(t.shape) + 3)
        target.load_state_dict(source.state_dict(), strict=True)
        for k, v in source.state_dict().items():
            assert torch.equal(target.state_dict()[k], v), k

    model = torch.nn.Sequential(torch.nn.BatchNorm1d(3), torch.nn.Sequential(torch.nn.BatchNorm3d(2)))
    params = [id(p) for p in model.parameters()] + [id(b) for b in model.buffers()]
    model = ngnn.SyncBatchNorm.convert_sync_batchnorm(model.eval(), process_group=group)
    assert [type(m) for m in (model[0], model[1][0])] == [ngnn.SyncBatchNorm] * 2
    assert model[0].process_group is group and not model[0].training
    model = ngnn.SyncBatchNorm.revert_sync_batchnorm(model)
    assert [type(m) for m in (model[0], model[1][0])] == [torch.nn.BatchNorm1d, torch.nn.BatchNorm3d]
    assert [id(p) for p in model.parameters()] + [id(b) for b in model.buffers()] == params
    assert not model[0].training
    assert type(ngnn.SyncBatchNorm.revert_sync_batchnorm(ours)) is torch.nn.SyncBatchNorm

    class ScaledBatchNorm(torch.nn.BatchNorm2d):  # a constructor of its own: not rebuilt on revert
        def __init__(self, scale: float) -> None:
            super().__init__(2)
            self.scale = scale

    converted = ngnn.SyncBatchNorm.convert_sync_batchnorm(ScaledBatchNorm(3.0))
    assert type(ngnn.SyncBatchNorm.revert_sync_batchnorm(converted)) is torch.nn.SyncBatchNorm
    assert type(torch.nn.SyncBatchNorm.convert_sync_batchnorm(ours)) is torch.nn.SyncBatchNorm


def test_errors_name_the_problem() -> None:
    bn = ngnn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"expected more than 1 value per channel when training, got 1"):
        bn(torch.randn(1, 3))
    with pytest.raises(TypeError, match=r"SyncBatchNorm: input has dtype torch.float64"):
        bn(torch.randn(4, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"SyncBatchNorm: expected at least 2D input \(got 1D input\)"):
        bn(torch.randn(3))
    with pytest.raises(ValueError, match=r"SyncBatchNorm: input has 0 channels"):
        bn(torch.randn(2, 0, 5))
