# Points FindMPI at the MPI library named by LEANCAST_MPI and records which one it is
# (LEANCAST_MPI_FLAVOR: openmpi, mpich or smpi) for the tests' launcher flags.
if(LEANCAST_MPI STREQUAL "smpi")
  # What smpicc does, minus its forced smpi_helpers.h (whose exit/malloc macros break
  # C++ headers such as CLI11's): SMPI's mpi.h, libsimgrid, and programs linked as shared
  # objects, which smpirun loads once per simulated rank (so their globals are per rank).
  find_path(SMPI_INCLUDE_DIR smpi/mpi.h REQUIRED)
  find_library(SIMGRID_LIBRARY simgrid REQUIRED)
  add_library(MPI::MPI_C INTERFACE IMPORTED)
  target_include_directories(MPI::MPI_C INTERFACE ${SMPI_INCLUDE_DIR}/smpi)
  target_link_libraries(MPI::MPI_C INTERFACE ${SIMGRID_LIBRARY})
  target_compile_options(MPI::MPI_C INTERFACE -fPIC)
  target_link_options(MPI::MPI_C INTERFACE -shared)
  find_program(MPIEXEC_EXECUTABLE NAMES smpirun REQUIRED)
  set(LEANCAST_MPI_FLAVOR smpi)
  message(STATUS "leancast: building for SimGrid SMPI, launcher ${MPIEXEC_EXECUTABLE}")
  return()
elseif(LEANCAST_MPI STREQUAL "mpich")
  find_program(MPI_C_COMPILER NAMES mpicc.mpich REQUIRED)
  find_program(MPIEXEC_EXECUTABLE NAMES mpiexec.mpich REQUIRED)
elseif(LEANCAST_MPI STREQUAL "openmpi")
  find_program(MPI_C_COMPILER NAMES mpicc.openmpi REQUIRED)
  find_program(MPIEXEC_EXECUTABLE NAMES mpirun.openmpi REQUIRED)
elseif(NOT LEANCAST_MPI STREQUAL "default")
  message(FATAL_ERROR "LEANCAST_MPI must be default, mpich, openmpi or smpi, not '${LEANCAST_MPI}'")
endif()

set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
find_package(MPI REQUIRED COMPONENTS C)

if(MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  set(LEANCAST_MPI_FLAVOR openmpi)
elseif(MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH")
  set(LEANCAST_MPI_FLAVOR mpich)
else()
  set(LEANCAST_MPI_FLAVOR unknown)
endif()
message(STATUS "leancast: building against ${LEANCAST_MPI_FLAVOR} (${MPI_C_COMPILER}), "
               "launcher ${MPIEXEC_EXECUTABLE}")
