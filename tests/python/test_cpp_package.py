"""The C/C++ package `pip install .` ships (README "C++"): the public aclnn headers, libnormgrad.so and
a CMake package config, found with `normgrad --include-dir` / `--cmake-dir`.

Everything here uses the installed package, never the source tree's headers: the package is found as a
user finds it, by running `python -m normgrad --cmake-dir` outside the source tree without PYTHONPATH
(CI installs with `pip install .` before `./build.sh`). Where this interpreter has no normgrad installed
(`./build.sh` in a fresh clone), the same tree is made by CMake's install step (the one setup.py runs)
from the build that NORMGRAD_LIBRARY comes from, into a temporary prefix. Skipped only where cmake or a
compiler is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from normgrad.golden.group_norm_grad import group_norm_backward

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.cpp"))
TIMEOUT = 600

# What a C/C++ user includes (README, examples/): acl/acl.h and the operator headers, plus the
# simulator's own C API. The shipped include tree must be exactly these and what they include.
ENTRY_HEADERS = ("acl/acl.h", "aclnnop/aclnn_group_norm_backward.h", "aclnnop/aclnn_layer_norm_backward.h",
                 "aclnnop/aclnn_batch_norm_elemt_backward.h", "normgrad_sim.h")
# CANN's acl/*.h and aclnnop/aclnn_util.h compile as C (checked against CANN 9.0.0's headers); its
# aclnn/acl_meta.h and aclnn/aclnn_base.h include <cstdint> and declare a constexpr, so every aclnnop
# operator header is C++ only there, and is here too (docs: README "C++"). normgrad_sim.h is ours, C.
C_HEADERS = ("acl/acl.h", "acl/acl_base.h", "acl/acl_rt.h", "aclnnop/aclnn_util.h", "normgrad_sim.h")


def _tool(*names: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"none of {', '.join(names)} is on PATH: cannot build C/C++ against the installed package")


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, **kwargs)


def _check(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = _run(cmd, **kwargs)
    command = " ".join(map(str, cmd))
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@dataclass(frozen=True)
class Package:
    """An installed normgrad's C/C++ tree and how it was found (for failure messages)."""

    include_dir: Path
    cmake_dir: Path
    lib_dir: Path
    origin: str


