# Points FindMPI at the MPI library named by LEANCAST_MPI and records which one it is
# (LEANCAST_MPI_FLAVOR: openmpi or mpich) for the tests' launcher flags.
if(LEANCAST_MPI STREQUAL "mpich")
  find_program(MPI_C_COMPILER NAMES mpicc.mpich REQUIRED)
  find_program(MPIEXEC_EXECUTABLE NAMES mpiexec.mpich REQUIRED)
elseif(LEANCAST_MPI STREQUAL "openmpi")
  find_program(MPI_C_COMPILER NAMES mpicc.openmpi REQUIRED)
  find_program(MPIEXEC_EXECUTABLE NAMES mpirun.openmpi REQUIRED)
elseif(NOT LEANCAST_MPI STREQUAL "default")
  message(FATAL_ERROR "LEANCAST_MPI must be default, mpich or openmpi, not '${LEANCAST_MPI}'")
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
