"""`normgrad npu build | env | test` without CANN or an NPU (docs/npu.md, "The normgrad npu commands"),
and the command line's quiet exit on a closed stdout.

The commands run as a user runs them, `python -m normgrad ...` in a subprocess: against the source tree
under ./build.sh (PYTHONPATH), against the installed package under ./build.sh --installed. The build's
driver is followed past its checks with a fake CANN tree and a fake `cmake` that logs its arguments and
makes the .run package (a script that logs its own); what CANN's build really does is never run here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _installed_copy import installed_copy

from normgrad import _native, npu_package

REPO = Path(__file__).resolve().parents[2]
SOURCE_FILES = ("npu/CMakeLists.txt", "op_host/a_def.cpp", "op_kernel/a.cpp")


def normgrad_cli(*args: str, env: dict[str, str] | None = None, cwd: Path = REPO,
                 **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "normgrad", *args], cwd=cwd, env=env if env is not None else
                          dict(os.environ), capture_output=True, text=True, timeout=120, **kwargs)


def without(*names: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(extra)
    return env


def fake_tools(folder: Path, log: Path) -> str:
    """A PATH whose cmake and make log their arguments to log; cmake's `package` build makes the .run."""
    folder.mkdir()
    (folder / "cmake").write_text(f"""#!/bin/sh
echo "cmake $*" >> '{log}'
[ -n "$FAIL_TARGET" ] && [ "$4" = "$FAIL_TARGET" ] && exit 3
if [ "$1" = --build ] && [ "$4" = package ]; then
  printf '#!/bin/sh\\necho "run $*" >> "{log}"\\n' > "$2/custom_opp_ubuntu_x86_64.run"
  chmod +x "$2/custom_opp_ubuntu_x86_64.run"
fi
[ "$1" = -S ] && mkdir -p "$5"
exit 0
""")
    (folder / "make").write_text(f"#!/bin/sh\necho \"make $*\" >> '{log}'\n")
    for tool in ("cmake", "make"):
        (folder / tool).chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


def fake_cann(root: Path) -> Path:
    """The CANN files the build checks for, empty."""
    for rel in (*npu_package.CANN_FILES, "lib64/cmake/asc-config.cmake"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).touch()
    return root


def fake_tree(root: Path, socs: tuple[str, ...]) -> Path:
    """A source tree whose one operator serves socs: the build only looks at its layout and served_socs.h."""
    for rel in SOURCE_FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).touch()
    listed = ", ".join(f'"{soc}"' for soc in socs)
    (root / "op_host" / "served_socs.h").write_text(f"constexpr const char* kASocs[] = {{{listed}}};\n")
    return root


def fake_installed_package(directory: Path) -> Path:
    vendor = directory / "vendors" / "normgrad"
    (vendor / "op_api" / "lib").mkdir(parents=True)
    (vendor / "op_api" / "lib" / "libcust_opapi.so").touch()
    return vendor


# ---- npu build ----------------------------------------------------------------------------------

def test_build_without_cann_fails_at_once_naming_ascend_home_path_first(tmp_path):
    log = tmp_path / "log"
    env = without("ASCEND_HOME_PATH", PATH=fake_tools(tmp_path / "bin", log))
    start = time.monotonic()
    done = normgrad_cli("npu", "build", "--soc", "ascend910b", env=env)
    seconds = time.monotonic() - start
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "normgrad npu build: cannot build the CANN package for ascend910b; missing:"
    assert lines[1].startswith("  - ASCEND_HOME_PATH") and "set_env.sh" in lines[1]
    assert not log.exists()  # "at once": no cmake, nothing configured
    assert seconds < 10, seconds  # the interpreter's start and imports; nothing else


