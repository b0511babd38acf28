# CANN's CPU-debug compile configuration per architecture, as cann-check uses it
# (../shared/tools/cann-check.md, "Kernels"): INTERFACE targets normgrad_cann_arch_a2 and
# normgrad_cann_arch_910 carry the per-architecture macros. The arch-independent part (the bundle's
# include directories, cann-check's stubs directory, ASCENDC_CPU_DEBUG=1, __CCE_KT_TEST__=1) is the
# INTERFACE target normgrad_cann_cpu_flags, which the including project defines (front end B, or
# sim/isa/tests when built alone: normgrad_cann_cpu_flags_define() below).
include_guard(GLOBAL)

if(NOT TARGET normgrad_cann_arch_a2)
  add_library(normgrad_cann_arch_a2 INTERFACE)
  target_compile_definitions(normgrad_cann_arch_a2 INTERFACE
    __NPU_ARCH__=2201 __CCE_AICORE__=220 __DAV_C220__ __DAV_C220_VEC__ __DAV_VEC__)
  add_library(normgrad_cann_arch_910 INTERFACE)
  target_compile_definitions(normgrad_cann_arch_910 INTERFACE
    __NPU_ARCH__=1001 __CCE_AICORE__=100 __DAV_C100__)
endif()

# Defines normgrad_cann_cpu_flags from a CANN root (the bundle `cann-check --root` prints) and
# cann-check's stubs directory, with the include order of cann-check's kernel compile line.
function(normgrad_cann_cpu_flags_define cann_root stubs_dir)
  if(TARGET normgrad_cann_cpu_flags)
    return()
  endif()
  set(dk ${cann_root}/asc-devkit)
  add_library(normgrad_cann_cpu_flags INTERFACE)
  target_include_directories(normgrad_cann_cpu_flags SYSTEM INTERFACE
    ${dk} ${dk}/include ${dk}/include/basic_api ${dk}/include/utils ${dk}/impl ${dk}/impl/basic_api
    ${cann_root}/gen ${stubs_dir}/wrap ${cann_root}/asc-tools/cpudebug/include ${stubs_dir}
    ${cann_root}/asc-tools/cpudebug/utils ${cann_root}/compat-kernel)
  target_compile_definitions(normgrad_cann_cpu_flags INTERFACE ASCENDC_CPU_DEBUG=1 __CCE_KT_TEST__=1)
endfunction()
