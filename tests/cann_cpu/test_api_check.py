"""CANN's api_check on front end B, through the runner: a kernel call CANN's parameter checks reject (an Add
over twice its LocalTensor, still inside the Unified Buffer, so the instruction-level model alone would let it
pass) fails the launch like a rule of our own: the runner exits 1, its result names api_check's message and
the core, and no GM is written back. The test runner normgrad_cann_run_apicheck_<soc> (built with front end
B's tests, tests/cann_cpu/api_check/wrong_call_kernels.cpp) is driven through its launch directory, whose
format sim/cann_cpu/runner/launch_file.h defines."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from normgrad._native.library import library_path

SOCS = ("ascend910b", "ascend910")
RUNNER_DIR = Path(os.environ.get("NORMGRAD_CANN_RUNNER_DIR") or library_path().parent) / "test_runners"


def _runner(soc: str) -> Path:
    return RUNNER_DIR / f"normgrad_cann_run_apicheck_{soc}"


pytestmark = pytest.mark.skipif(not all(_runner(s).exists() for s in SOCS),
                                reason="front end B's test runners are not built (./build.sh --cann-cpu)")


def _launch(soc: str, kernel: str, x: np.ndarray, block_dim: int,
            tmp_path: Path) -> tuple[int, str, np.ndarray]:
    """Runs kernel(x) on block_dim cores; (exit status, result.txt, the region as the runner left it)."""
    tmp_path.mkdir(exist_ok=True)
    launch = f"kernel {kernel}\nblockdim {block_dim}\nregion 0 {x.nbytes}\narg 0 0\n"
    (tmp_path / "launch.txt").write_text(launch)
    x.tofile(tmp_path / "region0.bin")
    status = subprocess.run([str(_runner(soc)), str(tmp_path)], capture_output=True, timeout=300).returncode
    result = (tmp_path / "result.txt").read_text().strip()
    return status, result, np.fromfile(tmp_path / "region0.bin", np.float32)


@pytest.mark.parametrize("soc", SOCS)
def test_a_call_api_check_rejects_fails_the_launch_with_its_message(soc: str, tmp_path: Path) -> None:
    x = np.arange(256, dtype=np.float32)
    status, result, after = _launch(soc, "add_past_the_tensor", x, 1, tmp_path)
    assert status == 1
    assert result.startswith("error core 0: CANN's api_check: "), result
    assert ("Failed to check dstLocal size in Add, tensor size needs to be at least 2048 bytes, while "
            "current tensor size is only 1024 bytes") in result
    assert np.array_equal(after, x)  # a failed launch writes nothing back


@pytest.mark.parametrize("soc", SOCS)
def test_the_same_call_within_the_tensor_runs(soc: str, tmp_path: Path) -> None:
    x = np.arange(512, dtype=np.float32) - 100.5
    status, result, after = _launch(soc, "add_within_the_tensor", x, 2, tmp_path)
    assert (status, result) == (0, "ok")
    assert np.array_equal(after, x + x)  # exact: doubling a float


def test_a_zero_mask_is_rejected_on_the_training_series_only(tmp_path: Path) -> None:
    """The api_check rule front end A lacked (now sim/src/mask.cpp, tests/sim/test_mask.cpp): a normal-mode
    level-0 call whose mask selects no lane fails on ascend910 (dav-c100) and is a no-op on Atlas A2."""
    x = np.arange(256, dtype=np.float32)
    status, result, after = _launch("ascend910", "adds_with_zero_mask", x, 1, tmp_path / "910")
    assert status == 1 and result.startswith("error core 0: CANN's api_check: "), result
    assert "When maskArray size is 1, mask value 0 is invalid" in result
    status, result, after = _launch("ascend910b", "adds_with_zero_mask", x, 1, tmp_path / "a2")
    assert (status, result) == (0, "ok")
    assert np.array_equal(after, x)
