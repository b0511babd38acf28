"""Front end B's hard-SyncAll deadlock check (sim/cann_cpu/src/cross_core_sync.cpp) on a CPU-debug
program (tests/cann_cpu/sync_all/slow_waker.cpp): a core that is not scheduled while its SyncAll is already
over is not a deadlock (ops-nn's LayerNormGradV3 failed that way about once in 8 runs:
sim/cann_cpu/DIFFERENCES.md, finding 5), and a core that skips a SyncAll still is one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from normgrad import cli
from normgrad._native.library import library_path

PROGRAM = str(Path(__file__).resolve().parent / "sync_all" / "slow_waker.cpp")
RUNNER_DIR = Path(os.environ.get("NORMGRAD_CANN_RUNNER_DIR") or library_path().parent)

pytestmark = pytest.mark.skipif(not (RUNNER_DIR / "normgrad_cpudebug_ascend910b.json").exists(),
                                reason="front end B is not built (./build.sh --cann-cpu)")

DEADLOCK = "wait_flag_dev(14): deadlock: 7 of 8 cores have set the flag for this wait"


def _run(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    exe = tmp_path / "slow_waker"
    assert cli.main(["cpudebug", "cc", "--soc", "ascend910b", *flags, "-O0", PROGRAM, "-o", str(exe)]) == 0
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_a_core_not_yet_out_of_a_finished_sync_all_is_no_deadlock(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "deadlock" not in run.stderr
    assert run.stdout.count("exit success!") == 8  # CANN's launcher: every core ended cleanly


def test_a_core_that_skips_a_sync_all_is_a_deadlock(tmp_path: Path) -> None:
    run = _run(tmp_path, "-DSLOW_WAKER_CORE_1_RETURNS")
    assert run.returncode == 1
    assert "error: ICPU_RUN_KF(slow_waker) failed: core " in run.stderr
    assert DEADLOCK in run.stderr
