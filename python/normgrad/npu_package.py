"""The CANN custom operator package of normgrad (vendor `normgrad`; docs/npu.md): what building it
needs, the build itself, the environment a shell needs to use an installed one, and what the device
tests need. `normgrad npu build | env | test` (npu_cli.py) and `./build.sh --npu` run this code.

Standard library only: `./build.sh --npu` runs it with a python3 that may lack numpy and the
package's other dependencies, as the CANN build itself needs none of them.

The package is compiled from the source tree (npu/ with op_host/ and op_kernel/), which the installed
Python package does not ship, as it ships no source of the NPU extension either (_npu_build.py): an
installed `normgrad npu build` finds a clone of normgrad (the current directory or a parent, or
--source) and says so when there is none.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

VENDOR = "normgrad"  # npu/CMakePresets.json's vendor_name: the directory <opp>/vendors/normgrad
SOURCE_DIRS = ("npu", "op_host", "op_kernel")  # what the CANN build compiles (npu/CMakeLists.txt)
BUILD_DIR = Path("build") / "npu"  # in the source tree, as the presets' binaryDir
DEVICE_TESTS = Path("tests") / "npu"  # the tests marked `npu` (pyproject.toml)
OPAPI_LIBRARY = Path("op_api") / "lib" / "libcust_opapi.so"  # the aclnn functions, in a vendor directory
# The CANN files the build uses first (npu/cmake/normgrad_cann.cmake checks the same at configure time),
# and where find_package(ASC) finds CANN's operator-project functions (the HINTS there).
CANN_FILES = ("compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake", "include/aclnn/aclnn_base.h",
              "include/register/op_def_registry.h")
ASC_CONFIGS = ("lib64/cmake/asc-config.cmake", "{arch}-linux/lib64/cmake/asc-config.cmake",
               "{arch}-linux/asc-config.cmake")
SET_ENV_HINT = "source <CANN>/set_env.sh, e.g. /usr/local/Ascend/cann/set_env.sh"


class NpuError(Exception):
    """Something the command needs is missing or failed (exit status 1)."""

    status = 1


class NpuUsageError(NpuError):
    """A bad argument (exit status 2)."""

    status = 2


def missing_list(what: str, missing: Sequence[str]) -> NpuError:
    """One error naming every missing piece, one per line."""
    return NpuError(f"{what}; missing:\n" + "\n".join(f"  - {m}" for m in missing))


# ---- the source tree ----------------------------------------------------------------------------

def is_source_tree(path: Path) -> bool:
    return (path / "npu" / "CMakeLists.txt").is_file() and all((path / d).is_dir() for d in SOURCE_DIRS)


def find_source_tree(explicit: Path | None = None, cwd: Path | None = None) -> Path:
    """normgrad's source tree: explicit (--source), else the one this normgrad is imported from
    (PYTHONPATH=<tree>/python), else the current directory or one of its parents."""
    package = Path(__file__).resolve().parent
    if explicit is not None:
        if is_source_tree(explicit):
            return explicit.resolve()
        raise NpuError(f"--source {explicit} is not normgrad's source tree (it needs "
                       f"{', '.join(d + '/' for d in SOURCE_DIRS)} and npu/CMakeLists.txt)")
    if package.parent.name == "python" and is_source_tree(package.parents[1]):
        return package.parents[1]
    here = (cwd or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if is_source_tree(candidate):
            return candidate
    raise NpuError(
        f"normgrad's source tree ({', '.join(d + '/' for d in SOURCE_DIRS)}): the installed package "
        f"({package}) does not ship the sources the CANN build compiles, and neither {here} nor a parent "
        f"is a clone of normgrad; run this inside a clone, or pass --source DIR")


def served_socs(tree: Path) -> tuple[str, ...]:
    """The SoC families the package can be built for: those some operator serves (op_host/served_socs.h,
    the lists the OpDefs register with AICore().AddConfig and the aclnn functions check)."""
    header = tree / "op_host" / "served_socs.h"
    text = header.read_text() if header.is_file() else ""
    found = dict.fromkeys(re.findall(r'"(ascend[A-Za-z0-9_]+)"', text))
    return tuple(found)


def check_soc(soc: str, tree: Path) -> None:
    known = served_socs(tree)
    if soc not in known:
        raise NpuUsageError(f"--soc {soc} is not served: the operators' SoC lists (op_host/served_socs.h) "
                            f"name the families {', '.join(known) or '(none)'}")


# ---- building the package -----------------------------------------------------------------------

def cann_missing(env: Mapping[str, str]) -> list[str]:
    """What the CANN build needs of the toolkit and is not there, ASCEND_HOME_PATH first."""
    home = env.get("ASCEND_HOME_PATH", "")
    if not home:
        return [f"ASCEND_HOME_PATH, the CANN toolkit ({SET_ENV_HINT})"]
    root = Path(home)
    if not root.is_dir():
        return [f"the directory ASCEND_HOME_PATH={home} ({SET_ENV_HINT})"]
    missing = [f"$ASCEND_HOME_PATH/{rel}" for rel in CANN_FILES if not (root / rel).exists()]
    arch = os.uname().machine
    if not any((root / c.format(arch=arch)).exists() for c in ASC_CONFIGS):
        missing.append(f"$ASCEND_HOME_PATH/{ASC_CONFIGS[0]} (CANN's find_package(ASC))")
    return missing


def default_install_dir(env: Mapping[str, str]) -> str:
    """Where CANN's installer puts a package run without --install-path (--install): into the directory
    ASCEND_CUSTOM_OPP_PATH names when it is set, else into the CANN tree, ASCEND_OPP_PATH."""
    return env.get("ASCEND_CUSTOM_OPP_PATH", "") or env.get("ASCEND_OPP_PATH", "")


def install_missing(env: Mapping[str, str]) -> list[str]:
    """What CANN's installer needs for --install: a directory to install into, and not a list."""
    target = default_install_dir(env)
    if ":" in target:
        return [f"a single directory in ASCEND_CUSTOM_OPP_PATH={target} (CANN's installer refuses a list "
                f"for --install; use --install-path DIR)"]
    if not target:
        return [f"ASCEND_OPP_PATH, the CANN tree --install installs into ({SET_ENV_HINT})"]
    return []


