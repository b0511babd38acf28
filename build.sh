#!/usr/bin/env bash
# Builds normgrad and runs its tests.
#   ./build.sh                      simulator build (g++), C++ tests, examples and the Python tests
#   ./build.sh --sanitize           the same C++ tests under AddressSanitizer + UBSan, then the aclnn
#                                   fuzzer under them for NORMGRAD_FUZZ_SECONDS (default 120) s, seed 13
#   ./build.sh --installed          pip installs this checkout with every extra into build/venv and runs
#                                   the Python tests against that installed package
#   ./build.sh --cann-cpu           front end B (sim/cann_cpu/README.md): the kernels on CANN's own Ascend C
#                                   implementation in CPU-debug mode, cross-checked bit for bit with the simulator;
#                                   needs CANN's header bundle (../shared/tools/cann-check --root, or CANN_ROOT),
#                                   prints one "skipped" line and succeeds without it; with --full also every
#                                   `normgrad check --full` and bench case (outputs, modeled time, peak UB)
#   ./build.sh --npu --soc <soc>    the CANN custom operator package for a real NPU (needs ASCEND_HOME_PATH;
#        [--install | --install-path <dir>] also installs it; `normgrad npu build`, docs/npu.md)
# What it installs (README, "What ./build.sh installs"): Python packages only into build/venv, a virtual
# environment of its own that sees python3's packages and adds those missing or outside pyproject.toml's
# ranges (named before); GoogleTest, when missing, as Debian's libgtest-dev with apt-get, said before;
# NORMGRAD_NO_SYSTEM_INSTALL=1 refuses that and stops with the command to run instead.
set -euo pipefail
cd "$(dirname "$0")"

mode=sim
soc=ascend910b
npu_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --npu) mode=npu ;;
    --sanitize) mode=sanitize ;;
    --installed) mode=installed ;;
    --cann-cpu) mode=cann ;;
    --full) export NORMGRAD_CANN_FULL=1 ;;
    --soc) soc="$2"; shift ;;
    --install) npu_args+=(--install) ;;
    --install-path) npu_args+=(--install-path "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

jobs=$(nproc 2>/dev/null || echo 2)

if [ "$mode" = npu ]; then
  # One implementation, the command line's (`normgrad npu build`, python/normgrad/npu_package.py):
  # it also runs from an installed package; it needs only the standard library of python3.
  command -v python3 >/dev/null || { echo "build.sh --npu: python3 is missing (CANN's build needs it too)" >&2; exit 1; }
  PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m normgrad.npu_cli build --soc "$soc" \
    ${npu_args[@]+"${npu_args[@]}"}
fi

# GoogleTest for the C++ tests: Debian's package, the one change build.sh makes to the system, said
# before it is made and refused with NORMGRAD_NO_SYSTEM_INSTALL=1 (or 'n' at the prompt on a terminal).
have_gtest() { echo '#include <gtest/gtest.h>' | ${CXX:-c++} -x c++ -E - >/dev/null 2>&1; }
if [ "$mode" != installed ] && [ "$mode" != cann ] && ! have_gtest; then
  fix="install GoogleTest (Debian/Ubuntu: apt-get install libgtest-dev), then run ./build.sh again"
  if [ "${NORMGRAD_NO_SYSTEM_INSTALL:-0}" = 1 ]; then
    echo "build.sh: GoogleTest is missing and NORMGRAD_NO_SYSTEM_INSTALL=1 forbids installing it: $fix" >&2
    exit 1
  elif [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "build.sh: GoogleTest is missing: $fix" >&2
    exit 1
  fi
  echo "build.sh: GoogleTest is missing; installing the system package libgtest-dev with apt-get" \
       "(NORMGRAD_NO_SYSTEM_INSTALL=1 refuses this)" >&2
  if [ -t 0 ]; then
    read -r -p "build.sh: install libgtest-dev now? [Y/n] " answer
    case "$answer" in [nN]*) echo "build.sh: not installed: $fix" >&2; exit 1 ;; esac
  fi
  (apt-get install -y -qq libgtest-dev >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq libgtest-dev >/dev/null)
fi

# The tests' Python: build/venv, which sees the packages of the python3 that runs build.sh (its
# site-packages, also when python3 is itself a virtual environment) and receives only what they lack
# or what lies outside pyproject.toml's ranges: the user's torch is used when it fits, never replaced.
# CI pins versions with pip's PIP_CONSTRAINT (.ci/constraints.txt).
venv=build/venv
parent=$(python3 -c 'import sys; print(sys.executable)')
case "$parent" in "$PWD/$venv/"*) parent=$(cat "$venv/parent") ;; esac  # run with build/venv activated
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/parent" 2>/dev/null)" != "$parent" ]; then
  echo "build.sh: creating $venv, the tests' environment, over the packages of $parent" >&2
  rm -rf "$venv"
  python3 -m venv --system-site-packages --without-pip "$venv"
  python3 -c 'import site; print("".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages()))' \
    >"$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/normgrad_parent_site.pth"
  echo "$parent" >"$venv/parent"
