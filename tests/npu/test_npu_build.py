"""The CANN build's entry point without CANN: `./build.sh --npu` fails at once naming what is missing,
and npu/CMakePresets.json is a preset file that configures the vendor `normgrad` for a served SoC.

These run everywhere (no NPU, no CANN); the build itself is checked on an Atlas machine (docs/npu.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVED_SOCS = {"ascend910b", "ascend910_93", "ascend910", "ascend310p"}


def run_build(
    args: list[str], env_overrides: dict[str, str | None]
) -> tuple[subprocess.CompletedProcess[str], float]:
    env = dict(os.environ)
    for key, value in env_overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    start = time.monotonic()
    proc = subprocess.run(
        ["./build.sh", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    return proc, time.monotonic() - start


def test_npu_build_without_ascend_home_path_fails_at_once_naming_it() -> None:
    proc, seconds = run_build(["--npu", "--soc", "ascend910b"], {"ASCEND_HOME_PATH": None})
    assert proc.returncode == 1
    assert "ASCEND_HOME_PATH" in proc.stderr
    assert "set_env.sh" in proc.stderr
    # "at once": the check runs before CMake, so nothing is configured or compiled.
    assert seconds < 5.0
    assert "Configuring" not in proc.stdout


def test_npu_build_with_an_empty_cann_names_each_missing_file(tmp_path: Path) -> None:
    proc, _ = run_build(["--npu", "--soc", "ascend910_93"], {"ASCEND_HOME_PATH": str(tmp_path)})
    assert proc.returncode == 1
    for needed in (
        "compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake",
        "include/aclnn/aclnn_base.h",
        "include/register/op_def_registry.h",
        "asc-config.cmake",
    ):
        assert needed in proc.stderr, needed


def test_npu_build_rejects_a_soc_it_does_not_serve() -> None:
    proc, _ = run_build(["--npu", "--soc", "ascend310b"], {})
    assert proc.returncode == 2
    assert "ascend310b" in proc.stderr


def test_presets_name_vendor_normgrad_a_served_soc_and_cann_path() -> None:
    presets = json.loads((ROOT / "npu" / "CMakePresets.json").read_text())
    default = next(p for p in presets["configurePresets"] if p["name"] == "default")
    cache = {key: value["value"] for key, value in default["cacheVariables"].items()}
    assert cache["vendor_name"] == "normgrad"
    assert cache["ASCEND_COMPUTE_UNIT"] in SERVED_SOCS
    assert cache["ASCEND_CANN_PACKAGE_PATH"] == "$env{ASCEND_HOME_PATH}"
    assert cache["NORMGRAD_HOST_CXX_STANDARD"] == "17"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_reads_the_presets() -> None:
    proc = subprocess.run(
        ["cmake", "--list-presets"], cwd=ROOT / "npu", capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert '"default"' in proc.stdout


def test_every_kernel_file_the_package_names_exists() -> None:
    text = (ROOT / "npu" / "op_kernel" / "CMakeLists.txt").read_text()
    for kernel in ("group_norm_grad.cpp", "layer_norm_grad_v3.cpp", "batch_norm_elemt_grad.cpp"):
        assert kernel in text
        assert (ROOT / "op_kernel" / kernel).exists(), f"op_kernel/{kernel} is missing"
