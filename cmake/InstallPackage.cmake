# Installs leancast so that its Open MPI and MPICH builds share one prefix without
# overwriting each other, the way Debian installs MPI-flavoured software
# (libscalapack-openmpi.so, scalapack-openmpi.pc, mpicc.openmpi -> lib/.../openmpi/bin):
#
#   lib/libleancast-FLAVOR.so               the library (what pkg-config/find_package link)
#   lib/libleancast_pmpi_FLAVOR.so          the MPI_Bcast interposer, for LD_PRELOAD
#   lib/leancast/FLAVOR/bin/TOOL            the tools built against FLAVOR (RUNPATH
#                                           $ORIGIN/../../.., i.e. lib/: no LD_LIBRARY_PATH)
#   bin/TOOL.FLAVOR                         -> those (leancast-plan.openmpi, leancast-bench.mpich)
#   lib/pkgconfig/leancast-FLAVOR.pc        pkg-config leancast-FLAVOR
#   lib/cmake/leancast/leancast-FLAVOR-targets.cmake
#                                           find_package(leancast COMPONENTS FLAVOR)
# Shared, the same from either build ("common"): the headers, leancastConfig.cmake, which
# picks a flavour, leancast-report, share/leancast/auto.rules. The unsuffixed names
# (bin/leancast-plan, bin/leancast-bench, ..., lib/pkgconfig/leancast.pc; "defaults") point
# at the preferred flavour installed there: Open MPI (Debian's default MPI) over MPICH,
# whatever the order of installation; the .deb packages leave them to update-alternatives.
#
# Components: common, FLAVOR, defaults. Every install() needs one of them: CPack's .deb
# packages (LEANCAST_DEB below) take common and FLAVOR only.
include(CMakePackageConfigHelpers)

set(LEANCAST_FLAVOR ${LEANCAST_MPI_FLAVOR})
set(LEANCAST_TOOLS_DIR ${CMAKE_INSTALL_LIBDIR}/leancast/${LEANCAST_FLAVOR}/bin)
file(RELATIVE_PATH LEANCAST_TOOLS_TO_LIB /prefix/${LEANCAST_TOOLS_DIR} /prefix/${CMAKE_INSTALL_LIBDIR})
string(REGEX REPLACE "/$" "" LEANCAST_TOOLS_TO_LIB "${LEANCAST_TOOLS_TO_LIB}")
file(RELATIVE_PATH LEANCAST_BIN_TO_TOOLS /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${LEANCAST_TOOLS_DIR})

# libleancast-FLAVOR.so.0, exported as leancast::leancast-FLAVOR (the build keeps the
# target name leancast).
set_target_properties(leancast PROPERTIES OUTPUT_NAME leancast-${LEANCAST_FLAVOR}
                                          EXPORT_NAME leancast-${LEANCAST_FLAVOR})
install(TARGETS leancast EXPORT leancastTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${LEANCAST_FLAVOR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${LEANCAST_FLAVOR})
# The interposer is for LD_PRELOAD, not for linking against: a plain file beside the library.
if(TARGET ${LEANCAST_PMPI})
  install(TARGETS ${LEANCAST_PMPI} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT ${LEANCAST_FLAVOR})
endif()

# The tools: compiled ones with a relocatable RUNPATH to lib/; leancast-tune beside the
# leancast-bench it runs. bin/TOOL.FLAVOR links to each (leancast-tune's is a wrapper,
# since the script looks for leancast-bench beside the path it was started as).
set(LEANCAST_INSTALLED_TOOLS)
foreach(tool leancast-plan leancast-bench leancast-packing-bench leancast-job-bench
             leancast-overlap-bench)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH "$ORIGIN/${LEANCAST_TOOLS_TO_LIB}")
    install(TARGETS ${tool} RUNTIME DESTINATION ${LEANCAST_TOOLS_DIR} COMPONENT ${LEANCAST_FLAVOR})
    list(APPEND LEANCAST_INSTALLED_TOOLS ${tool})
    set(link ${PROJECT_BINARY_DIR}/install-links/${tool}.${LEANCAST_FLAVOR})
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/install-links)
    file(CREATE_LINK ${LEANCAST_BIN_TO_TOOLS}/${tool} ${link} SYMBOLIC)
    install(FILES ${link} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${LEANCAST_FLAVOR})
  endif()
endforeach()
install(PROGRAMS tools/tune/leancast-tune DESTINATION ${LEANCAST_TOOLS_DIR}
        COMPONENT ${LEANCAST_FLAVOR})
install(DIRECTORY tools/tune/leancast_tune DESTINATION ${LEANCAST_TOOLS_DIR}
        COMPONENT ${LEANCAST_FLAVOR} FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
list(APPEND LEANCAST_INSTALLED_TOOLS leancast-tune)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/install-links/leancast-tune.${LEANCAST_FLAVOR}
     CONTENT "#!/bin/sh\n# leancast-tune with the @LEANCAST_FLAVOR@ leancast-bench.\nexec \"$(dirname \"$(readlink -f \"$0\")\")/@LEANCAST_BIN_TO_TOOLS@/leancast-tune\" \"$@\"\n"
     @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/install-links/leancast-tune.${LEANCAST_FLAVOR}
        DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${LEANCAST_FLAVOR})