fi
py=$PWD/$venv/bin/python
if ! "$py" -m pip --version >/dev/null 2>&1; then
  "$py" -m ensurepip --default-pip >/dev/null 2>&1 ||
    { echo "build.sh: $parent has no pip to install the test dependencies with; install pip for it" >&2; exit 1; }
fi
pip_install() {  # pip install "$@" into build/venv, first naming what it adds (nothing: no install)
  local adds="what is missing of: $*"  # pip older than 22.2 has no --report; a failing resolve shows below
  if "$py" -m pip install --dry-run -q --root-user-action=ignore --report "$venv/pip-report.json" "$@" \
       >/dev/null 2>&1; then
    adds=$("$py" -c 'import json, sys
print(", ".join("%s %s" % (i["metadata"]["name"], i["metadata"]["version"])
                for i in json.load(open(sys.argv[1]))["install"]))' "$venv/pip-report.json")
  fi
  if [ -n "$adds" ]; then
    echo "build.sh: pip installs into $venv (not the system): $adds" >&2
    "$py" -m pip install -q --root-user-action=ignore "$@"
  fi
}
# The package's dependencies and every extra's, as pyproject.toml states them.
mapfile -t requirements < <("$py" -c 'import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + [r for e in project["optional-dependencies"].values() for r in e]))')
missing_tools=()
for tool in cmake ninja; do command -v "$tool" >/dev/null || missing_tools+=("$tool"); done
pip_install "${requirements[@]}" ${missing_tools[@]+"${missing_tools[@]}"}
export PATH="$PWD/$venv/bin:$PATH"  # python3 is build/venv's from here on, and cmake/ninja if added there

if [ "$mode" = installed ]; then
  # The Python tests against the package as `pip install '.[every extra]'` installs it: no PYTHONPATH,
  # no NORMGRAD_LIBRARY (the library inside the package), sources found as an installed user has them.
  extras=$("$py" -c 'import tomllib
print(",".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]))')
  echo "build.sh: pip installs this checkout into $venv: pip install '.[$extras]'" >&2
  "$py" -m pip install -q --root-user-action=ignore ".[$extras]"
  unset PYTHONPATH NORMGRAD_LIBRARY
  installed=$("$py" -c 'import normgrad; print(normgrad.__file__)')
  case "$installed" in "$PWD/$venv/"*) ;; *) echo "build.sh: normgrad imports from $installed, not $venv" >&2; exit 1 ;; esac
  echo "build.sh: testing the installed package $installed" >&2
  exec "$py" -m pytest -q tests/python
fi

