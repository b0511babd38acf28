"""`normgrad cpudebug cc` builds a CPU-debug program written as CANN's CPU-debug guide writes one
(examples/cpudebug: a kernel file and a main using GmAlloc / ICPU_RUN_KF / GmFree) and runs it on front end B:
the program computes its result on both SoCs; the same program with a call CANN's api_check rejects, or with a
WaitFlag that has no SetFlag (a rule of the instruction-level model), exits non-zero naming what broke."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from normgrad import cli
from normgrad._native.library import library_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = [str(ROOT / "examples/cpudebug/scale_add.cpp"), str(ROOT / "examples/cpudebug/scale_add_main.cpp")]
RUNNER_DIR = Path(os.environ.get("NORMGRAD_CANN_RUNNER_DIR") or library_path().parent)

pytestmark = pytest.mark.skipif(not (RUNNER_DIR / "normgrad_cpudebug_ascend910b.json").exists(),
                                reason="front end B is not built (./build.sh --cann-cpu)")


def _build_and_run(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    exe = tmp_path / "scale_add"
    # -O0: the program is small; compile time is all CANN's headers.
    assert cli.main(["cpudebug", "cc", *flags, "-O0", *EXAMPLE, "-o", str(exe)]) == 0
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910"])
def test_a_cpu_debug_program_runs_on_cann_api(soc: str, tmp_path: Path) -> None:
    run = _build_and_run(tmp_path, "--soc", soc)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "scale_add: 8192 of 8192 elements match" in run.stdout
    assert run.stdout.count("exit success!") == 8  # CANN's launcher: one process per core, 8 cores


def test_a_call_api_check_rejects_makes_the_program_fail(tmp_path: Path) -> None:
    run = _build_and_run(tmp_path, "-DSCALE_ADD_WRONG_COUNT")
    assert run.returncode == 1
    assert "error: ICPU_RUN_KF(scale_add) failed: core " in run.stderr
    assert ("CANN's api_check: [kernel_base_check.cpp:62]Failed to check dstLocal size in Add, tensor size "
            "needs to be at least 2048 bytes, while current tensor size is only 1024 bytes") in run.stderr
    assert "[ERROR]Failed to check dstLocal size in Add" in run.stdout  # CANN's own line, as it prints it


def test_a_wait_without_a_set_makes_the_program_fail(tmp_path: Path) -> None:
    run = _build_and_run(tmp_path, "-DSCALE_ADD_UNSET_WAIT")
    assert run.returncode == 1
    assert "error: ICPU_RUN_KF(scale_add) failed: core " in run.stderr
    assert "wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0) has no earlier set_flag on the same pipes" in run.stderr
