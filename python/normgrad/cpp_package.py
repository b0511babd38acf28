"""Where the installed package keeps its C/C++ half, for `normgrad --include-dir` / `--cmake-dir`.

`pip install .` runs CMake's install step into the package (setup.py), which puts the public aclnn
headers under include/ and the CMake package config (`find_package(normgrad)`, target
normgrad::normgrad) under share/cmake/normgrad, beside lib/libnormgrad.so. The directory names are
cmake/normgrad_install.cmake's. A source tree (PYTHONPATH=python) has none of them.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PACKAGE_DIR / "include"
CMAKE_DIR = PACKAGE_DIR / "share" / "cmake" / "normgrad"


class CppPackageNotFoundError(FileNotFoundError):
    """This normgrad has no C/C++ package: a source tree, or an install older than the package."""


def _existing(path: Path, what: str) -> Path:
    if not path.is_dir():
        raise CppPackageNotFoundError(
            f"this normgrad ({PACKAGE_DIR}) has no {what} ({path} does not exist): only an installed "
            f"normgrad ships it; run `pip install .` in the normgrad source tree"
        )
    return path


def include_dir() -> Path:
    """The directory to put on the include path: acl/acl.h, aclnnop/aclnn_*_backward.h, normgrad_sim.h."""
    return _existing(INCLUDE_DIR, "C/C++ headers")


def cmake_dir() -> Path:
    """The directory holding normgradConfig.cmake: pass it as -Dnormgrad_DIR to find_package(normgrad)."""
    return _existing(CMAKE_DIR, "CMake package config")
