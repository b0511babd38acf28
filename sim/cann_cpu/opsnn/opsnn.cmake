# ops-nn's own kernels on front end B (issue 20 item 7): Huawei's GroupNormGrad and LayerNormGradV3 A2 kernels
# from an ops-nn source tree, compiled unchanged against CANN's headers in CPU-debug mode, with their own op_host
# tiling compiled unchanged against CANN's host headers, in the runner normgrad_opsnn_run_ascend910b. Nothing of ops-nn is in the
# repository: the tree is located at configure time, and without one this part is skipped with one line.
#
#   NORMGRAD_OPSNN_ROOT     an ops-nn source tree (its norm/ and common/ directories), e.g. a checkout of
#                           https://gitcode.com/cann/ops-nn (GitHub: hicann/ops-nn) at tag v9.0.0
#   NORMGRAD_OPSNN_GIT_DIR  or a git directory of ops-nn (a bare clone, a fetched snapshot): the build extracts
#                           tag NORMGRAD_OPSNN_TAG (v9.0.0) of the operators' norm/ directories and common/ into
#                           the build dir
# Both default to the environment variables of the same names.
set(NORMGRAD_OPSNN_ROOT "$ENV{NORMGRAD_OPSNN_ROOT}" CACHE PATH "ops-nn source tree for front end B's ops-nn runner")
set(NORMGRAD_OPSNN_GIT_DIR "$ENV{NORMGRAD_OPSNN_GIT_DIR}" CACHE PATH "ops-nn git directory (tag NORMGRAD_OPSNN_TAG)")
set(NORMGRAD_OPSNN_TAG "v9.0.0" CACHE STRING "ops-nn tag extracted from NORMGRAD_OPSNN_GIT_DIR")