if [ "$mode" = cann ]; then
  # CANN's headers and CPU-debug framework sources: CANN_ROOT, else the bundle cann-check keeps (exit 2:
  # it cannot provide one here, which a fresh machine or a user's clone may well be).
  cann_check=${NORMGRAD_CANN_CHECK:-../shared/tools/cann-check}
  cann_root=${CANN_ROOT:-}
  if [ -z "$cann_root" ] && [ -x "$cann_check" ]; then
    cann_root=$("$cann_check" --root 2>/dev/null) || cann_root=""
  fi
  if [ -z "$cann_root" ] || [ ! -x "$cann_check" ]; then
    echo "build.sh --cann-cpu: skipped: no CANN header bundle here (needs $cann_check --root or CANN_ROOT)"
    exit 0
  fi
  # The runners only; front end A is the simulator build's library when there is one (./build.sh).
  targets=(normgrad_cann_run_ascend910b normgrad_cann_run_ascend910)
  # What `normgrad cpudebug cc` links, and the test runners whose kernels break api_check's rules.
  targets+=(normgrad_cpudebug_ascend910b normgrad_cpudebug_ascend910 normgrad_cann_run_apicheck_ascend910b
            normgrad_cann_run_apicheck_ascend910)
  lib=build/sim/libnormgrad.so
  [ -f "$lib" ] || { targets+=(normgrad); lib=build/cann/libnormgrad.so; }
  # ops-nn's own GroupNormGrad kernel beside ours (sim/cann_cpu/README.md): an ops-nn tree in NORMGRAD_OPSNN_ROOT,
  # else a git dir of it in NORMGRAD_OPSNN_GIT_DIR (default: the fetched snapshot ../.mirror/hicann+ops-nn/repo).
  opsnn_git=${NORMGRAD_OPSNN_GIT_DIR:-../.mirror/hicann+ops-nn/repo}
  [ -d "$opsnn_git" ] && opsnn_git=$(cd "$opsnn_git" && pwd) || opsnn_git=""
  configured=$(cmake -S . -B build/cann -G Ninja -DNORMGRAD_CANN_CPU=ON -DCANN_ROOT="$cann_root" \
    -DNORMGRAD_CANN_CHECK="$(cd "$(dirname "$cann_check")" && pwd)/$(basename "$cann_check")" \
    -DNORMGRAD_OPSNN_ROOT="${NORMGRAD_OPSNN_ROOT:-}" -DNORMGRAD_OPSNN_GIT_DIR="$opsnn_git" \
    -DNORMGRAD_ISA_TESTS=ON -DNORMGRAD_WERROR=ON -DCMAKE_BUILD_TYPE=Release)
  grep "ops-nn kernels" <<<"$configured" || true
  if grep -q "^build normgrad_opsnn_run_ascend910b:" build/cann/build.ninja; then
    targets+=(normgrad_opsnn_run_ascend910b)
  fi
  # The model's unit tests and the check that it defines every intrinsic the kernels link, then the kernels.
  cmake --build build/cann -j "$jobs" --target "${targets[@]}" isa_tests_a2 isa_tests_910 isa_kernels_a2 isa_kernels_910
  ctest --test-dir build/cann/sim/cann_cpu/isa_tests --output-on-failure -j "$jobs"
  NORMGRAD_LIBRARY="$PWD/$lib" NORMGRAD_CANN_RUNNER_DIR="$PWD/build/cann" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$py" -m pytest -q tests/cann_cpu
  exit 0
fi

build_dir=build/$mode
# -Werror: the build stays warning-free (a warning fails it here and in CI).
flags=(-DNORMGRAD_BUILD_TESTS=ON -DNORMGRAD_WERROR=ON -DCMAKE_BUILD_TYPE=Release)
if [ "$mode" = sanitize ]; then
  flags=(-DNORMGRAD_BUILD_TESTS=ON -DNORMGRAD_WERROR=ON -DNORMGRAD_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
# Say whether this is an incremental build or why everything compiles (a first build takes minutes).
if [ -f "$build_dir/libnormgrad.so" ]; then
  echo "build.sh: reusing $build_dir: only what changed since its last build is compiled" >&2
elif [ -f build/pip/libnormgrad.so ] && [ "$mode" = sim ]; then
  echo "build.sh: building $build_dir from scratch: the library 'pip install .' built (build/pip) has no C++" \
       "tests and is not built with -Werror, so its objects cannot be reused; a few minutes on 2 cores" >&2
else
  echo "build.sh: building $build_dir from scratch (first build of this mode; a few minutes on 2 cores)" >&2
fi
cmake -S . -B "$build_dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"
(cd "$build_dir" && ctest --output-on-failure -j "$jobs")

export NORMGRAD_LIBRARY="$PWD/$build_dir/libnormgrad.so" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

if [ "$mode" = sim ]; then
  python3 -m pytest -q tests
fi

if [ "$mode" = sanitize ]; then
  # The aclnn fuzzer (tests/fuzz/aclnn_fuzz.py) against the sanitized library: Python is not built
  # with ASan, so its runtime is preloaded, with libstdc++ (ASan must see the real __cxa_throw when
  # it starts); leaks are not checked (the interpreter keeps memory).
  seconds=${NORMGRAD_FUZZ_SECONDS:-120}
  echo "build.sh: aclnn fuzzer under ASan/UBSan for $seconds s, seed 13" >&2
  preload="$(${CXX:-c++} -print-file-name=libasan.so) $(${CXX:-c++} -print-file-name=libstdc++.so)"
  LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
    NORMGRAD_FUZZ_LAST="$build_dir/fuzz_last_input.txt" \
    python3 tests/fuzz/aclnn_fuzz.py --seconds "$seconds" --seed 13 ||
    { echo "build.sh: the fuzzer failed; the input it was running: $(cat "$build_dir/fuzz_last_input.txt")" >&2; exit 1; }
fi
