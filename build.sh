#!/usr/bin/env bash
# Builds normgrad and runs its tests.
#   ./build.sh                      simulator build (g++), C++ tests, examples and the Python tests
#   ./build.sh --sanitize           the same C++ tests under AddressSanitizer + UBSan (no Python tests)
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
    --soc) soc="$2"; shift ;;
    --install) npu_args+=(--install) ;;
    --install-path) npu_args+=(--install-path "$2"); shift ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

jobs=$(nproc 2>/dev/null || echo 2)

if [ "$mode" = npu ]; then
  exec npu/build_package.sh --soc "$soc" ${npu_args[@]+"${npu_args[@]}"}
fi

# GoogleTest for the C++ tests: Debian's package, installed when missing and we may.
if [ ! -f /usr/include/gtest/gtest.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: installing libgtest-dev" >&2
    (apt-get install -y -qq libgtest-dev >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq libgtest-dev >/dev/null)
  else
    echo "build.sh: GoogleTest is missing; install libgtest-dev" >&2
    exit 1
  fi
fi

# cmake and ninja: the system's, or PyPI's.
if ! command -v cmake >/dev/null || ! command -v ninja >/dev/null; then
  python3 -m pip install -q --root-user-action=ignore cmake ninja
fi

build_dir=build/$mode
flags=(-DNORMGRAD_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release)
if [ "$mode" = sanitize ]; then
  flags=(-DNORMGRAD_BUILD_TESTS=ON -DNORMGRAD_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
cmake -S . -B "$build_dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"
(cd "$build_dir" && ctest --output-on-failure -j "$jobs")

if [ "$mode" = sim ]; then
  # Test dependencies (a no-op when present; torch is pinned to the CPU build on the machine's disk).
  python3 -m pip install -q --root-user-action=ignore --disable-pip-version-check -r tests/requirements.txt
  NORMGRAD_LIBRARY="$PWD/$build_dir/libnormgrad.so" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" \
    python3 -m pytest -q tests
fi
