# ops-nn's own kernels on front end B (issue 20 item 7): Huawei's GroupNormGrad A2 kernel from an ops-nn source
# tree, compiled unchanged against CANN's headers in CPU-debug mode, with its own op_host tiling compiled
# unchanged against CANN's host headers, in the runner normgrad_opsnn_run_ascend910b. Nothing of ops-nn is in the
# repository: the tree is located at configure time, and without one this part is skipped with one line.
#
#   NORMGRAD_OPSNN_ROOT     an ops-nn source tree (its norm/ and common/ directories), e.g. a checkout of
#                           https://gitcode.com/cann/ops-nn (GitHub: hicann/ops-nn) at tag v9.0.0
#   NORMGRAD_OPSNN_GIT_DIR  or a git directory of ops-nn (a bare clone, a fetched snapshot): the build extracts
#                           tag NORMGRAD_OPSNN_TAG (v9.0.0) of norm/group_norm_grad and common/ into the build dir
# Both default to the environment variables of the same names.
set(NORMGRAD_OPSNN_ROOT "$ENV{NORMGRAD_OPSNN_ROOT}" CACHE PATH "ops-nn source tree for front end B's ops-nn runner")
set(NORMGRAD_OPSNN_GIT_DIR "$ENV{NORMGRAD_OPSNN_GIT_DIR}" CACHE PATH "ops-nn git directory (tag NORMGRAD_OPSNN_TAG)")
set(NORMGRAD_OPSNN_TAG "v9.0.0" CACHE STRING "ops-nn tag extracted from NORMGRAD_OPSNN_GIT_DIR")