def test_build_names_every_missing_cann_file_and_tool_at_once(tmp_path):
    empty = tmp_path / "cann"
    empty.mkdir()
    env = without(ASCEND_HOME_PATH=str(empty), PATH=str(tmp_path / "nothing"))  # no cmake, make, python3
    done = normgrad_cli("npu", "build", "--soc", "ascend910_93", "--install", env=env)
    assert done.returncode == 1
    for needed in ("compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake",
                   "include/aclnn/aclnn_base.h", "include/register/op_def_registry.h", "asc-config.cmake",
                   "cmake (3.19", "make (", "python3 ("):
        assert needed in done.stderr, needed
    # --install without --install-path: CANN's installer needs the CANN tree's ASCEND_OPP_PATH.
    install = ("npu", "build", "--soc", "ascend910", "--install")
    env = without("ASCEND_OPP_PATH", "ASCEND_CUSTOM_OPP_PATH", ASCEND_HOME_PATH=str(empty))
    assert "ASCEND_OPP_PATH" in normgrad_cli(*install, env=env).stderr
    env = without(ASCEND_HOME_PATH=str(empty), ASCEND_CUSTOM_OPP_PATH="/a:/b")  # the installer refuses a list
    assert "ASCEND_CUSTOM_OPP_PATH=/a:/b" in normgrad_cli(*install, env=env).stderr


def test_build_refuses_a_soc_no_operator_serves_naming_the_families():
    done = normgrad_cli("npu", "build", "--soc", "ascend310b")
    assert done.returncode == 2
    assert "--soc ascend310b is not served" in done.stderr
    for family in npu_package.served_socs(REPO):
        assert family in done.stderr


def test_the_families_are_those_the_operator_definitions_list(tmp_path):
    # The simulator's library is compiled from the same OpDefs: the build serves the union of theirs.
    compiled = {soc for definition in _native.op_defs() for soc in definition.get("socs", [])}
    assert set(npu_package.served_socs(REPO)) == compiled
    assert {"ascend910b", "ascend910_93", "ascend910"} <= compiled
    # A family some OpDef adds is buildable, with nothing else to change: --soc passes, CANN is missing.
    tree = fake_tree(tmp_path / "tree", ("ascend910b", "ascend950"))
    done = normgrad_cli("npu", "build", "--soc", "ascend950", "--source", str(tree),
                        env=without("ASCEND_HOME_PATH"))
    assert done.returncode == 1 and "ASCEND_HOME_PATH" in done.stderr