def tools_missing(env: Mapping[str, str]) -> list[str]:
    path = env.get("PATH", os.defpath)
    needed = {"cmake": "cmake (3.19 or newer)", "make": "make (the presets' generator)",
              "python3": "python3 (CANN's build scripts)"}
    return [what for tool, what in needed.items() if shutil.which(tool, path=path) is None]


def _run(cmd: Sequence[str], env: Mapping[str, str], cwd: Path) -> None:
    print(f"normgrad npu build: {shlex.join(cmd)}", file=sys.stderr, flush=True)
    done = subprocess.run(list(cmd), cwd=cwd, env=dict(env), check=False)
    if done.returncode != 0:
        raise NpuError(f"{shlex.join(cmd)} failed with exit status {done.returncode}")


def build(soc: str, install: bool, install_path: Path | None, source: Path | None,
          env: Mapping[str, str]) -> Path:
    """Builds <tree>/build/npu/custom_opp_<os>_<arch>.run for soc and, when asked, installs it; returns
    the .run. Every check runs first, and everything missing is named at once, before any work."""
    tree: Path | None = None
    no_tree = ""
    try:
        tree = find_source_tree(source)
    except NpuError as err:
        no_tree = str(err)
    if tree is not None:
        check_soc(soc, tree)
    missing = cann_missing(env) + (install_missing(env) if install else []) + tools_missing(env)
    if no_tree:
        missing.append(no_tree)
    if missing:
        raise missing_list(f"cannot build the CANN package for {soc}", missing)
    assert tree is not None

    build_dir = tree / BUILD_DIR
    shutil.rmtree(build_dir, ignore_errors=True)  # CANN's generated files do not follow a changed SoC
    jobs = str(os.cpu_count() or 2)
    _run(["cmake", "-S", "npu", "--preset=default", "-B", str(build_dir), f"-DASCEND_COMPUTE_UNIT={soc}",
          f"-DASCEND_CANN_PACKAGE_PATH={env['ASCEND_HOME_PATH']}"], env, tree)
    for target in ("binary", "package"):
        _run(["cmake", "--build", str(build_dir), "--target", target, "-j", jobs], env, tree)
    runs = sorted(build_dir.glob("custom_opp_*.run"))
    if not runs:
        raise NpuError(f"the build finished but {build_dir}/custom_opp_*.run is missing")
    package = runs[0]
    print(f"normgrad npu build: package {package} (vendor {VENDOR}, SoC {soc})")
    if install_path is None and not install:
        print(f"normgrad npu build: install with: {package} --install-path=DIR (DIR absolute)")
        return package
    if install_path is not None:
        target = str(install_path.expanduser().resolve())  # CANN's installer takes absolute paths only
        Path(target).mkdir(parents=True, exist_ok=True)
        _run([str(package), f"--install-path={target}"], env, tree)
    else:
        target = default_install_dir(env)
        _run([str(package)], env, tree)
    print(f'normgrad npu build: installed into {target}/vendors/{VENDOR}; set the environment with: '
          f'eval "$(normgrad npu env {shlex.quote(target)})"')
    return package


