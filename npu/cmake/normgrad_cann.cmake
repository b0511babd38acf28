# Finds the CANN install and loads its operator-project CMake functions, after checking the files
# they need, so that a missing piece fails at configure time with its name rather than deep inside
# CANN's scripts. Sets the C++ standard of everything compiled on the host.

if(NOT DEFINED vendor_name OR "${vendor_name}" STREQUAL "")
  set(vendor_name normgrad CACHE STRING "CANN vendor name of the package" FORCE)
endif()
if(NOT "${vendor_name}" STREQUAL "normgrad")
  message(WARNING "vendor_name is '${vendor_name}'; the documentation and the tests assume 'normgrad'")
endif()

if((NOT DEFINED ASCEND_CANN_PACKAGE_PATH OR "${ASCEND_CANN_PACKAGE_PATH}" STREQUAL "") AND DEFINED ENV{ASCEND_HOME_PATH})
  set(ASCEND_CANN_PACKAGE_PATH "$ENV{ASCEND_HOME_PATH}" CACHE PATH "CANN install (ASCEND_HOME_PATH)" FORCE)
endif()
if("${ASCEND_CANN_PACKAGE_PATH}" STREQUAL "" OR NOT IS_DIRECTORY "${ASCEND_CANN_PACKAGE_PATH}")
  message(FATAL_ERROR "normgrad NPU build: no CANN install at '${ASCEND_CANN_PACKAGE_PATH}'; "
                      "source <CANN>/set_env.sh (it sets ASCEND_HOME_PATH)")
endif()
# CANN's asc-config.cmake reads ASCEND_HOME_PATH from the environment, not from the cache.
if(NOT DEFINED ENV{ASCEND_HOME_PATH})
  set(ENV{ASCEND_HOME_PATH} "${ASCEND_CANN_PACKAGE_PATH}")
endif()

set(_normgrad_cann_needs
  "compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake"
  "include/aclnn/aclnn_base.h"
  "include/register/op_def_registry.h")
foreach(_rel IN LISTS _normgrad_cann_needs)
  if(NOT EXISTS "${ASCEND_CANN_PACKAGE_PATH}/${_rel}")
    message(FATAL_ERROR "normgrad NPU build: ${ASCEND_CANN_PACKAGE_PATH}/${_rel} is missing; "
                        "install the CANN toolkit (with the Ascend C devkit) and source its set_env.sh")
  endif()
endforeach()

find_package(ASC REQUIRED
  HINTS "${ASCEND_CANN_PACKAGE_PATH}/lib64/cmake"
        "${ASCEND_CANN_PACKAGE_PATH}/${CMAKE_SYSTEM_PROCESSOR}-linux/lib64/cmake"
        "${ASCEND_CANN_PACKAGE_PATH}/${CMAKE_SYSTEM_PROCESSOR}-linux")

# C++17 for every host target. CANN's template compiles op_host with -std=c++11 (intf_pub's
# cxx_std_11 and opbuild's own compile line); our host code and CANN's own opdev/op_log.h need more.
if(NOT DEFINED NORMGRAD_HOST_CXX_STANDARD)
  set(NORMGRAD_HOST_CXX_STANDARD 17)
endif()
set(CMAKE_CXX_STANDARD ${NORMGRAD_HOST_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(NORMGRAD_HOST_STD_FLAG "-std=c++${NORMGRAD_HOST_CXX_STANDARD}")