def _installed_by_pip(tmp: Path) -> Package | None:
    """The interpreter's installed normgrad, asked for its directories as a user would; None when
    none is installed. Fails when one is installed without the C/C++ package (an older install)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    dirs = {}
    for flag in ("--cmake-dir", "--include-dir"):
        done = _run([sys.executable, "-m", "normgrad", flag], cwd=tmp, env=env)
        if done.returncode != 0 and "No module named normgrad" in done.stderr:
            return None
        assert done.returncode == 0, (f"the installed normgrad ({sys.executable} -m normgrad {flag}) has no "
                                      f"C/C++ package; reinstall it with `pip install .`:\n{done.stderr}")
        dirs[flag] = Path(done.stdout.strip())
    cmake_dir, include_dir = dirs["--cmake-dir"], dirs["--include-dir"]
    prefix = cmake_dir.parents[2]  # <package>/share/cmake/normgrad
    assert include_dir == prefix / "include", (cmake_dir, include_dir)
    return Package(include_dir, cmake_dir, prefix / "lib", f"installed normgrad at {prefix}")


def _installed_by_cmake(tmp: Path) -> Package:
    """CMake's install step (setup.py's) run on the build NORMGRAD_LIBRARY comes from."""
    library = os.environ.get("NORMGRAD_LIBRARY")
    if not library or not (Path(library).parent / "CMakeCache.txt").is_file():
        pytest.fail(f"{sys.executable} has no normgrad installed and NORMGRAD_LIBRARY ({library}) is not "
                    f"in a CMake build directory: `pip install .` first, or run the tests with ./build.sh")
    build_dir, prefix = Path(library).parent, tmp / "normgrad"
    _check([_tool("cmake"), "--install", str(build_dir), "--prefix", str(prefix)])
    return Package(prefix / "include", prefix / "share" / "cmake" / "normgrad", prefix / "lib",
                   f"`cmake --install {build_dir}` into {prefix} (no normgrad installed in {sys.executable})")


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Package:
    tmp = tmp_path_factory.mktemp("cpp_package")
    found = _installed_by_pip(tmp) or _installed_by_cmake(tmp)
    for path in (found.include_dir, found.cmake_dir / "normgradConfig.cmake",
                 found.lib_dir / "libnormgrad.so"):
        assert path.exists(), f"{path} missing from the {found.origin}"
    # An installed tree, not the sources' header folders (./build.sh --installed installs into build/venv,
    # which does lie under the checkout).
    for sources in (REPO / "sim", REPO / "op_host", REPO / "python"):
        assert sources not in found.include_dir.parents, f"{found.origin}: the include dir is in {sources}"
    return found


def _shipped_headers(package: Package) -> set[str]:
    root = package.include_dir
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_the_shipped_headers_are_the_public_api_and_each_compiles_alone(package: Package, tmp_path: Path):
    cxx = _tool("c++", "g++", "clang++")
    shipped = _shipped_headers(package)
    # Every shipped header compiles on its own with only the shipped tree on the include path.
    for header in sorted(shipped):
        source = tmp_path / "one.cpp"
        source.write_text(f'#include "{header}"\n#include "{header}"\n')  # twice: include guards hold
        _check([cxx, "-std=c++14", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-pedantic-errors",
                f"-I{package.include_dir}", str(source)])
    # ... and nothing is shipped that the user-facing headers do not include (no simulator internals).
    source = tmp_path / "all.cpp"
    source.write_text("".join(f'#include "{h}"\n' for h in ENTRY_HEADERS))
    deps = _check([cxx, "-M", f"-I{package.include_dir}", str(source)]).stdout.replace("\\\n", " ").split()
    root = package.include_dir.resolve()
    resolved = [Path(d).resolve() for d in deps]
    reached = {d.relative_to(root).as_posix() for d in resolved if d.is_relative_to(root)}
    assert reached == shipped, f"{package.origin}: shipped, not included {shipped - reached}"
    assert "aclnn/acl_objects.h" not in shipped


C_PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_util.h"
#include "normgrad_sim.h"

int main(void) {
  unsigned char host[64];
  void* dev = NULL;
  int bad = 0;
  if (aclInit(NULL) != ACL_SUCCESS ||
      aclrtMalloc(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    printf("setup failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  memset(host, 0, sizeof host);
  if (aclrtMemset(dev, sizeof host, 0x5a, sizeof host) != ACL_SUCCESS ||
      aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    printf("memset/memcpy failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  for (size_t i = 0; i < sizeof host; i++) bad += host[i] != 0x5a;
  printf("soc %s, float %zu bytes, %d bytes wrong\n", normgradSimGetSoc(), aclDataTypeSize(ACL_FLOAT), bad);
  aclrtFree(dev);
  aclFinalize();
  return bad != 0;
}
"""


def test_the_c_headers_compile_as_c_and_a_c_program_runs_on_the_library(package: Package, tmp_path: Path):
    cc = _tool("cc", "gcc", "clang")
    for header in C_HEADERS:
        source = tmp_path / "one.c"
        source.write_text(f'#include "{header}"\ntypedef int translation_unit_not_empty;\n')
        _check([cc, "-x", "c", "-std=c99", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-pedantic-errors",
                f"-I{package.include_dir}", str(source)])
    source, program = tmp_path / "use_acl.c", tmp_path / "use_acl"
    source.write_text(C_PROGRAM)
    _check([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{package.include_dir}", str(source), "-o",
            str(program), f"-L{package.lib_dir}", "-lnormgrad", f"-Wl,-rpath,{package.lib_dir}"])
    out = _check([str(program)]).stdout
    assert re.fullmatch(r"soc ascend\w+, float 4 bytes, 0 bytes wrong\n", out), out


USER_PROJECT = """cmake_minimum_required(VERSION 3.20)
project(normgrad_user LANGUAGES CXX)
find_package(normgrad {version} REQUIRED CONFIG)
message(STATUS "normgrad_VERSION=${{normgrad_VERSION}}")
get_target_property(location normgrad::normgrad LOCATION)
get_target_property(includes normgrad::normgrad INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "normgrad location=${{location}}")
message(STATUS "normgrad includes=${{includes}}")
foreach(src {sources})
  get_filename_component(name ${{src}} NAME_WE)
  add_executable(${{name}} ${{src}})
  target_link_libraries(${{name}} PRIVATE normgrad::normgrad)
endforeach()
"""


