"""`normgrad check/bench --frontend`: choosing front end A (sim) or B (cann), the error where front end B
is not built, and bench's rows on B while B's launches give no report. Needs no front end B build: where a
launch must reach B, a stand-in runner (a shell script in tmp_path) plays it and says it ran."""

from __future__ import annotations

import csv
import os
import stat
import sys
import types

import numpy as np
import pytest

from normgrad import _native, cases, cli
from normgrad.bench import UNMODELED_ON_B
from normgrad.cases.base import Case, Tolerance

RUNNER_ENV = "NORMGRAD_CANN_RUNNER_DIR"


def _copy_case(name: str) -> Case:
    """A case that only copies through device memory: it launches no kernel, so it runs without B."""
    def run(inputs):
        with _native.tensor(inputs["x"]) as t:
            return [t.numpy()]
    return Case(op="fake_op", name=name, dtype="float32", shape="3x4",
                make_inputs=lambda rng: {"x": rng.standard_normal((3, 4)).astype(np.float32)}, run=run,
                golden=lambda inputs: [inputs["x"].astype(np.float64)],
                tolerance=Tolerance(0.0, 0.0, "a copy changes no bit"), min_bytes=1_000_000)


# A launch report as front end A gives it (and as B will, once it reports launches).
LAUNCH = {"kernel": "fake", "blockDim": 8, "ok": True, "error": "", "totalUs": 10.0, "syncUs": 0.0,
          "bytesIn": 1_000_000, "bytesOut": 500_000, "loadBalance": 1.0}


@pytest.fixture
def fake_op(monkeypatch):
    module = types.ModuleType("normgrad.cases.fake_op")
    module.check_cases = lambda: [_copy_case("copy")]
    module.bench_cases = lambda: [_copy_case("copy")]
    monkeypatch.setitem(sys.modules, "normgrad.cases.fake_op", module)
    monkeypatch.setattr(cases, "OPERATOR_MODULES", ("fake_op",))
    monkeypatch.delenv("NORMGRAD_FRONTEND", raising=False)
    return module


@pytest.fixture
def built_b(monkeypatch):
    """Front end B counts as built for every family it serves (the runner's existence is all the CLI asks)."""
    real = _native.cann_readiness

    def ready(soc):
        status, text = real(soc)
        return (0, "/stand-in/runner") if status == 2 else (status, text)
    monkeypatch.setattr(_native, "cann_readiness", ready)


def _bench_rows(path):
    with open(path, newline="") as f:
        return {(r["case"], r["soc"]): r for r in csv.DictReader(f)}


@pytest.mark.parametrize("command", ["check", "bench"])
def test_front_end_b_not_built_is_one_clear_error_before_any_case(command, fake_op, monkeypatch, tmp_path,
                                                                   capsys):
    monkeypatch.setenv(RUNNER_ENV, str(tmp_path))
    assert cli.main([command, "--frontend", "cann", "--soc", "ascend910b"]) == 1
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert f"normgrad {command} --frontend cann: front end B is not built: no runner " in err
    assert str(tmp_path / "normgrad_cann_run_ascend910b") in err  # the runner, where it was looked for
    assert "NORMGRAD_CANN_RUNNER_DIR" in err and "./build.sh --cann-cpu" in err  # how to build it
    assert "fake_op" not in captured.out  # stopped before running any case
    assert os.environ.get("NORMGRAD_FRONTEND") is None


def test_not_built_error_without_the_variable_names_the_library_directory(fake_op, monkeypatch, capsys):
    monkeypatch.delenv(RUNNER_ENV, raising=False)
    status, text = _native.cann_readiness("ascend910")
    runner = _native.library_path().resolve().parent / "normgrad_cann_run_ascend910"
    if runner.exists():
        pytest.skip("front end B is built beside this library")
    assert status == 2
    assert str(runner) in text and "the directory of libnormgrad.so" in text


def test_a_chip_profile_uses_its_familys_runner(monkeypatch, tmp_path):
    monkeypatch.setenv(RUNNER_ENV, str(tmp_path))
    assert _native.cann_readiness("Ascend910B3") == _native.cann_readiness("ascend910b")
    assert str(tmp_path / "normgrad_cann_run_ascend910b") in _native.cann_readiness("Ascend910B3")[1]
    assert _native.cann_readiness("no-such-soc")[0] == 3