# ---- using an installed package -----------------------------------------------------------------

def vendor_dir(directory: Path) -> Path:
    """The installed package in directory: <directory>/vendors/normgrad (an --install-path directory,
    or $ASCEND_OPP_PATH after --install), or directory itself when it is that vendor directory."""
    for candidate in (directory / "vendors" / VENDOR, directory):
        if candidate.name == VENDOR and (candidate / OPAPI_LIBRARY).is_file():
            return candidate.resolve()
    raise NpuError(f"{directory} holds no installed normgrad package (no "
                   f"{directory / 'vendors' / VENDOR / OPAPI_LIBRARY}); install one with: normgrad npu "
                   f"build --soc SOC --install-path {directory}")


def _prepend(variable: str, path: Path) -> str:
    # No trailing ':' when the variable was empty: an empty entry in LD_LIBRARY_PATH is the current directory.
    return f'export {variable}={shlex.quote(str(path))}"${{{variable}:+:${variable}}}"'


def env_lines(vendor: Path) -> list[str]:
    """The shell lines that make a process use the package in vendor, as CANN's installer writes them to
    <vendor>/bin/set_env.bash: ASCEND_CUSTOM_OPP_PATH (torch_npu and the runtime look for the aclnn
    functions, kernels and tiling there first) and LD_LIBRARY_PATH (libcust_opapi.so for C++ programs)."""
    return [_prepend("ASCEND_CUSTOM_OPP_PATH", vendor),
            _prepend("LD_LIBRARY_PATH", vendor / OPAPI_LIBRARY.parent)]


# ---- the device tests ---------------------------------------------------------------------------

def custom_opp_libraries(env: Mapping[str, str]) -> list[Path]:
    """libcust_opapi.so of each normgrad vendor directory in ASCEND_CUSTOM_OPP_PATH, in its order."""
    roots = [Path(p) for p in env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":") if p]
    return [root / OPAPI_LIBRARY for root in roots if root.name == VENDOR]


def device_missing(env: Mapping[str, str]) -> list[str]:
    """What running on an Ascend NPU needs and this machine lacks (the device tests skip on the first)."""
    missing = []
    if not env.get("ASCEND_HOME_PATH"):
        missing.append(f"CANN (ASCEND_HOME_PATH is not set; {SET_ENV_HINT})")
    if not glob.glob("/dev/davinci[0-9]*"):
        missing.append("an Ascend NPU (no /dev/davinci<N>)")
    if importlib.util.find_spec("torch_npu") is None:
        missing.append("torch_npu (not importable; install the build that matches your CANN and torch)")
    return missing


def device_test_command(tree: Path, pytest_args: Sequence[str]) -> list[str]:
    """pytest -m npu on the device tests, with this Python (so with this normgrad package)."""
    return [sys.executable, "-m", "pytest", "-m", "npu", str(tree / DEVICE_TESTS), *pytest_args]


def run_device_tests(source: Path | None, pytest_args: Sequence[str], env: Mapping[str, str]) -> int:
    """Runs the device tests (`pytest -m npu tests/npu` in the source tree) with this Python; every
    prerequisite is checked first, so that a machine without them fails instead of skipping everything."""
    missing = device_missing(env)
    if not any(lib.is_file() for lib in custom_opp_libraries(env)):
        missing.append(f"the installed package in ASCEND_CUSTOM_OPP_PATH (no <dir>/vendors/{VENDOR}/"
                       f"{OPAPI_LIBRARY} in it): eval \"$(normgrad npu env DIR)\", DIR where it is installed")
    if importlib.util.find_spec("pytest") is None:
        missing.append("pytest (pip install 'normgrad[test]')")
    tree: Path | None = None
    try:
        tree = find_source_tree(source)
        if not (tree / DEVICE_TESTS).is_dir():
            missing.append(f"the device tests {tree / DEVICE_TESTS}")
    except NpuError as err:
        missing.append(str(err))
    if missing:
        raise missing_list("cannot run the device tests", missing)
    assert tree is not None
    done = subprocess.run(device_test_command(tree, pytest_args), cwd=tree, env=dict(env), check=False)
    return done.returncode