set(_opsnn "${NORMGRAD_OPSNN_ROOT}")
if(NOT _opsnn AND NORMGRAD_OPSNN_GIT_DIR)
  set(_opsnn "${CMAKE_BINARY_DIR}/opsnn-${NORMGRAD_OPSNN_TAG}")
  if(NOT EXISTS "${_opsnn}/norm/group_norm_grad/op_kernel/group_norm_grad.cpp")
    find_package(Git QUIET)
    file(MAKE_DIRECTORY "${_opsnn}")
    execute_process(COMMAND ${GIT_EXECUTABLE} --git-dir=${NORMGRAD_OPSNN_GIT_DIR} archive --format=tar
                            ${NORMGRAD_OPSNN_TAG} norm/group_norm_grad common
                    COMMAND tar -x -C "${_opsnn}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(STATUS "ops-nn kernels: skipped: cannot extract ${NORMGRAD_OPSNN_TAG} from ${NORMGRAD_OPSNN_GIT_DIR}: ${_err}")
      return()
    endif()
  endif()
endif()
set(_gng "${_opsnn}/norm/group_norm_grad")
if(NOT _opsnn OR NOT EXISTS "${_gng}/op_kernel/group_norm_grad.cpp" OR NOT EXISTS "${_gng}/op_host/group_norm_grad_tiling.cpp")
  message(STATUS "ops-nn kernels: skipped: no ops-nn source tree (set NORMGRAD_OPSNN_ROOT or NORMGRAD_OPSNN_GIT_DIR)")
  return()
endif()
message(STATUS "ops-nn kernels: ${_opsnn}")
set(_here "${CMAKE_CURRENT_SOURCE_DIR}/opsnn")

# --- Host side: ops-nn's tiling, unchanged, against CANN's host headers (cann-check's host configuration plus
# the directories ops-nn's tiling code includes from: opbase's op_common, the devkit's tiling/, ops-nn's common/).
add_library(normgrad_opsnn_host_flags INTERFACE)
target_include_directories(normgrad_opsnn_host_flags SYSTEM INTERFACE
  ${_opsnn}/common/inc ${_opsnn}/common/inc/op_host
  ${_K}/include ${_K}/metadef/inc ${_K}/metadef/pkg_inc ${_K}/runtime/pkg_inc ${_K}/runtime/pkg_inc/base
  ${_K}/asc-devkit/include ${_K}/asc-devkit/include/tiling ${_K}/gen ${_K}/compat-host
  ${_K}/opbase/pkg_inc/op_common ${_K}/opbase/pkg_inc/op_common/op_host ${_K}/opbase/pkg_inc ${_K}/opbase/include
  ${CANN_CPU_STUBS})
target_compile_definitions(normgrad_opsnn_host_flags INTERFACE OP_TILING_LIB)
# ops-nn's sources: CANN's to warn about, not ours.
add_library(normgrad_opsnn_tiling_gng OBJECT ${_gng}/op_host/group_norm_grad_tiling.cpp
            ${_gng}/op_host/group_norm_grad_tiling_arch35.cpp ${_gng}/op_host/group_norm_grad_empty_tiling_arch35.cpp)
target_include_directories(normgrad_opsnn_tiling_gng PRIVATE ${_gng}/op_host)
target_link_libraries(normgrad_opsnn_tiling_gng PRIVATE normgrad_opsnn_host_flags)
target_compile_options(normgrad_opsnn_tiling_gng PRIVATE -w)
# Ours: the closed symbols that tiling links and the contexts it runs on.
add_library(normgrad_opsnn_host OBJECT ${_here}/host_tiling.cpp ${_here}/tiling_def.cpp)
target_link_libraries(normgrad_opsnn_host PRIVATE normgrad_opsnn_host_flags)

# --- Kernel side: the kernel .cpp unchanged, with the tiling structs CANN's op build would generate from the
# op_host header (gen_kernel_tiling.py) force-included, and sim/isa's intrinsic templates instantiated after it.
# CANN's CPU-debug configuration as for our kernels, but without __CCE_KT_TEST__: CANN's headers never read it
# (v9.0.0: one HCCL file of the 310 platform), ops-nn's kernels do, to leave out code in their CPU-debug unit
# tests -- GroupNormGrad drops its SyncAll after core 0 zeroes dgamma/dbeta, a race whenever the cores run
# concurrently (sim/cann_cpu/DIFFERENCES.md). Without it they run the code the device runs.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_gen "${CMAKE_CURRENT_BINARY_DIR}/opsnn")
add_custom_command(OUTPUT ${_gen}/group_norm_grad_kernel_tiling.h
  COMMAND ${Python3_EXECUTABLE} ${_here}/gen_kernel_tiling.py GroupNormGrad ${_gen}/group_norm_grad_kernel_tiling.h
          ${_gng}/op_host/group_norm_grad_tiling.h
  DEPENDS ${_here}/gen_kernel_tiling.py ${_gng}/op_host/group_norm_grad_tiling.h)
file(WRITE ${_gen}/group_norm_grad_kernel.cpp.in
     "#include \"${_gng}/op_kernel/group_norm_grad.cpp\"\n#include \"normgrad_isa/intrinsics.h\"\n")
configure_file(${_gen}/group_norm_grad_kernel.cpp.in ${_gen}/group_norm_grad_kernel.cpp COPYONLY)
add_library(normgrad_opsnn_kernels_ascend910b OBJECT ${_gen}/group_norm_grad_kernel.cpp
            ${_gen}/group_norm_grad_kernel_tiling.h)
target_include_directories(normgrad_opsnn_kernels_ascend910b PRIVATE ${_opsnn}/common/inc/op_kernel)
target_compile_options(normgrad_opsnn_kernels_ascend910b PRIVATE -w -U__CCE_KT_TEST__ "SHELL:-include ${CANN_CPU_STUBS}/op_tiling_macros.h"
                       "SHELL:-include ${_gen}/group_norm_grad_kernel_tiling.h")
target_link_libraries(normgrad_opsnn_kernels_ascend910b PRIVATE normgrad_isa_a2)

# --- The runner: our closed-symbol stand-ins (src/, without our kernels' InitTilingData), CANN's framework, the model.
set(_runner_sources ${_own_sources})
list(FILTER _runner_sources EXCLUDE REGEX "/tiling_data\\.cpp$")
add_executable(normgrad_opsnn_run_ascend910b ${_here}/runner.cpp ${_runner_sources}
               $<TARGET_OBJECTS:normgrad_opsnn_kernels_ascend910b> $<TARGET_OBJECTS:normgrad_opsnn_tiling_gng>
               $<TARGET_OBJECTS:normgrad_opsnn_host>)
target_include_directories(normgrad_opsnn_run_ascend910b PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR}/runner ${_here})
target_compile_definitions(normgrad_opsnn_run_ascend910b PRIVATE NORMGRAD_CANN_SOC="ascend910b")
target_link_libraries(normgrad_opsnn_run_ascend910b PRIVATE normgrad_cann_fwk_ascend910b normgrad_isa_a2
                      ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(normgrad_opsnn_run_ascend910b PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
