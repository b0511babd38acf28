# The C/C++ package `cmake --install` makes and `pip install .` ships inside the Python package
# (setup.py installs into site-packages/normgrad): lib/libnormgrad.so, the public headers under
# include/ and the CMake package config under share/cmake/normgrad (find_package(normgrad) ->
# normgrad::normgrad). python/normgrad/cpp_package.py finds these directories by the same names.
include(CMakePackageConfigHelpers)

set(NORMGRAD_INSTALL_LIBDIR lib)
set(NORMGRAD_INSTALL_INCLUDEDIR include)
set(NORMGRAD_INSTALL_CMAKEDIR share/cmake/normgrad)

# The public API and nothing else: what a C/C++ user of the aclnn API includes (acl/acl.h and the
# aclnnop/ operator headers, at CANN's paths) and the headers they include, plus normgrad_sim.h,
# the simulator's own C API (SoC selection, modeled timing). Not aclnn/acl_objects.h (the
# simulator's definitions of the opaque objects) nor any other simulator or host header.
install(FILES
    ${PROJECT_SOURCE_DIR}/sim/include/acl/acl.h
    ${PROJECT_SOURCE_DIR}/sim/include/acl/acl_base.h
    ${PROJECT_SOURCE_DIR}/sim/include/acl/acl_rt.h
  DESTINATION ${NORMGRAD_INSTALL_INCLUDEDIR}/acl)
install(FILES
    ${PROJECT_SOURCE_DIR}/sim/include/aclnn/acl_meta.h
    ${PROJECT_SOURCE_DIR}/sim/include/aclnn/aclnn_base.h
  DESTINATION ${NORMGRAD_INSTALL_INCLUDEDIR}/aclnn)
file(GLOB normgrad_operator_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/op_host/op_api/aclnnop/*.h)
install(FILES ${PROJECT_SOURCE_DIR}/sim/include/aclnnop/aclnn_util.h ${normgrad_operator_headers}
  DESTINATION ${NORMGRAD_INSTALL_INCLUDEDIR}/aclnnop)
install(FILES ${PROJECT_SOURCE_DIR}/sim/include/normgrad_sim.h DESTINATION ${NORMGRAD_INSTALL_INCLUDEDIR})

install(TARGETS normgrad EXPORT normgradTargets
  LIBRARY DESTINATION ${NORMGRAD_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${NORMGRAD_INSTALL_INCLUDEDIR})
# normgradTargets.cmake locates the library from its own directory (relocatable).
install(EXPORT normgradTargets NAMESPACE normgrad:: DESTINATION ${NORMGRAD_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/normgradConfig.cmake.in
  ${PROJECT_BINARY_DIR}/normgradConfig.cmake
  INSTALL_DESTINATION ${NORMGRAD_INSTALL_CMAKEDIR}
  PATH_VARS NORMGRAD_INSTALL_INCLUDEDIR)
# 0.x: a newer minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/normgradConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/normgradConfig.cmake ${PROJECT_BINARY_DIR}/normgradConfigVersion.cmake
  DESTINATION ${NORMGRAD_INSTALL_CMAKEDIR})