def test_frontend_cann_routes_every_launch_to_front_end_b(monkeypatch, tmp_path, capsys):
    """A stand-in runner proves that check --frontend cann sends the kernel launches to B's runner."""
    runner = tmp_path / "normgrad_cann_run_ascend910b"
    runner.write_text('#!/bin/sh\necho "[SUCCESS] a line of no interest"\necho "[ERROR]the check that failed"'
                      '\necho "error the stand-in runner got kernel $(head -c 40 "$1/launch.txt")" '
                      '> "$1/result.txt"\nexit 1\n')
    runner.chmod(runner.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(RUNNER_ENV, str(tmp_path))
    monkeypatch.delenv("NORMGRAD_FRONTEND", raising=False)
    argv = ["check", "--op", "layer_norm_grad", "--dtype", "float16", "--soc", "ascend910b"]
    assert cli.main([*argv, "--frontend", "cann"]) == 1
    out = capsys.readouterr().out
    assert "on front end B (CANN's Ascend C)" in out
    assert "kernel layer_norm_grad_v3 failed on front end B" in out
    assert "the stand-in runner got kernel" in out
    # The runner's own words for the failure (CANN's [ERROR] lines), not the rest of its output.
    assert "[ERROR]the check that failed" in out and "a line of no interest" not in out
    assert os.environ.get("NORMGRAD_FRONTEND") is None  # the choice ends with the command
    # --frontend sim wins over the environment; the same cases pass on front end A.
    monkeypatch.setenv("NORMGRAD_FRONTEND", "cann")
    assert cli.main([*argv, "--frontend", "sim"]) == 0
    assert "on the simulator's Ascend C API" in capsys.readouterr().out
    assert os.environ["NORMGRAD_FRONTEND"] == "cann"


def test_unknown_normgrad_frontend_is_a_usage_error(fake_op, monkeypatch, capsys):
    monkeypatch.setenv("NORMGRAD_FRONTEND", "cannn")
    assert cli.main(["check"]) == 2
    assert "NORMGRAD_FRONTEND is 'cannn': expected one of sim, cann" in capsys.readouterr().err


def test_bench_on_b_without_launch_reports_says_the_figures_are_unavailable(fake_op, built_b, monkeypatch,
                                                                           tmp_path, capsys):
    monkeypatch.setattr(_native, "last_run", lambda: [])  # what B's launches leave in the run log today
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--frontend", "cann", "--soc", "ascend910b", "--csv", str(path),
                     "--compare"]) == 0
    row = _bench_rows(path)[("copy", "ascend910b")]
    assert row["status"] == "ran" and row["note"] == UNMODELED_ON_B
    # No zeros, no front end A figures: every modeled column is empty.
    for column in ("modeled_us", "roofline_pct", "traffic_ratio", "load_balance", "sync_us", "speedup"):
        assert row[column] == "", column
    out = capsys.readouterr().out
    assert "on front end B (CANN's Ascend C)" in out
    assert f"ran fake_op/copy float32 on ascend910b: {UNMODELED_ON_B}" in out


def test_bench_on_b_shows_launch_reports_once_b_gives_them(fake_op, built_b, monkeypatch, tmp_path):
    """The plumbing for B's launch reports (another branch adds them to the run log): they are summarized
    exactly as front end A's."""
    monkeypatch.setattr(_native, "last_run", lambda: [dict(LAUNCH, soc="ascend910b")])
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--frontend", "cann", "--soc", "ascend910b", "--csv", str(path)]) == 0
    row = _bench_rows(path)[("copy", "ascend910b")]
    assert row["status"] == "ok" and float(row["modeled_us"]) == 10.0 and row["block_dim"] == "8"


def test_bench_on_b_skips_a_family_b_has_no_build_for(fake_op, built_b, monkeypatch, tmp_path):
    monkeypatch.setattr(_native, "last_run", lambda: [])
    real = _native.cann_readiness
    monkeypatch.setattr(_native, "cann_readiness",
                        lambda soc: (1, "front end B has no build for SoC ascend910") if soc == "ascend910"
                        else real(soc))
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--frontend", "cann", "--soc", "ascend910b", "--soc", "ascend910",
                     "--csv", str(path)]) == 0
    rows = _bench_rows(path)
    assert rows[("copy", "ascend910")]["status"] == "skipped"
    assert rows[("copy", "ascend910")]["note"] == "front end B has no build for SoC ascend910"
    assert rows[("copy", "ascend910b")]["status"] == "ran"

