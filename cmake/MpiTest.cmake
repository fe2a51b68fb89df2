# leancast_add_mpi_test(NAME <name> PROCS <n> TIMEOUT <seconds> [EXPECT_ABORT]
#                       COMMAND <program> [args...])
# Runs <program> on <n> local ranks under the MPI library the build uses, wrapped in
# `timeout` so that a hang fails the test instead of the suite. EXPECT_ABORT: the test
# passes only if the job aborts. Open MPI runs
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
  cmake_parse_arguments(ARG "EXPECT_ABORT" "NAME;PROCS;TIMEOUT" "COMMAND" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(wrapper "")
  if(ARG_EXPECT_ABORT)
    set(wrapper ${PROJECT_SOURCE_DIR}/tests/support/expect_abort.sh)
  endif()
  add_test(NAME ${ARG_NAME}
           COMMAND ${wrapper} timeout ${ARG_TIMEOUT} ${MPIEXEC_EXECUTABLE} ${LEANCAST_MPIEXEC_FLAGS}
                   ${MPIEXEC_NUMPROC_FLAG} ${ARG_PROCS} ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES
    ENVIRONMENT "${LEANCAST_TEST_ENVIRONMENT}"
    TIMEOUT ${ARG_TIMEOUT}
    PROCESSORS 2)
endfunction()

# leancast_add_node_tests(NAME <prefix> CASES <procs:per_node>... TIMEOUT <s> COMMAND <...>):
# one test <prefix>.P<procs> per case, its ranks grouped into nodes of per_node ranks
# (LEANCAST_RANKS_PER_NODE), so that node-aware broadcasts see several nodes on one machine.
function(leancast_add_node_tests)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "CASES;COMMAND" ${ARGN})
  foreach(case IN LISTS ARG_CASES)
    string(REPLACE ":" ";" case "${case}")
    list(GET case 0 procs)
    list(GET case 1 per_node)
    leancast_add_mpi_test(NAME ${ARG_NAME}.P${procs} PROCS ${procs} TIMEOUT ${ARG_TIMEOUT}
                          COMMAND ${ARG_COMMAND})
    set_tests_properties(${ARG_NAME}.P${procs} PROPERTIES
      ENVIRONMENT "${LEANCAST_TEST_ENVIRONMENT};LEANCAST_RANKS_PER_NODE=${per_node}")
  endforeach()
endfunction()
