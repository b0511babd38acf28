"""Huawei's GroupNormGrad and LayerNormGradV3 kernels (ops-nn v9.0.0, compiled unchanged, with their own
op_host tiling) on front end B, checked against our float64 goldens on bench shapes. Needs the ops-nn runner
(./build.sh --cann-cpu with NORMGRAD_OPSNN_ROOT or NORMGRAD_OPSNN_GIT_DIR; sim/cann_cpu/README.md); skipped
without it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from normgrad import opsnn
from normgrad.cases import group_norm_grad, layer_norm_grad
from normgrad.cases.base import Case
from normgrad.check import case_rng
from normgrad.compare import compare

SOC = "ascend910b"
BUILT = opsnn.runner(SOC) is not None
needs_runner = pytest.mark.skipif(not BUILT, reason="the ops-nn runner is not built (./build.sh --cann-cpu "
                                                    "with NORMGRAD_OPSNN_ROOT or NORMGRAD_OPSNN_GIT_DIR)")


def _bench(name: str, dtype: str) -> Case:
    cases = group_norm_grad.bench_cases() + layer_norm_grad.bench_cases()
    return next(c for c in cases if c.name == name and c.dtype == dtype)


# Bench shapes ops-nn's kernel serves on front end B, one per tiling path it takes there: fp32 with N = 2
# (tiling key 0: dgamma/dbeta added atomically straight into the outputs after core 0 zeroed them), fp32
# with N = 16 (key 10, deterministic: per-core partial sums in the workspace, summed in a second stage),
# fp16/bf16 (keys 1, 2: fp32 sums in the workspace, then a cast stage).
SERVED = [("sd-unet 320ch 16x16", "float32"), ("sd-unet 1280ch 8x8", "float32"),
          ("resnet-50 gn 56x56", "float32"), ("sd-vae decoder 512ch 128x128", "float16"),
          ("sd-vae decoder 512ch 128x128", "bfloat16"),
          # LayerNormGradV3: a few rows, many rows, a wide row (its single-read, workspace and common paths).
          ("lm 7x4096", "float32"), ("lm 2048x768", "float32"), ("lm 1x16384", "bfloat16"),
          ("lm 2048x768", "bfloat16")]


@needs_runner
@pytest.mark.parametrize(("name", "dtype"), SERVED, ids=[f"{n} {d}" for n, d in SERVED])
def test_opsnn_kernel_matches_golden(name: str, dtype: str) -> None:
    case = _bench(name, dtype)
    inputs = case.make_inputs(case_rng(case, 0))
    run = opsnn.run_case(case, inputs, SOC)
    # The tiling is ops-nn's own: a core count it chose within the SoC's 48 vector cores.
    assert 0 < run.tiling["block_dim"] <= 48, run.tiling
    for out_name, got, want in zip(case.output_names, run.outputs, case.golden(inputs), strict=True):
        result = compare(out_name, got.reshape(np.shape(want)), want, case.tolerance)
        assert result is None or result.ok, result.detail if result else out_name


@needs_runner
def test_opsnn_group_norm_grad_is_deterministic() -> None:
    """Two runs give the same bytes: the atomic adds into dgamma/dbeta follow core 0's zeroing (the SyncAll
    ops-nn's kernel drops in its CPU-debug unit-test build is kept here)."""
    case = _bench("sd-unet 320ch 16x16", "float32")
    inputs = case.make_inputs(case_rng(case, 0))
    first, second = (opsnn.run_case(case, inputs, SOC).outputs for _ in range(2))
    for a, b in zip(first, second, strict=True):
        assert a.tobytes() == b.tobytes()


# Where CANN's own CPU-debug implementation stops ops-nn's kernel: TBuf::Get asserts that the length it
# hands out is a multiple of 32 bytes (asc-devkit kernel_tbuf_impl.h, CPU-debug only). ops-nn's kernel asks
# for HxW floats (7x7: 196 bytes) on its unaligned path and for C/G 16-bit values (C/G = 10: 20 bytes) when
# it writes dgamma/dbeta in fp16/bf16 (sim/cann_cpu/DIFFERENCES.md).
REJECTED = [("resnet-50 gn 7x7", "float32", "buffer length is 49"),
            ("sd-unet 320ch 8x8", "float16", "buffer length is 10")]


@needs_runner
@pytest.mark.parametrize(("name", "dtype", "message"), REJECTED, ids=[f"{n} {d}" for n, d, _ in REJECTED])
def test_cann_cpu_debug_check_rejects_opsnn_buffer_lengths(name: str, dtype: str, message: str) -> None:
    case = _bench(name, dtype)
    with pytest.raises(opsnn.OpsNnError, match=f"{message}, which should be times of 32 Bytes"):
        opsnn.run_case(case, case.make_inputs(case_rng(case, 0)), SOC)


def test_serves_names_what_is_missing() -> None:
    """Without a runner (or for a SoC it does not serve) the reason is a sentence, never a crash."""
    case = _bench("sd-unet 320ch 8x8", "float32")
    assert opsnn.serves(case, "ascend910") == "ops-nn's GroupNormGrad kernel is run for Atlas A2/A3 only"
    batch_norm = Case(op="batch_norm_elemt_grad", name="x", dtype="float32", shape="1",
                      make_inputs=case.make_inputs, run=case.run, golden=case.golden,
                      tolerance=case.tolerance, min_bytes=1)
    assert "no ops-nn kernel of batch_norm_elemt_grad" in (opsnn.serves(batch_norm, SOC) or "")


