"""The NPU extension (python/normgrad/csrc/npu_ops.cpp) compiles against torch_npu's real headers.

No NPU and no CANN here, and torch_npu must never be installed (it breaks `import torch` without
CANN), so the test downloads the torch_npu wheel matching the installed torch
(`pip download --no-deps torch-npu==<torch version>`, ~44 MB, once per machine), unpacks only its
`torch_npu/include/` into a cache outside the repository, and runs `g++ -fsyntax-only` with
torch's C++ flags (C++20, its ABI) on:

- npu_ops.cpp: must compile without a warning of ours (-Wall -Wextra; the headers are -isystem);
- tests/python/npu_extension/wrong_aclnn_calls.cpp: three wrong aclnn calls that must fail with
  the compile-time argument check's errors, and nothing else;
- the same file calling torch_npu's EXEC_NPU_CMD alone: must compile, which is why the check exists.

Skipped, with the reason, when torch or g++ is missing or the wheel cannot be had (no network or
registry). NORMGRAD_TORCH_NPU_WHEEL=<path to the .whl> uses a wheel already downloaded. The cache
is ${XDG_CACHE_HOME:-~/.cache}/normgrad-torch-npu-headers/<version>/. Each compile takes ~20 s
on 2 cores; each is bounded by a 300 s timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
cpp_extension = pytest.importorskip("torch.utils.cpp_extension")

from normgrad import _npu_build  # noqa: E402

REPO = Path(__file__).resolve().parents[2]  # the sources: an installed normgrad ships no csrc/
WRONG_CALLS = REPO / "tests" / "python" / "npu_extension" / "wrong_aclnn_calls.cpp"
TORCH_VERSION = torch.__version__.split("+")[0]
COMPILE_TIMEOUT_S = 300
DOWNLOAD_TIMEOUT_S = 300


def _cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "normgrad-torch-npu-headers" / TORCH_VERSION


def _download_wheel(dest: Path) -> Path:
    """pip download of the torch_npu wheel for this torch, Python and platform (pip picks the tag)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", f"torch-npu=={TORCH_VERSION}", "-d", str(dest)]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.skip(f"pip download torch-npu=={TORCH_VERSION} took over {DOWNLOAD_TIMEOUT_S} s")
    wheels = sorted(dest.glob("torch_npu-*.whl"))
    if run.returncode != 0 or not wheels:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"the torch_npu {TORCH_VERSION} wheel cannot be had here (pip download: {last})")
    return wheels[0]


@pytest.fixture(scope="module")
def torch_npu_include() -> Path:
    """torch_npu/include of the wheel matching the installed torch, unpacked once into the cache."""
    include = _cache_dir() / "torch_npu" / "include"
    if (include / "third_party" / "op-plugin" / "op_plugin" / "utils" / "op_api_common.h").is_file():
        return include
    with tempfile.TemporaryDirectory() as tmp:
        wheel = Path(os.environ["NORMGRAD_TORCH_NPU_WHEEL"]) if os.environ.get("NORMGRAD_TORCH_NPU_WHEEL") \
            else _download_wheel(Path(tmp))
        staging = Path(tmp) / "unpacked"
        with zipfile.ZipFile(wheel) as whl:  # the headers only: never the libraries, never installed
            whl.extractall(staging, [n for n in whl.namelist() if n.startswith("torch_npu/include/")])
        cache = _cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        target = cache / "torch_npu"
        if not target.exists():  # another run may have filled the cache meanwhile
            shutil.move(str(staging / "torch_npu"), str(target))
    return include


@pytest.fixture(scope="module")
def gxx() -> str:
    found = shutil.which(os.environ.get("CXX", "g++"))
    if found is None:
        pytest.skip("no C++ compiler (g++ or $CXX)")
    return found


def _aclnn_base_dir() -> Path:
    """CANN's headers when there is a CANN install, else the simulator's copies of the same."""
    cann = os.environ.get("ASCEND_HOME_PATH")
    if cann and (Path(cann) / "include" / "aclnn" / "aclnn_base.h").is_file():
        return Path(cann) / "include"
    return REPO / "sim" / "include"


def _syntax_check(gxx: str, include: Path, source: Path, *defines: str) -> subprocess.CompletedProcess[str]:
    # torch's own extension flags (C++20, its C++ ABI) and include dirs, as -isystem so that -Wall
    # speaks of our code only; torch_npu's wheel include dirs as NpuExtension adds them.
    system = [*cpp_extension.include_paths(), sysconfig.get_paths()["include"], str(include),
              str(include / "third_party" / "hccl" / "inc")]
    flags = _npu_build.extension_flags(REPO, include, TORCH_VERSION, torch._C._GLIBCXX_USE_CXX11_ABI,
                                       _aclnn_base_dir())
    # the op-plugin and acl dirs go in as -isystem too: they are torch_npu's headers, not ours
    flags = [f"-isystem{f[2:]}" if f.startswith("-I") and str(include) in f else f for f in flags]
    cmd = [gxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", *flags, *(f"-isystem{d}" for d in system),
           *defines, str(source)]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, cwd=REPO)
    except subprocess.TimeoutExpired:
        pytest.fail(f"g++ -fsyntax-only {source.name} took over {COMPILE_TIMEOUT_S} s")


def test_current_version_comes_from_op_plugin(torch_npu_include: Path) -> None:
    # op-plugin numbers torch 2.1 as 0; the macro is read from its Version.h, not assumed.
    major, minor = (int(p) for p in TORCH_VERSION.split(".")[:2])
    assert major == 2
    assert _npu_build.current_version(torch_npu_include, TORCH_VERSION) == minor - 1
    with pytest.raises(ValueError, match=r"has no V2R99"):
        _npu_build.current_version(torch_npu_include, "2.99.0")


def test_extension_compiles_against_torch_npu_headers(torch_npu_include: Path, gxx: str) -> None:
    run = _syntax_check(gxx, torch_npu_include, REPO / _npu_build.SOURCES[0])
    assert run.returncode == 0, run.stderr[-4000:]
    assert "warning" not in run.stderr, run.stderr[-4000:]


def test_plain_exec_npu_cmd_accepts_the_wrong_calls(torch_npu_include: Path, gxx: str) -> None:
    # Why the check exists: torch_npu's macro deduces the function type from the arguments.
    run = _syntax_check(gxx, torch_npu_include, WRONG_CALLS, "-DPLAIN_EXEC_NPU_CMD")
    assert run.returncode == 0, run.stderr[-4000:]


def test_wrong_aclnn_calls_fail_the_argument_check(torch_npu_include: Path, gxx: str) -> None:
    run = _syntax_check(gxx, torch_npu_include, WRONG_CALLS)
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if ": error: " in line]
    # every error is one of the check's static assertions; the per-argument one names the
    # position and both types in the instantiation, the count one says so
    assert errors and all("static assertion failed: NORMGRAD_EXEC_NPU_CMD" in e for e in errors), errors
    instantiations = set(re.findall(r"ArgumentCheck<\d+, [^>]*>", run.stderr))
    assert instantiations == {"ArgumentCheck<8, int, long int>",  # group as int
                              "ArgumentCheck<2, aclTensor*, const aclIntArray*>"}, instantiations  # shape
    assert sum("the number of arguments (plus workspaceSize and executor) differs" in e for e in errors) == 1
    assert sum("NORMGRAD_EXEC_NPU_CMD(aclnnBatchNormElemtBackward, ...)" in e for e in errors) == 1
    assert len(errors) == 4, errors  # group, shape, and the counter's two (count, then the call)
