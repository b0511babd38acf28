"""Builds libnormgrad with CMake and ships it inside the normgrad package with its public C/C++ headers
and CMake package config (`normgrad --include-dir`, `--cmake-dir`); where torch_npu is
importable (an Ascend host with CANN), also the NPU extension normgrad._npu_ops (csrc/npu_ops.cpp)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def stale_cache_reason(build_dir: Path, generator: str | None, make_program: str | None) -> str:
    """Why build_dir's CMake cache cannot be reused ('' when it can).

    pip builds in an isolated environment that it deletes afterwards, and CMake caches the path of
    that environment's ninja; the next `pip install .` failed on a ninja that no longer exists. The
    configure step now always passes this build's ninja (CMAKE_MAKE_PROGRAM), which replaces the
    cached one, so such a cache stays usable and the rebuild is incremental. A cache made for
    another generator cannot be reconfigured: that one is started afresh.
    """
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return ""
    entries = dict(re.findall(r"^(CMAKE_GENERATOR|CMAKE_MAKE_PROGRAM):[A-Z]+=(.*)$", cache.read_text(),
                              flags=re.MULTILINE))
    cached_generator = entries.get("CMAKE_GENERATOR", "")
    if generator is not None and cached_generator != generator:
        return f"it was made for the generator '{cached_generator}', this build uses '{generator}'"
    cached_make = entries.get("CMAKE_MAKE_PROGRAM", "")
    if cached_make and not Path(cached_make).exists() and not make_program:
        return f"its build tool {cached_make} no longer exists and this build has none to put in its place"
    return ""


class _Status:
    """Build progress for the person running pip, who sees no build output without `pip -v`.

    Lines go to the log pip keeps (stdout) and, when there is a terminal, onto it directly as one
    updating line, so that a first install does not look hung for the minutes CMake needs.
    """

    def __init__(self) -> None:
        self.tty: TextIO | None = None
        if not os.environ.get("CI"):
            try:
                self.tty = open("/dev/tty", "w")  # noqa: SIM115 - closed in close()
            except OSError:
                self.tty = None
        self._width = 0

    def say(self, text: str, *, transient: bool = False) -> None:
        print(text, flush=True)
        if self.tty is not None:
            line = text[:100]
            self.tty.write("\r" + line.ljust(self._width) + ("" if transient else "\n"))
            self.tty.flush()
            self._width = len(line) if transient else 0

    def close(self) -> None:
        if self.tty is not None:
            if self._width:
                self.tty.write("\n")
            self.tty.close()
            self.tty = None


def _run_build(cmd: list[str], status: _Status) -> None:
    """Runs a CMake step, passing each ninja progress line ("[12/38] Building ...") to status; its
    whole output goes to the log only when it fails."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    output = []
    for line in proc.stdout:
        output.append(line)
        step = re.match(r"\[(\d+)/(\d+)\] (?:Building CXX object .*?/)?(.*)", line.strip())
        if step:
            status.say(f"normgrad: [{step.group(1)}/{step.group(2)}] {step.group(3)}", transient=True)
    if proc.wait() != 0:
        sys.stdout.write("".join(output))
        raise subprocess.CalledProcessError(proc.returncode, cmd)


class BuildWithCMake(build_py):
    """Runs the CMake build of the shared library before packaging the Python files."""

    def run(self) -> None:
        build_dir = ROOT / "build" / "pip"
        build_dir.mkdir(parents=True, exist_ok=True)
        ninja = shutil.which("ninja")
        generator = "Ninja" if ninja else None
        status = _Status()
        try:
            reason = stale_cache_reason(build_dir, generator, ninja)  # '' also for a deleted env's ninja
            if reason:
                status.say(f"normgrad: starting {build_dir} afresh: {reason}")
                (build_dir / "CMakeCache.txt").unlink()
                shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)
            configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"]
            if ninja:
                configure += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
            jobs = str(os.cpu_count() or 2)
            status.say(f"normgrad: building libnormgrad.so with CMake in {build_dir} ({jobs} jobs; a first "
                       f"build takes a few minutes on 2 cores, a rebuild only what changed)")
            _run_build(configure, status)
            _run_build(["cmake", "--build", str(build_dir), "--target", "normgrad", "-j", jobs], status)
            # CMake's install step puts lib/libnormgrad.so, the public headers (include/) and the CMake
            # package config (share/cmake/normgrad) into the package (cmake/normgrad_install.cmake).
            package = Path(self.build_lib) / "normgrad"
            for owned in (package / "include", package / "share"):  # no header a former build installed
                shutil.rmtree(owned, ignore_errors=True)
            _run_build(["cmake", "--install", str(build_dir), "--prefix", str(package)], status)
            status.say("normgrad: libnormgrad.so built, with its headers and CMake package config")
        finally:
            status.close()
        super().run()


def _npu_build_module():
    """python/normgrad/_npu_build.py, loaded by path: the package itself is not importable yet."""
    path = ROOT / "python" / "normgrad" / "_npu_build.py"
    spec = importlib.util.spec_from_file_location("_npu_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def npu_extension() -> dict:
    """setup() arguments for the NPU extension, or none where torch_npu cannot be imported.

    Importing torch_npu needs CANN (libascendcl, libhccl, ...): a machine without it builds exactly
    what it built before. With pip, torch and torch_npu are only visible to this script under
    `pip install --no-build-isolation .` (docs/torch.md).
    """
    try:
        import torch
        import torch_npu  # noqa: F401
        from torch.utils.cpp_extension import BuildExtension
        from torch_npu.utils.cpp_extension import NpuExtension
    except Exception as err:  # ImportError, or OSError/RuntimeError from a CANN library missing
        if importlib.util.find_spec("torch_npu") is not None:
            print(f"normgrad: torch_npu is installed but cannot be imported ({err}); not building the NPU "
                  f"extension", flush=True)
        return {}
    build = _npu_build_module()
    cann = os.environ.get("ASCEND_HOME_PATH")
    if not cann or not (Path(cann) / "include" / "aclnn" / "aclnn_base.h").is_file():
        raise RuntimeError("normgrad: torch_npu imports but $ASCEND_HOME_PATH/include/aclnn/aclnn_base.h is "
                           "missing; source CANN's set_env.sh before building the NPU extension")
    flags = build.extension_flags(ROOT, Path(torch_npu.__file__).parent / "include", torch.__version__,
                                  torch._C._GLIBCXX_USE_CXX11_ABI, Path(cann) / "include")
    ext = NpuExtension(build.EXTENSION_NAME, [str(s) for s in build.SOURCES],
                       extra_compile_args=flags)
    return {"ext_modules": [ext], "cmdclass": {"build_ext": BuildExtension.with_options(use_ninja=False)}}


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import stale_cache_reason
    _npu = npu_extension()
    setup(ext_modules=_npu.get("ext_modules", []),
          cmdclass={"build_py": BuildWithCMake, **_npu.get("cmdclass", {})})