def _configure(tmp_path: Path, sources: list[Path], *cmake_args: str) -> tuple[Path, str]:
    import normgrad

    cmake = _tool("cmake")
    _tool("c++", "g++", "clang++")
    project, build = tmp_path / "project", tmp_path / "build"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(USER_PROJECT.format(
        version=normgrad.__version__, sources=" ".join(f'"{s}"' for s in sources)))
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    out = _check([cmake, "-S", str(project), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
                  "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *cmake_args]).stdout
    assert f"normgrad_VERSION={normgrad.__version__}" in out, out
    return build, out


def test_the_examples_build_against_the_installed_package_and_run(package: Package, tmp_path: Path):
    build, _ = _configure(tmp_path, EXAMPLES, f"-Dnormgrad_DIR={package.cmake_dir}")
    _check([shutil.which("cmake"), "--build", str(build), "-j", "2"])
    # Built against the installed package: its include dir, and no include path into the source tree ...
    for entry in json.loads((build / "compile_commands.json").read_text()):
        includes = [Path(i).resolve() for i in re.findall(r"(?:-I|-isystem )\s*(\S+)", entry["command"])]
        assert package.include_dir.resolve() in includes, entry["command"]
        into_sources = [i for i in includes
                        if i != package.include_dir.resolve() and (i == REPO or REPO in i.parents)]
        assert not into_sources, entry["command"]
    # ... and, when run, the installed libnormgrad.so is the one loaded.
    for example in EXAMPLES:
        program = build / example.stem
        loaded = _check([str(program)], env={**os.environ, "LD_TRACE_LOADED_OBJECTS": "1"}).stdout
        found = re.search(r"libnormgrad\.so => (\S+)", loaded)
        installed = (package.lib_dir / "libnormgrad.so").resolve()
        assert found and Path(found.group(1)).resolve() == installed, loaded
        _check([str(program)])  # each example checks its own results and exits 1 on a mismatch
    # The GroupNorm example's printed results against the float64 golden of its inputs (examples/
    # group_norm_grad_example.cpp: N 1, C 2, HxW 2, group 1, mean 0, rstd 1, "<name>[<i>] = <value>").
    out = _check([str(build / "group_norm_grad_example")]).stdout
    dx, dgamma, dbeta = group_norm_backward(np.array([1.0, 0, 0, 0]), np.array([-1.0, 1, -1, 1]), np.zeros(1),
                                            np.ones(1), np.array([2.0, 0.5]), 1, 2, 2, 1)
    # float32 through a handful of operations on values of size 1: within a few ulp (1.2e-7) of 1.
    for name, want in (("gradInput", dx), ("gradGammaOut", dgamma), ("gradBetaOut", dbeta)):
        got = [float(v) for v in re.findall(rf"^{name}\[\d+\] = (\S+)", out, flags=re.MULTILINE)]
        assert len(got) == len(want), out
        np.testing.assert_allclose(got, want, rtol=0, atol=5e-7, err_msg=name)


def test_the_package_config_is_relocatable(package: Package, tmp_path: Path):
    # A copy of the tree somewhere else, found through CMAKE_PREFIX_PATH: every path the config gives
    # is inside the copy.
    moved = tmp_path / "elsewhere" / "normgrad"
    prefix = package.cmake_dir.parents[2]
    for part in ("include", "lib", "share"):
        shutil.copytree(prefix / part, moved / part)
    _, out = _configure(tmp_path, EXAMPLES[:1], f"-DCMAKE_PREFIX_PATH={moved}")
    location = re.search(r"normgrad location=(.*)", out).group(1)
    includes = re.search(r"normgrad includes=(.*)", out).group(1)
    assert Path(location) == moved / "lib" / "libnormgrad.so", out
    assert [Path(i) for i in includes.split(";")] == [moved / "include"], out


@pytest.mark.parametrize("flag, attr", [("--include-dir", "INCLUDE_DIR"), ("--cmake-dir", "CMAKE_DIR")])
def test_the_dir_flags_print_the_directory_or_say_why_not(flag, attr, tmp_path, monkeypatch, capsys):
    from normgrad import cli, cpp_package

    monkeypatch.setattr(cpp_package, attr, tmp_path)
    with pytest.raises(SystemExit) as exited:
        cli.main([flag])  # no command needed, as with --version
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"{tmp_path}\n"

    monkeypatch.setattr(cpp_package, attr, tmp_path / "absent")  # a source tree, or an older install
    with pytest.raises(SystemExit) as exited:
        cli.main([flag])
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"normgrad {flag}: ") and str(tmp_path / "absent") in captured.err
    assert "pip install ." in captured.err
