"""Front end B (sim/cann_cpu) against front end A, on the Atlas A2 (ascend910b) and the training series
(ascend910): B's outputs must equal A's bit for bit and pass the case's float64 golden on their own, and
each launch's modeled time and peak UB must be equal (B's cores report their counters, which libnormgrad
prices with A's cost model), with no violation on either. CI runs every quick `normgrad check` case (it
includes the small bench shapes); NORMGRAD_CANN_FULL=1 (./build.sh --cann-cpu --full) adds every other
case of `normgrad check --full` and every bench case (benchmarks/, `normgrad bench`). Needs front end B's
runners beside the library (./build.sh --cann-cpu); without them the cross-check is skipped, the error
tests still run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import normgrad
from normgrad._native.calls import last_run
from normgrad._native.library import library_path
from normgrad.cases import bench_cases, check_cases
from normgrad.cases.base import Case
from normgrad.check import case_rng, select
from normgrad.compare import compare
from normgrad.errors import AclnnError

SOCS = ("ascend910b", "ascend910")


# Where libnormgrad looks for the runners: NORMGRAD_CANN_RUNNER_DIR, else beside the library.
RUNNER_DIR = Path(os.environ.get("NORMGRAD_CANN_RUNNER_DIR") or library_path().parent)


def _runner(soc: str) -> Path:
    return RUNNER_DIR / f"normgrad_cann_run_{soc}"


def _front_end_b_built() -> bool:
    return all(_runner(soc).exists() for soc in SOCS)


@pytest.fixture
def front_end(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """NORMGRAD_FRONTEND is read at every launch: the test sets it per call and restores it after."""
    monkeypatch.delenv("NORMGRAD_FRONTEND", raising=False)
    yield monkeypatch
    normgrad.set_soc("ascend910b")


def _run(case: Case, front: str, monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray | None]:
    monkeypatch.setenv("NORMGRAD_FRONTEND", front)
    return list(case.run(case.make_inputs(case_rng(case, 0))))


def _key(case: Case) -> tuple[str, str, str, str]:
    return (case.op, case.name, case.dtype, case.shape)


def _params(cases: list[Case]) -> list:  # type: ignore[type-arg]
    return [pytest.param(soc, c, id=f"{soc}-{c.op}-{c.name}-{c.dtype}") for soc in SOCS for c in cases]


def _full_cases(quick: list[Case]) -> list[Case]:
    """Every case of `normgrad check --full` and every bench case but the quick ones (bench and check share
    some shapes: each runs once)."""
    seen = {_key(c) for c in quick}
    cases = []
    for c in select(check_cases(), full=True) + bench_cases():
        if _key(c) not in seen:
            seen.add(_key(c))
            cases.append(c)
    return cases


QUICK = select(check_cases())
CHECK_KEYS = {_key(c) for c in select(check_cases(), full=True)}
FULL = _full_cases(QUICK)
RUN_FULL = os.environ.get("NORMGRAD_CANN_FULL") == "1"

# The figures of a core that decide its modeled time (ascendc/cost.h), for a message naming what differs.
COST_FIGURES = ("gmToUbBytes", "ubToGmBytes", "ubToUbBytes", "dmaIn", "dmaOut", "vecInstr", "vecRepeats",
                "scalarGmBytesIn", "scalarGmBytesOut", "syncAll", "drains", "l2HitBytes", "ubPeakBytes")


def _assert_same_launches(runs_a: list[dict], runs_b: list[dict]) -> None:  # type: ignore[type-arg]
    """Each launch of B has A's kernel, blockDim, modeled time (bit for bit: the same cost function of the
    same counters) and peak UB; on a difference, the message names the first core's differing figures."""
    assert [r["kernel"] for r in runs_b] == [r["kernel"] for r in runs_a]
    for i, (a, b) in enumerate(zip(runs_a, runs_b, strict=True)):
        assert a["ok"] and b["ok"], (a["error"], b["error"])
        assert a["blockDim"] == b["blockDim"], f"launch {i}"
        if a["totalUs"] == b["totalUs"] and a["ubPeakBytes"] == b["ubPeakBytes"]:
            continue
        differ = ""
        for core, (ca, cb) in enumerate(zip(a["cores"], b["cores"], strict=True)):
            figures = {k: (ca[k], cb[k]) for k in COST_FIGURES if ca[k] != cb[k]}
            if figures:
                differ = f"core {core} (A, B): {figures}"
                break
        raise AssertionError(f"launch {i} ({a['kernel']}): modeled time {a['totalUs']} us on A, "
                             f"{b['totalUs']} us on B; peak UB {a['ubPeakBytes']} and {b['ubPeakBytes']} "
                             f"bytes; {differ}")


