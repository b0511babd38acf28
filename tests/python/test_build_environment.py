"""What ./build.sh and the test suite take from and do to the machine (issue 23, items 2 and 7).

- The extras take version ranges and only CI pins (the user's torch is never replaced).
- build.sh installs Python packages only into build/venv, naming them first, and reuses what the
  python3 that runs it already has; it says before it installs GoogleTest with apt-get and
  NORMGRAD_NO_SYSTEM_INSTALL=1 refuses that.
- The NPU extension's sources are found in the repository, also when the tests import an installed
  normgrad (which ships no csrc/).

The build.sh tests run a copy of build.sh in a temporary tree with a fake `cmake` that stops it
right after its environment step, fake `apt-get`/`id` where apt-get is concerned, and pip with no
index (PIP_NO_INDEX) and a local wheel: nothing is downloaded and nothing outside the tree changes.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from _installed_copy import installed_copy

REPO = Path(__file__).resolve().parents[2]
FAKE_DEP = "normgrad_fake_dep"


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_extras_take_ranges_and_only_ci_pins_torch():
    extras = _pyproject()["project"]["optional-dependencies"]
    pins = [r for reqs in extras.values() for r in reqs if "==" in r]
    assert pins == [], f"an extra pins an exact version, which replaces the user's: {pins}"
    assert any(r.startswith("torch>=") for r in extras["torch"]), extras["torch"]
    assert not (REPO / "tests" / "requirements.txt").exists()  # one list of dependencies: pyproject.toml
    ci = (REPO / ".ci" / "constraints.txt").read_text().split()
    assert "torch==2.13.0" in ci
    assert 'PIP_CONSTRAINT="$PWD/.ci/constraints.txt"' in (REPO / ".ci" / "run").read_text()


def test_npu_sources_are_found_in_the_repository_by_an_installed_copy_of_npu_build(tmp_path):
    # An installed normgrad/_npu_build.py sits in site-packages, where there is no csrc/: the paths it
    # gives must not depend on where it is. Load a copy from elsewhere, as an installed one would be.
    module = installed_copy("_npu_build", tmp_path / "site-packages")
    assert all((REPO / s).is_file() for s in module.SOURCES), module.SOURCES
    assert (REPO / module.CSRC / "aclnn_call_check.h").is_file()


# ---- build.sh in a temporary tree ---------------------------------------------------------------

def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def _wheel(folder: Path, name: str, version: str) -> None:
    """A minimal pure-Python wheel, for pip to install with no index."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    files[f"{dist}/RECORD"] = "".join(f"{n},,\n" for n in [*files, f"{dist}/RECORD"])
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as whl:
        for n, text in files.items():
            whl.writestr(n, text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of build.sh in an empty tree, and bin/ with a python3 that is this test's interpreter
    and a cmake that stops the build where the environment step ends."""
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(REPO / "build.sh", root / "build.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "python3", f'exec "{sys.executable}" "$@"')
    _script(bin_dir / "cmake", 'echo "fake cmake $*" >&2; exit 3')
    _script(bin_dir / "ninja", "exit 0")
    return root


def _run(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("PIP_CONSTRAINT", "NORMGRAD_NO_SYSTEM_INSTALL", "PYTHONPATH")}
    base["PATH"] = f"{root.parent / 'bin'}:{base['PATH']}"
    return subprocess.run(["./build.sh"], cwd=root, env={**base, **env}, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def test_build_sh_installs_only_into_its_venv_what_python3_lacks_and_says_so_first(tree):
    wheels = tree.parent / "wheels"
    wheels.mkdir()
    _wheel(wheels, FAKE_DEP, "1.0")
    have = [r for r in ("numpy>=1.24", "torch>=2.4") if importlib.util.find_spec(r.split(">")[0])]
    (tree / "pyproject.toml").write_text(
        f'[project]\nname = "x"\nversion = "0"\ndependencies = {have!r}\n'
        f'[project.optional-dependencies]\nextra = ["{FAKE_DEP}"]\n')
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "CXX": "true"}  # CXX: GoogleTest found

    first = _run(tree, **offline)
    assert first.returncode == 3 and "fake cmake" in first.stderr, first.stderr
    assert f"pip installs into build/venv (not the system): {FAKE_DEP} 1.0" in first.stderr, first.stderr
    venv_python = tree / "build" / "venv" / "bin" / "python"
    site = Path(subprocess.run([venv_python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    assert (site / FAKE_DEP / "__init__.py").is_file()
    assert importlib.util.find_spec(FAKE_DEP) is None  # not in the interpreter that ran build.sh
    # what python3 has (numpy, the user's torch) is used from where it is, not installed again
    for name in ("numpy", "torch"):
        assert not list(site.glob(f"{name}*")), f"build.sh installed {name} over python3's"
    for r in have:
        name = r.split(">")[0]
        found = subprocess.run([venv_python, "-c", f"import {name}; print({name}.__file__)"],
                               capture_output=True, text=True, check=True).stdout
        assert found.startswith(str(Path(importlib.util.find_spec(name).origin).parents[1])), found

    again = _run(tree, **offline)  # the same venv, nothing missing: nothing installed, nothing said
    assert again.returncode == 3 and "fake cmake" in again.stderr, again.stderr
    assert "pip installs" not in again.stderr and "creating build/venv" not in again.stderr, again.stderr


def _no_gtest(tree: Path) -> dict[str, str]:
    """No GoogleTest (a compiler that finds no header), root, and an apt-get that logs and fails."""
    bin_dir = tree.parent / "bin"
    _script(bin_dir / "id", "echo 0")
    log = tree.parent / "apt.log"
    _script(bin_dir / "apt-get", f'echo "apt-get $*" >>"{log}"; echo FAKE-APT-GET >&2; exit 1')
    return {"CXX": "false"}


def test_build_sh_refuses_to_install_googletest_when_told(tree):
    done = _run(tree, **_no_gtest(tree), NORMGRAD_NO_SYSTEM_INSTALL="1")
    assert done.returncode == 1, done.stderr
    assert "NORMGRAD_NO_SYSTEM_INSTALL=1 forbids installing it" in done.stderr, done.stderr
    assert "apt-get install libgtest-dev" in done.stderr  # the command to run instead
    assert not (tree.parent / "apt.log").exists()


def test_build_sh_says_it_installs_googletest_before_apt_get_runs(tree):
    done = _run(tree, **_no_gtest(tree))
    assert done.returncode != 0 and "FAKE-APT-GET" in done.stderr, done.stderr
    said = done.stderr.index("installing the system package libgtest-dev with apt-get")
    assert said < done.stderr.index("FAKE-APT-GET")
    assert "NORMGRAD_NO_SYSTEM_INSTALL=1 refuses this" in done.stderr[:done.stderr.index("FAKE-APT-GET")]
    assert "apt-get install -y -qq libgtest-dev" in (tree.parent / "apt.log").read_text()
