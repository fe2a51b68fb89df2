# Run by `cmake --install` (component "defaults"; configured with @ONLY): points the
# unsuffixed names bin/leancast-plan, bin/leancast-bench, ... and lib/pkgconfig/leancast.pc
# at this build's flavour, unless they already point at a preferred flavour that is
# installed there. Preference: Open MPI (Debian's default MPI), then MPICH. So with both
# flavours in one prefix the defaults are Open MPI's in either order of installation, and
# a single install's are its own. (The .deb packages use update-alternatives instead.)
set(flavor "@LEANCAST_FLAVOR@")
set(tools "@LEANCAST_INSTALLED_TOOLS@")
set(preference openmpi mpich)
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(bin "${root}/@CMAKE_INSTALL_BINDIR@")
set(pkgconfig "${root}/@CMAKE_INSTALL_LIBDIR@/pkgconfig")

function(rank name out)
  list(FIND preference "${name}" index)
  if(index LESS 0)
    set(index 99)
  endif()
  set(${out} ${index} PARENT_SCOPE)
endfunction()

set(current "")
if(IS_SYMLINK "${bin}/leancast-plan")
  file(READ_SYMLINK "${bin}/leancast-plan" target)
  if(target MATCHES "^leancast-plan\\.(.+)$")
    set(current "${CMAKE_MATCH_1}")
  endif()
endif()
rank("${flavor}" mine)
rank("${current}" theirs)
if(current AND NOT current STREQUAL flavor AND EXISTS "${bin}/leancast-plan.${current}"
   AND theirs LESS mine)
  message(STATUS "leancast: the unsuffixed names stay with ${current} (preferred over ${flavor})")
  return()
endif()
foreach(tool IN LISTS tools)
  message(STATUS "Installing: ${bin}/${tool} -> ${tool}.${flavor}")
  file(REMOVE "${bin}/${tool}")
  file(CREATE_LINK "${tool}.${flavor}" "${bin}/${tool}" SYMBOLIC)
endforeach()
message(STATUS "Installing: ${pkgconfig}/leancast.pc -> leancast-${flavor}.pc")
file(REMOVE "${pkgconfig}/leancast.pc")
file(CREATE_LINK "leancast-${flavor}.pc" "${pkgconfig}/leancast.pc" SYMBOLIC)
