# Installs the library, the MPI_Bcast interposer, headers, leancast-plan, a CMake package
# (find_package(leancast)) and a pkg-config file (leancast.pc).
include(CMakePackageConfigHelpers)

install(TARGETS leancast EXPORT leancastTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The interposer is for LD_PRELOAD, not for linking against: a plain file beside the library.
if(TARGET ${LEANCAST_PMPI})
  install(TARGETS ${LEANCAST_PMPI} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(TARGETS leancast-plan leancast-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS tools/report/leancast-report tools/tune/leancast-tune
        DESTINATION ${CMAKE_INSTALL_BINDIR})
# auto's built-in table, as a starting point for a LEANCAST_CONFIG file of one's own.
install(FILES data/auto.rules DESTINATION ${CMAKE_INSTALL_DATADIR}/leancast)
install(DIRECTORY include/leancast DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(LEANCAST_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/leancast)
install(EXPORT leancastTargets NAMESPACE leancast:: DESTINATION ${LEANCAST_CMAKE_DIR})
configure_package_config_file(cmake/leancastConfig.cmake.in
  ${PROJECT_BINARY_DIR}/leancastConfig.cmake INSTALL_DESTINATION ${LEANCAST_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/leancastConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/leancastConfig.cmake
              ${PROJECT_BINARY_DIR}/leancastConfigVersion.cmake
        DESTINATION ${LEANCAST_CMAKE_DIR})

configure_file(cmake/leancast.pc.in ${PROJECT_BINARY_DIR}/leancast.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/leancast.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