@needs_runner
def test_bench_compare_takes_the_time_of_opsnn_kernel_where_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`bench --compare`'s official column: ops-nn's time where its kernel ran and passed the golden, marked
    as measured; the hand-written model elsewhere, saying why."""
    from normgrad.bench import BenchRow, add_official

    case = _bench("lm 7x4096", "float32")
    measured = opsnn.measure(case, 0, SOC)
    assert measured.us is not None and measured.launches == 1, measured.why_not
    # The row carries the time of the launch report (here a stand-in for front end B's priced launch).
    monkeypatch.setattr(opsnn, "launch_report", lambda _dir, _soc: {"totalUs": 12.5})
    row = BenchRow(op=case.op, case=case.name, dtype=case.dtype, shape=case.shape, soc=SOC, status="ok",
                   modeled_us=25.0)
    add_official([row], case)
    assert (row.official_us, row.official_source, row.speedup) == (12.5, opsnn.MARK, 0.5)
    # A case CANN's CPU-debug check stops keeps the hand-written model and names the check.
    rejected = _bench("resnet-50 gn 7x7", "float32")
    row = BenchRow(op=rejected.op, case=rejected.name, dtype=rejected.dtype, shape=rejected.shape, soc=SOC,
                   status="ok", modeled_us=25.0)
    add_official([row], rejected)
    assert row.official_source is not None and row.official_source.startswith(opsnn.MODELED_MARK)
    assert "should be times of 32 Bytes" in row.official_source and row.official_us is not None
    # Which core stops first varies between runs; the reason (a CSV cell) names none.
    assert re.search(r"\bcore \d+", row.official_source) is None, row.official_source


@needs_runner
def test_bench_compare_runs_opsnn_once_and_prices_each_constant_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case's rows under several what-if sets run ops-nn's kernel once per launch key (platform, L2) and
    price that launch under each row's constants: launch_us 5 -> 9 adds exactly 4 us to its time, and a
    smaller L2 (decided while the kernel runs) runs it again."""
    from normgrad import _native
    from normgrad.bench import BenchRow, add_official

    runs: list[tuple[str, int]] = []
    real_run_case = opsnn.run_case

    def counting(*args: object, **kwargs: object) -> opsnn.OpsNnRun:
        runs.append(opsnn.launch_key(SOC))
        return real_run_case(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(opsnn, "run_case", counting)
    case = _bench("lm 7x4096", "float32")
    specs = ["", "launch_us=9", "launch_us=9,sync_us=4"]
    rows = [BenchRow(op=case.op, case=case.name, dtype=case.dtype, shape=case.shape, soc=SOC, status="ok",
                     modeled_us=10.0, what_if=spec) for spec in specs]
    add_official(rows, case)
    assert len(runs) == 1
    assert all(r.official_source == opsnn.MARK for r in rows), [r.official_source for r in rows]
    base, slow_launch = rows[0].official_us, rows[1].official_us
    assert base is not None and slow_launch is not None
    with _native.what_if(""):
        launch_us = float(next(p for p in _native.socs() if p["name"] == SOC)["launchUs"])
    assert slow_launch - base == pytest.approx(9.0 - launch_us)
    assert rows[0].speedup == pytest.approx(base / 10.0)
    add_official([BenchRow(op=case.op, case=case.name, dtype=case.dtype, shape=case.shape, soc=SOC,
                           status="ok", modeled_us=10.0, what_if=w) for w in ("", "l2_mb=1")], case)
    assert len(runs) == 3 and runs[1] == runs[0] != runs[2]


@needs_runner
def test_opsnn_launch_is_priced_with_the_soc_it_ran_for() -> None:
    """The launch report prices with the SoC passed to run_case, not the process default (libnormgrad's
    report entry reads the calling thread's SoC)."""
    from normgrad import _native

    case = _bench("lm 7x4096", "float32")
    before = _native.get_soc()
    _native.set_soc("ascend910")
    try:
        run = opsnn.run_case(case, case.make_inputs(case_rng(case, 0)), SOC)
    finally:
        _native.set_soc(before)
    assert run.report is not None and run.report["soc"] == SOC


@needs_runner
def test_opsnn_layer_norm_transpose_path_traps_in_the_model() -> None:
    """LayerNormGradV3's transpose path (ops-nn's tiling picks it for rows of at most 64 elements that are not
    a multiple of 32 bytes; no bench shape is such) uses TransDataTo5HD, whose VA-register intrinsics the
    model does not implement: the run stops naming the intrinsic, never a silent wrong result."""
    from normgrad.cases.layer_norm_grad import _case

    case = _case((2048, 7), 1, "float32", "7 columns")
    with pytest.raises(opsnn.OpsNnError, match="set_va_reg_sb is linked but not modelled"):
        opsnn.run_case(case, case.make_inputs(case_rng(case, 0)), SOC)
