"""Builds libnormgrad with CMake and ships it inside the normgrad package."""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithCMake(build_py):
    """Runs the CMake build of the shared library before packaging the Python files."""

    def run(self) -> None:
        build_dir = ROOT / "build" / "pip"
        build_dir.mkdir(parents=True, exist_ok=True)
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.check_call(
            ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release", *generator]
        )
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "normgrad", "-j", jobs])
        super().run()
        target = Path(self.build_lib) / "normgrad" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "libnormgrad.so", target / "libnormgrad.so")


setup(cmdclass={"build_py": BuildWithCMake})
