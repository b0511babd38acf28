#!/usr/bin/env bash
# The CANN build of normgrad (called by ../build.sh --npu): checks the CANN install, configures
# npu/ with its CMakePresets.json for one SoC, builds the custom operator package
# build/npu/custom_opp_<os>_<arch>.run and, when asked, installs it.
#   npu/build_package.sh --soc <soc> [--install | --install-path <dir>]
set -euo pipefail
cd "$(dirname "$0")/.."

soc=ascend910b
install=none
install_path=
while [ $# -gt 0 ]; do
  case "$1" in
    --soc) soc="${2:?--soc needs a value}"; shift ;;
    --install) install=default ;;
    --install-path) install=path; install_path="${2:?--install-path needs a directory}"; shift ;;
    *) echo "build.sh --npu: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

case "$soc" in
  ascend910b|ascend910_93|ascend910|ascend310p) ;;
  *) echo "build.sh --npu: SoC '$soc' is not served; expected ascend910b, ascend910_93, ascend910 or ascend310p" >&2; exit 2 ;;
esac

# Everything missing is named at once, before anything is configured.
missing=()
if [ -z "${ASCEND_HOME_PATH:-}" ]; then
  missing+=("ASCEND_HOME_PATH (source <CANN>/set_env.sh, e.g. /usr/local/Ascend/cann/set_env.sh)")
elif [ ! -d "$ASCEND_HOME_PATH" ]; then
  missing+=("the directory ASCEND_HOME_PATH=$ASCEND_HOME_PATH")
else
  for rel in compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake include/aclnn/aclnn_base.h \
             include/register/op_def_registry.h; do
    [ -e "$ASCEND_HOME_PATH/$rel" ] || missing+=("\$ASCEND_HOME_PATH/$rel")
  done
  arch=$(uname -m)
  if [ ! -e "$ASCEND_HOME_PATH/lib64/cmake/asc-config.cmake" ] &&
     [ ! -e "$ASCEND_HOME_PATH/$arch-linux/lib64/cmake/asc-config.cmake" ] &&
     [ ! -e "$ASCEND_HOME_PATH/$arch-linux/asc-config.cmake" ]; then
    missing+=("\$ASCEND_HOME_PATH/lib64/cmake/asc-config.cmake (CANN's find_package(ASC))")
  fi
fi
command -v cmake >/dev/null || missing+=("cmake (3.19 or newer)")
command -v python3 >/dev/null || missing+=("python3")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build.sh --npu: cannot build the CANN package for $soc; missing:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi

build_dir=build/npu
jobs=$(nproc 2>/dev/null || echo 2)
rm -rf "$build_dir"
cmake -S npu --preset=default -B "$build_dir" \
  -DASCEND_COMPUTE_UNIT="$soc" -DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH"
cmake --build "$build_dir" --target binary -j "$jobs"
cmake --build "$build_dir" --target package -j "$jobs"

run=$(ls "$build_dir"/custom_opp_*.run 2>/dev/null | head -n 1)
if [ -z "$run" ]; then
  echo "build.sh --npu: the build finished but $build_dir/custom_opp_*.run is missing" >&2
  exit 1
fi
echo "build.sh --npu: package $run (vendor normgrad, SoC $soc)"
case "$install" in
  default) "$run" ;;
  path) mkdir -p "$install_path" && "$run" --install-path="$(cd "$install_path" && pwd)"
        echo "build.sh --npu: now: source $(cd "$install_path" && pwd)/vendors/normgrad/bin/set_env.bash" ;;
  none) echo "build.sh --npu: install with: $run [--install-path=<dir>]" ;;
esac