@pytest.mark.parametrize("install", ["--install-path", "--install", None])
def test_build_runs_cann_build_then_installs_where_asked(install, tmp_path):
    log = tmp_path / "log"
    tree = fake_tree(tmp_path / "tree", ("ascend910b", "ascend910_93"))
    stale = tree / "build" / "npu" / "stale.txt"
    stale.parent.mkdir(parents=True)
    stale.touch()
    cann = fake_cann(tmp_path / "cann")
    env = without("ASCEND_CUSTOM_OPP_PATH", ASCEND_HOME_PATH=str(cann), ASCEND_OPP_PATH=str(cann / "opp"),
                  PATH=fake_tools(tmp_path / "bin", log))
    args = {"--install-path": ["--install-path", "opp"], "--install": ["--install"], None: []}[install]
    done = normgrad_cli("npu", "build", "--soc", "ascend910_93", *args, "--source", str(tree), env=env,
                        cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    build_dir, jobs = tree / "build" / "npu", str(os.cpu_count() or 2)
    # CANN's installer: with --install-path=<absolute DIR> (it takes no relative path), or with no option.
    runs = {"--install-path": [f"run --install-path={tmp_path / 'opp'}"], "--install": ["run "], None: []}
    assert log.read_text().splitlines() == [
        f"cmake -S npu --preset=default -B {build_dir} -DASCEND_COMPUTE_UNIT=ascend910_93 "
        f"-DASCEND_CANN_PACKAGE_PATH={cann}",
        f"cmake --build {build_dir} --target binary -j {jobs}",
        f"cmake --build {build_dir} --target package -j {jobs}",
        *runs[install],
    ]
    assert not stale.exists()  # a fresh build directory: CANN's generated files follow the SoC
    assert f"package {build_dir}/custom_opp_ubuntu_x86_64.run" in done.stdout
    target = {"--install-path": tmp_path / "opp", "--install": cann / "opp", None: None}[install]
    if target is None:
        assert f"install with: {build_dir}/custom_opp_ubuntu_x86_64.run --install-path=DIR" in done.stdout
    else:
        assert f'installed into {target}/vendors/normgrad; set the environment with: eval "$(normgrad npu ' \
               f'env {target})"' in done.stdout


def test_build_that_fails_names_the_step(tmp_path):
    log = tmp_path / "log"
    tree = fake_tree(tmp_path / "tree", ("ascend910b",))
    env = without(ASCEND_HOME_PATH=str(fake_cann(tmp_path / "cann")), PATH=fake_tools(tmp_path / "bin", log),
                  ASCEND_OPP_PATH=str(tmp_path / "opp"), FAIL_TARGET="binary")
    done = normgrad_cli("npu", "build", "--soc", "ascend910b", "--install", "--source", str(tree), env=env)
    assert done.returncode == 1
    assert f"cmake --build {tree}/build/npu --target binary -j" in done.stderr
    assert "failed with exit status 3" in done.stderr
    assert "run" not in log.read_text()  # nothing installed


@pytest.mark.parametrize(("args", "says"), [
    (["npu"], "the following arguments are required"),
    (["npu", "build"], "the following arguments are required: --soc"),
    (["npu", "build", "--soc", "ascend910b", "--install", "--install-path", "x"], "not allowed with"),
    (["npu", "build", "--soc", "ascend910b", "--install-path"], "expected one argument"),
    (["npu", "env"], "the following arguments are required: DIR"),
    (["npu", "frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_npu_argument_errors_are_usage_errors(args, says):
    done = normgrad_cli(*args)
    assert done.returncode == 2
    assert says in done.stderr


@pytest.mark.parametrize("command", [[], ["build"], ["env"], ["test"]])
def test_npu_help(command):
    done = normgrad_cli("npu", *command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: normgrad npu{''.join(' ' + c for c in command)} ")
    words = {(): ("build", "env", "test"), ("build",): ("--soc", "--install-path", "--source"),
             ("env",): ("DIR", "ASCEND_CUSTOM_OPP_PATH"), ("test",): ("pytest", "PYTEST_ARG")}
    for word in words[tuple(command)]:
        assert word in done.stdout


def test_the_build_needs_only_the_standard_library():
    # ./build.sh --npu runs it with a python3 that may have no numpy (CANN's build needs none).
    code = ("import sys, normgrad.npu_cli; print(sorted(m for m in ('numpy', 'ml_dtypes', 'rich', "
            "'normgrad._native') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.strip() == "[]"


# ---- the source tree, found by an installed package ---------------------------------------------

def test_an_installed_package_finds_the_clone_it_runs_in_or_says_it_needs_one(tmp_path):
    installed = installed_copy("npu_package", tmp_path / "site-packages")  # as installed: no tree around it
    assert installed.find_source_tree(cwd=REPO / "op_kernel") == REPO  # a parent of the current directory
    assert installed.find_source_tree(REPO) == REPO  # --source
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(installed.NpuError, match="does not ship the sources the CANN build compiles") as err:
        installed.find_source_tree(cwd=elsewhere)
    assert "--source DIR" in str(err.value) and str(elsewhere) in str(err.value)
    with pytest.raises(installed.NpuError, match=f"--source {elsewhere} is not normgrad's source tree"):
        installed.find_source_tree(elsewhere)


# ---- npu env ------------------------------------------------------------------------------------

def _eval_in_bash(lines: str, env: dict[str, str]) -> list[str]:
    script = f'{lines}\nprintf "%s\\n" "${{ASCEND_CUSTOM_OPP_PATH-unset}}" "${{LD_LIBRARY_PATH-unset}}"'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True,
                          timeout=60).stdout.splitlines()


def test_env_prints_lines_that_put_the_package_first(tmp_path):
    opp = tmp_path / "my opp"  # a space: the lines quote the path
    vendor = fake_installed_package(opp)
    done = normgrad_cli("npu", "env", str(opp))
    assert done.returncode == 0, done.stderr
    lib = vendor / "op_api" / "lib"
    # Unset before: the value is the package alone (no empty entry: in LD_LIBRARY_PATH that means ".").
    before = without("ASCEND_CUSTOM_OPP_PATH", "LD_LIBRARY_PATH")
    assert _eval_in_bash(done.stdout, before) == [str(vendor), str(lib)]
    # Set before: the package first, the rest kept.
    before = without(ASCEND_CUSTOM_OPP_PATH="/other/vendors/x", LD_LIBRARY_PATH="/usr/l")
    after = _eval_in_bash(done.stdout, before)
    assert after == [f"{vendor}:/other/vendors/x", f"{lib}:/usr/l"]
    # What `normgrad npu test` and the device tests look for is what these lines set.
    found = npu_package.custom_opp_libraries({"ASCEND_CUSTOM_OPP_PATH": after[0]})
    assert found == [lib / "libcust_opapi.so"]
    # The vendor directory itself names the same package.
    assert normgrad_cli("npu", "env", str(vendor)).stdout == done.stdout


def test_env_of_a_directory_without_the_package_says_how_to_install_one(tmp_path):
    done = normgrad_cli("npu", "env", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"{tmp_path}/vendors/normgrad/op_api/lib/libcust_opapi.so" in done.stderr
    assert f"normgrad npu build --soc SOC --install-path {tmp_path}" in done.stderr


# ---- npu test -----------------------------------------------------------------------------------

def test_test_without_cann_fails_naming_what_is_missing():
    done = normgrad_cli("npu", "test", env=without("ASCEND_HOME_PATH", "ASCEND_CUSTOM_OPP_PATH"))
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "normgrad npu test: cannot run the device tests; missing:"
    assert lines[1].startswith("  - CANN (ASCEND_HOME_PATH is not set")
    assert "ASCEND_CUSTOM_OPP_PATH" in done.stderr and "normgrad npu env" in done.stderr
    if not npu_package.device_missing(os.environ)[1:]:
        pytest.skip("this machine has an NPU and torch_npu")
    assert "torch_npu" in done.stderr or "/dev/davinci" in done.stderr
    assert "test session starts" not in done.stdout  # pytest never ran


def test_test_runs_pytest_on_the_device_tests(tmp_path, monkeypatch, capfd):
    # With the prerequisites taken as met, it runs `pytest -m npu tests/npu` in the source tree; here
    # the device tests skip themselves (no NPU) and the build tests are deselected by the marker.
    monkeypatch.setattr(npu_package, "device_missing", lambda env: [])
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(fake_installed_package(tmp_path)))
    from normgrad import npu_cli

    status = npu_cli.main(["test", "--source", str(REPO), "--", "-p", "no:cacheprovider",
                           "-k", "deterministic"])
    out = capfd.readouterr().out
    assert status == 0, out
    assert "skipped" in out and "deselected" in out
    assert npu_package.device_test_command(REPO, ["-x"]) == [sys.executable, "-m", "pytest", "-m", "npu",
                                                             str(REPO / "tests" / "npu"), "-x"]


# ---- a closed stdout ----------------------------------------------------------------------------

CLOSED_STDOUT_COMMANDS = [
    ["info"], ["--help"], ["--version"], ["check", "--op", "batch_norm_elemt_grad", "--dtype", "float32"],
    ["bench", "--op", "batch_norm_elemt_grad", "--soc", "ascend910"], ["npu", "env", "OPP"],
    ["npu", "--help"],
]


@pytest.mark.parametrize("args", [pytest.param(a, id=" ".join(a)) for a in CLOSED_STDOUT_COMMANDS])
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_closed_stdout_ends_the_command_quietly(args, buffered, tmp_path):
    # `normgrad info | head -1`: the reader is gone before the output ends; no traceback, status 141 as
    # for a command ended by SIGPIPE. The pipe's read end is closed before the command starts. Buffered
    # (a pipe's default), the error comes at a flush; unbuffered (PYTHONUNBUFFERED), at the first print.
    if not buffered and args[-1] in ("--help", "--version"):
        pytest.skip("unbuffered, argparse itself ignores the failed write of its help and exits 0")
    fake_installed_package(tmp_path)
    args = [str(tmp_path) if a == "OPP" else a for a in args]
    env = without("PYTHONUNBUFFERED") if buffered else without(PYTHONUNBUFFERED="1")
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "normgrad", *args], stdout=write, stderr=subprocess.PIPE,
                              env=env, text=True, timeout=120)
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141