set(_opsnn "${NORMGRAD_OPSNN_ROOT}")
if(NOT _opsnn AND NORMGRAD_OPSNN_GIT_DIR)
  set(_opsnn "${CMAKE_BINARY_DIR}/opsnn-${NORMGRAD_OPSNN_TAG}")
  if(NOT EXISTS "${_opsnn}/norm/layer_norm_grad_v3/op_kernel/layer_norm_grad_v3.cpp")
    find_package(Git QUIET)
    file(MAKE_DIRECTORY "${_opsnn}")
    execute_process(COMMAND ${GIT_EXECUTABLE} --git-dir=${NORMGRAD_OPSNN_GIT_DIR} archive --format=tar
                            ${NORMGRAD_OPSNN_TAG} norm/group_norm_grad norm/layer_norm_grad_v3 common
                    COMMAND tar -x -C "${_opsnn}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(STATUS "ops-nn kernels: skipped: cannot extract ${NORMGRAD_OPSNN_TAG} from ${NORMGRAD_OPSNN_GIT_DIR}: ${_err}")
      return()
    endif()
  endif()
endif()
# <ops-nn operator directory>:<OpType>: each one's op_kernel/<dir>.cpp, op_host/<dir>_tiling.h, op_host/*tiling*.cpp.
set(NORMGRAD_OPSNN_OPS group_norm_grad:GroupNormGrad layer_norm_grad_v3:LayerNormGradV3)
if(NOT _opsnn OR NOT EXISTS "${_opsnn}/norm/group_norm_grad/op_kernel/group_norm_grad.cpp")
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
# Ours: the closed symbols that tiling links and the contexts it runs on.
add_library(normgrad_opsnn_host OBJECT ${_here}/host_tiling.cpp ${_here}/tiling_def.cpp)
target_link_libraries(normgrad_opsnn_host PRIVATE normgrad_opsnn_host_flags)

# --- Kernel side: each kernel .cpp unchanged, with the tiling structs CANN's op build would generate from the
# op_host header (gen_kernel_tiling.py) force-included, and sim/isa's intrinsic templates instantiated after it.
# CANN's CPU-debug configuration as for our kernels, but without __CCE_KT_TEST__: CANN's headers never read it
# (v9.0.0: one HCCL file of the 310 platform), ops-nn's kernels do, to leave out code in their CPU-debug unit
# tests -- GroupNormGrad drops its SyncAll after core 0 zeroes dgamma/dbeta, a race whenever the cores run
# concurrently (sim/cann_cpu/DIFFERENCES.md). Without it they run the code the device runs.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_gen "${CMAKE_CURRENT_BINARY_DIR}/opsnn")
set(_opsnn_objects "")
foreach(pair ${NORMGRAD_OPSNN_OPS})
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 op)
  list(GET pair 1 op_type)
  set(_dir "${_opsnn}/norm/${op}")
  # ops-nn's host tiling sources of the operator (the arch35 ones too: one registration serves all SoCs).
  file(GLOB _tiling_sources ${_dir}/op_host/*tiling*.cpp)
  add_library(normgrad_opsnn_tiling_${op} OBJECT ${_tiling_sources})
  target_include_directories(normgrad_opsnn_tiling_${op} PRIVATE ${_dir}/op_host)
  target_link_libraries(normgrad_opsnn_tiling_${op} PRIVATE normgrad_opsnn_host_flags)
  target_compile_options(normgrad_opsnn_tiling_${op} PRIVATE -w)  # ops-nn's code: theirs to warn about

  add_custom_command(OUTPUT ${_gen}/${op}_kernel_tiling.h
    COMMAND ${Python3_EXECUTABLE} ${_here}/gen_kernel_tiling.py ${op_type} ${_gen}/${op}_kernel_tiling.h
            ${_dir}/op_host/${op}_tiling.h
    DEPENDS ${_here}/gen_kernel_tiling.py ${_dir}/op_host/${op}_tiling.h)
  file(WRITE ${_gen}/${op}_kernel.cpp.in
       "#include \"${_dir}/op_kernel/${op}.cpp\"\n#include \"normgrad_isa/intrinsics.h\"\n")
  configure_file(${_gen}/${op}_kernel.cpp.in ${_gen}/${op}_kernel.cpp COPYONLY)
  add_library(normgrad_opsnn_kernel_${op} OBJECT ${_gen}/${op}_kernel.cpp ${_gen}/${op}_kernel_tiling.h)
  target_include_directories(normgrad_opsnn_kernel_${op} PRIVATE ${_opsnn}/common/inc/op_kernel)
  target_compile_options(normgrad_opsnn_kernel_${op} PRIVATE -w -U__CCE_KT_TEST__
                         "SHELL:-include ${CANN_CPU_STUBS}/op_tiling_macros.h" "SHELL:-include ${_gen}/${op}_kernel_tiling.h"
                         # scalar GM accesses seen by the cost report, as for our kernels
                         "SHELL:-include ${CMAKE_CURRENT_SOURCE_DIR}/src/cost_probes.h")
  target_link_libraries(normgrad_opsnn_kernel_${op} PRIVATE normgrad_isa_a2)
  list(APPEND _opsnn_objects $<TARGET_OBJECTS:normgrad_opsnn_kernel_${op}> $<TARGET_OBJECTS:normgrad_opsnn_tiling_${op}>)
endforeach()

# --- The runner: our closed-symbol stand-ins (src/, without our kernels' InitTilingData), CANN's framework, the model.
add_executable(normgrad_opsnn_run_ascend910b ${_here}/runner.cpp $<TARGET_OBJECTS:normgrad_cann_rt_obj_ascend910b>
               ${_opsnn_objects} $<TARGET_OBJECTS:normgrad_opsnn_host>)
target_include_directories(normgrad_opsnn_run_ascend910b PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR}/runner ${_here})
target_compile_definitions(normgrad_opsnn_run_ascend910b PRIVATE NORMGRAD_CANN_SOC="ascend910b")
target_link_libraries(normgrad_opsnn_run_ascend910b PRIVATE normgrad_cann_rt_obj_ascend910b normgrad_isa_a2
                      ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(normgrad_opsnn_run_ascend910b PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