install(PROGRAMS tools/report/leancast-report DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT common)
# auto's built-in table, as a starting point for a LEANCAST_CONFIG file of one's own.
install(FILES data/auto.rules DESTINATION ${CMAKE_INSTALL_DATADIR}/leancast COMPONENT common)
install(DIRECTORY include/leancast DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT common)

# CMake: one leancastConfig.cmake for every flavour, one targets file per flavour.
set(LEANCAST_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/leancast)
install(EXPORT leancastTargets NAMESPACE leancast:: DESTINATION ${LEANCAST_CMAKE_DIR}
        FILE leancast-${LEANCAST_FLAVOR}-targets.cmake COMPONENT ${LEANCAST_FLAVOR})
configure_package_config_file(cmake/leancastConfig.cmake.in
  ${PROJECT_BINARY_DIR}/leancastConfig.cmake INSTALL_DESTINATION ${LEANCAST_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/leancastConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/leancastConfig.cmake
              ${PROJECT_BINARY_DIR}/leancastConfigVersion.cmake
        DESTINATION ${LEANCAST_CMAKE_DIR} COMPONENT common)

configure_file(cmake/leancast.pc.in ${PROJECT_BINARY_DIR}/leancast-${LEANCAST_FLAVOR}.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/leancast-${LEANCAST_FLAVOR}.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ${LEANCAST_FLAVOR})

# The unsuffixed names, by the preference rule (cmake/InstallDefaultNames.cmake).
configure_file(cmake/InstallDefaultNames.cmake ${PROJECT_BINARY_DIR}/InstallDefaultNames.cmake @ONLY)
install(SCRIPT ${PROJECT_BINARY_DIR}/InstallDefaultNames.cmake COMPONENT defaults)

# .deb packages (cpack, or cmake --build BUILD --target package): leancast-common_V_all.deb
# and leancast-FLAVOR_V_ARCH.deb, whose postinst registers the unsuffixed names with
# update-alternatives (group leancast; Open MPI 50, MPICH 40, as Debian's mpi group).
if(LEANCAST_FLAVOR MATCHES "^(openmpi|mpich)$")
  string(TOUPPER ${LEANCAST_FLAVOR} flavor_upper)
  if(LEANCAST_FLAVOR STREQUAL "openmpi")
    set(LEANCAST_ALTERNATIVES_PRIORITY 50)
    set(mpi_packages "libopenmpi-dev, openmpi-bin")
  else()
    set(LEANCAST_ALTERNATIVES_PRIORITY 40)
    set(mpi_packages "libmpich-dev, mpich")
  endif()
  set(LEANCAST_DEB_PREFIX /usr)
  set(LEANCAST_ALTERNATIVES_SLAVES "")
  foreach(tool IN LISTS LEANCAST_INSTALLED_TOOLS)
    if(NOT tool STREQUAL "leancast-plan")
      string(APPEND LEANCAST_ALTERNATIVES_SLAVES
        " \\\n    --slave ${LEANCAST_DEB_PREFIX}/${CMAKE_INSTALL_BINDIR}/${tool} ${tool}"
        " ${LEANCAST_DEB_PREFIX}/${CMAKE_INSTALL_BINDIR}/${tool}.${LEANCAST_FLAVOR}")
    endif()
  endforeach()
  string(APPEND LEANCAST_ALTERNATIVES_SLAVES
    " \\\n    --slave ${LEANCAST_DEB_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/leancast.pc leancast.pc"
    " ${LEANCAST_DEB_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/leancast-${LEANCAST_FLAVOR}.pc")
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/deb)
  configure_file(cmake/deb/postinst.in ${PROJECT_BINARY_DIR}/deb/postinst @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  configure_file(cmake/deb/prerm.in ${PROJECT_BINARY_DIR}/deb/prerm @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)

  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME leancast)
  set(CPACK_PACKAGE_VENDOR leancast)
  set(CPACK_PACKAGE_CONTACT "leancast maintainers <leancast@localhost>")
  set(CPACK_PACKAGING_INSTALL_PREFIX ${LEANCAST_DEB_PREFIX})
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL common ${LEANCAST_FLAVOR})
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_STRIP_FILES ON)
  set(CPACK_DEBIAN_PACKAGE_SECTION science)
  set(CPACK_DEBIAN_COMMON_PACKAGE_NAME leancast-common)
  set(CPACK_DEBIAN_COMMON_PACKAGE_ARCHITECTURE all)
  set(CPACK_DEBIAN_COMMON_PACKAGE_DEPENDS "python3")
  set(CPACK_DEBIAN_COMMON_PACKAGE_RECOMMENDS "python3-matplotlib")
  set(CPACK_COMPONENT_COMMON_DESCRIPTION
    "leancast MPI broadcast library: headers, CMake package, leancast-report, auto's table")
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_NAME leancast-${LEANCAST_FLAVOR})
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_DEPENDS "leancast-common (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_RECOMMENDS "${mpi_packages}")
  set(CPACK_DEBIAN_${flavor_upper}_PACKAGE_CONTROL_EXTRA
      ${PROJECT_BINARY_DIR}/deb/postinst ${PROJECT_BINARY_DIR}/deb/prerm)
  set(CPACK_COMPONENT_${flavor_upper}_DESCRIPTION
    "leancast MPI broadcast library for ${LEANCAST_FLAVOR}: library, MPI_Bcast interposer, tools")
  include(CPack)
endif()
