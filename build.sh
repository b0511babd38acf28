#!/usr/bin/env bash
# Builds normgrad and runs its tests.
#   ./build.sh                      simulator build (g++), C++ tests, examples and the Python tests
#   ./build.sh --sanitize           the same C++ tests under AddressSanitizer + UBSan, then the aclnn
#                                   fuzzer under them for NORMGRAD_FUZZ_SECONDS (default 120) s, seed 13
#   ./build.sh --cann-cpu           front end B (sim/cann_cpu/README.md): the kernels on CANN's own Ascend C
#                                   implementation in CPU-debug mode, cross-checked bit for bit with the simulator;
#                                   needs CANN's header bundle (../shared/tools/cann-check --root, or CANN_ROOT),
#                                   prints one "skipped" line and succeeds without it
#   ./build.sh --npu --soc <soc>    the CANN custom operator package for a real NPU (needs ASCEND_HOME_PATH;
#        [--install | --install-path <dir>] also installs it; docs/npu.md)
set -euo pipefail
cd "$(dirname "$0")"

mode=sim
soc=ascend910b
npu_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --npu) mode=npu ;;
    --sanitize) mode=sanitize ;;
    --cann-cpu) mode=cann ;;
    --soc) soc="$2"; shift ;;
    --install) npu_args+=(--install) ;;
    --install-path) npu_args+=(--install-path "$2"); shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

jobs=$(nproc 2>/dev/null || echo 2)

if [ "$mode" = npu ]; then
  exec npu/build_package.sh --soc "$soc" ${npu_args[@]+"${npu_args[@]}"}
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
  lib=build/sim/libnormgrad.so
  [ -f "$lib" ] || { targets+=(normgrad); lib=build/cann/libnormgrad.so; }
  cmake -S . -B build/cann -G Ninja -DNORMGRAD_CANN_CPU=ON -DCANN_ROOT="$cann_root" \
    -DNORMGRAD_CANN_CHECK="$(cd "$(dirname "$cann_check")" && pwd)/$(basename "$cann_check")" \
    -DNORMGRAD_WERROR=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/cann -j "$jobs" --target "${targets[@]}"
  NORMGRAD_LIBRARY="$PWD/$lib" NORMGRAD_CANN_RUNNER_DIR="$PWD/build/cann" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" \
    python3 -m pytest -q tests/cann_cpu
  exit 0
fi

# GoogleTest for the C++ tests: Debian's package, installed when missing and we may.
if [ ! -f /usr/include/gtest/gtest.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: GoogleTest is missing; installing the system package libgtest-dev with apt-get" >&2
    (apt-get install -y -qq libgtest-dev >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq libgtest-dev >/dev/null)
  else
    echo "build.sh: GoogleTest is missing; install libgtest-dev" >&2
    exit 1
  fi
fi

# cmake and ninja: the system's, or PyPI's.
if ! command -v cmake >/dev/null || ! command -v ninja >/dev/null; then
  echo "build.sh: cmake or ninja is missing; installing both from PyPI with pip" >&2
  python3 -m pip install -q --root-user-action=ignore cmake ninja
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

# Test dependencies (a no-op when present; torch is pinned to the CPU build on the machine's disk).
echo "build.sh: pip installs what is missing of the Python test dependencies (tests/requirements.txt)" >&2
python3 -m pip install -q --root-user-action=ignore --disable-pip-version-check -r tests/requirements.txt
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