def _check_case(soc: str, case: Case, front_end: pytest.MonkeyPatch) -> None:
    normgrad.set_soc(soc)
    # B first: its outputs are fresh allocations nothing of A's run can have filled.
    try:
        got_b = _run(case, "cann", front_end)
    except AclnnError as err_b:
        # A call the aclnn layer rejects on this SoC (BatchNormElemt on the training series) is rejected
        # before any launch, the same way on both.
        with pytest.raises(AclnnError) as err_a:
            _run(case, "sim", front_end)
        assert err_a.value.status == err_b.status == 161002, str(err_b)
        return
    runs_b = last_run()
    got_a = _run(case, "sim", front_end)
    runs_a = last_run()
    assert runs_a, "front end A reported no launch"
    _assert_same_launches(runs_a, runs_b)
    for name, a, b in zip(case.output_names, got_a, got_b, strict=True):
        assert (a is None) == (b is None), name
        if a is None:
            continue
        assert a.dtype == b.dtype and a.shape == b.shape, name
        differ = int(np.count_nonzero(a.view(np.uint8) != b.view(np.uint8)))
        assert differ == 0, f"{name}: {differ} bytes differ between front ends A and B"
    # The golden: for `normgrad check`'s cases, with their tolerances. Bench cases are timed, not
    # golden-checked (`normgrad bench` does not; their long fp32 reductions may leave check's tolerances).
    if _key(case) not in CHECK_KEYS:
        return
    want = list(case.golden(case.make_inputs(case_rng(case, 0))))
    for name, b, w in zip(case.output_names, got_b, want, strict=True):
        comparison = None if b is None else compare(name, b, w, case.tolerance)
        assert comparison is None or comparison.ok, comparison.detail if comparison else name


@pytest.mark.skipif(not _front_end_b_built(), reason="front end B is not built (./build.sh --cann-cpu)")
@pytest.mark.parametrize(("soc", "case"), _params(QUICK))
def test_front_end_b_equals_front_end_a(soc: str, case: Case, front_end: pytest.MonkeyPatch) -> None:
    _check_case(soc, case, front_end)


@pytest.mark.skipif(not _front_end_b_built(), reason="front end B is not built (./build.sh --cann-cpu)")
@pytest.mark.skipif(not RUN_FULL, reason="runs with NORMGRAD_CANN_FULL=1 (./build.sh --cann-cpu --full)")
@pytest.mark.parametrize(("soc", "case"), _params(FULL))
def test_front_end_b_equals_front_end_a_full(soc: str, case: Case, front_end: pytest.MonkeyPatch) -> None:
    _check_case(soc, case, front_end)


def test_unknown_front_end_is_an_error_naming_the_variable(front_end: pytest.MonkeyPatch) -> None:
    case = select(check_cases("layer_norm_grad"))[0]
    with pytest.raises(AclnnError, match="NORMGRAD_FRONTEND is 'cannn'"):
        _run(case, "cannn", front_end)


def test_front_end_b_not_built_is_a_clear_error(front_end: pytest.MonkeyPatch, tmp_path: Path) -> None:
    front_end.setenv("NORMGRAD_CANN_RUNNER_DIR", str(tmp_path))
    case = select(check_cases("layer_norm_grad"))[0]
    with pytest.raises(AclnnError, match="front end B is not built"):
        _run(case, "cann", front_end)
    assert not os.listdir(tmp_path)
