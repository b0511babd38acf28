"""ReduceSum (high-dimension and count forms), PairReduceSum, the half -> float Axpy and Cast with
integer operands, run by one CPU-debug program (tests/cann_cpu/reduce_cast/reduce_cast.cpp) on both front
ends: on B through CANN's own implementation of each API (its instruction sequences, on the
instruction-level model), on A through the simulator's headers, which issue the instructions CANN's
implementation issues. The results must be equal byte for byte on both SoCs (issue 20: our kernels call
none of these APIs, so the kernel cross-check does not cover them)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from normgrad import cli
from normgrad._native.library import library_path

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(Path(__file__).resolve().parent / "reduce_cast" / "reduce_cast.cpp")
RUNNER_DIR = Path(os.environ.get("NORMGRAD_CANN_RUNNER_DIR") or library_path().parent)

pytestmark = pytest.mark.skipif(not (RUNNER_DIR / "normgrad_cpudebug_ascend910b.json").exists(),
                                reason="front end B is not built (./build.sh --cann-cpu)")

HEX_LINE = re.compile(r"^[0-9a-f]{64}$")


def _result(run: subprocess.CompletedProcess[str]) -> list[str]:
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = [line for line in run.stdout.splitlines() if HEX_LINE.match(line)]
    assert lines, run.stdout[-2000:]
    return lines


def _front_end_b(soc: str, tmp_path: Path) -> list[str]:
    exe = tmp_path / f"reduce_cast_b_{soc}"
    assert cli.main(["cpudebug", "cc", "--soc", soc, "-O0", PROGRAM, "-o", str(exe)]) == 0
    return _result(subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, cwd=tmp_path))


def _front_end_a(soc: str, tmp_path: Path) -> list[str]:
    exe = tmp_path / "reduce_cast_a"
    if not exe.exists():
        lib = library_path()
        cxx = shutil.which("c++") or "g++"
        includes = [f"-I{ROOT / 'sim/include'}", f"-I{ROOT / 'sim/isa/include'}"]
        subprocess.run([cxx, "-std=c++17", "-O1", *includes, PROGRAM, "-o", str(exe), str(lib),
                        f"-Wl,-rpath,{lib.parent}"], check=True, timeout=300)
    env = {**os.environ, "NORMGRAD_SOC": soc}
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    return _result(run)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910"])
def test_front_ends_agree_on_reduce_pair_axpy_and_integer_casts(soc: str, tmp_path: Path) -> None:
    b = _front_end_b(soc, tmp_path)
    a = _front_end_a(soc, tmp_path)
    assert len(a) == len(b)
    differing = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    first = differing[0] if differing else 0
    assert not differing, f"first differing 32-byte row {first}: A {a[first]} B {b[first]}"
