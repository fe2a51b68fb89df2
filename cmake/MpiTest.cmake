# leancast_add_mpi_test(NAME <name> PROCS <n> TIMEOUT <seconds> COMMAND <program> [args...])
# Runs <program> on <n> local ranks under the MPI library the build uses, wrapped in
# `timeout` so that a hang fails the test instead of the suite. Open MPI runs
# oversubscribed (ranks yield the CPU); MPICH busy-polls, so give it few ranks.
set(LEANCAST_TEST_ENVIRONMENT "")
set(LEANCAST_MPIEXEC_FLAGS "")
if(LEANCAST_MPI_FLAVOR STREQUAL "openmpi")
  set(LEANCAST_MPIEXEC_FLAGS --oversubscribe)
  set(LEANCAST_TEST_ENVIRONMENT
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # No ptrace-based single copy inside containers; plain shared-memory copies instead.
    OMPI_MCA_btl_vader_single_copy_mechanism=none)
endif()

function(leancast_add_mpi_test)
  cmake_parse_arguments(ARG "" "NAME;PROCS;TIMEOUT" "COMMAND" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_test(NAME ${ARG_NAME}
           COMMAND timeout ${ARG_TIMEOUT} ${MPIEXEC_EXECUTABLE} ${LEANCAST_MPIEXEC_FLAGS}
                   ${MPIEXEC_NUMPROC_FLAG} ${ARG_PROCS} ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES
    ENVIRONMENT "${LEANCAST_TEST_ENVIRONMENT}"
    TIMEOUT ${ARG_TIMEOUT}
    PROCESSORS 2)
endfunction()
