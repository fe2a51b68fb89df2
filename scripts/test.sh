#!/usr/bin/env bash
# The whole test suite: builds leancast against Open MPI, against MPICH and for SimGrid's
# SMPI, and runs CTest in each (the MPI-free tests once); then a subset under sanitizers
# (sanitizer_build below). Installs its Debian packages first. LEANCAST_TEST_ONLY=sanitizers
# runs the sanitizer part alone.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
# The three builds compile the MPI-free code (schedules, leancast-plan) alike: ccache, with
# its cache in this tree's build/, compiles it once (and nothing again on a second run).
# Paths under the tree are hashed relative to the build directory, so that the unity
# build's batch files (build/FLAVOR/CMakeFiles/...) are the same file to ccache in each.
export CCACHE_DIR="$LEANCAST_ROOT/build/.ccache" CCACHE_BASEDIR="$LEANCAST_ROOT"
# Open MPI tries its UCX transport first; on a machine without a network adapter UCX drives
# it declines, after 0.2 s of every launch's 0.55 here, and Open MPI picks ob1. Naming ob1
# skips that probe (the same transport the tests get otherwise there): a fifth less time in
# the Open MPI tests, most of which are launches.
export OMPI_MCA_pml=ob1
# Python is Debian's python3, whose modules install-deps.sh installs (matplotlib, mpi4py),
# even where another python3 comes first on PATH (a pyenv shim here: 0.36 s a start).
mkdir -p "$LEANCAST_ROOT/build/.python3"
ln -sf /usr/bin/python3 "$LEANCAST_ROOT/build/.python3/python3"
export PATH="$LEANCAST_ROOT/build/.python3:$PATH"

build() {
  # The MPI-free tests are the same in every flavour: built and run in the Open MPI pass.
  # The call-cost benches, which no test runs, are left out (43 s of compiling on the
  # suite's critical path); every default build, the demo's among them, compiles them.
  local free=ON
  [[ $1 == mpich ]] && free=OFF
  # Optimised as every build (-O2), without debug information: a fifth less time to build.
  # A unity build of the library too (the tests' is on by default): a target's files compiled
  # a batch at a time, the Open MPI build with its tests 115 s here instead of 153 (208 file
  # by file). Only here: users' builds and every measurement compile the library file by
  # file, since a batch lets the compiler inline across files and so changes the binary.
  # Every warning an error (LEANCAST_WERROR) in all three flavours.
  build_leancast "$1" -DLEANCAST_MPI_FREE_TESTS=$free -DLEANCAST_CALL_COST_BENCHES=OFF \
    -DCMAKE_UNITY_BUILD=ON -DLEANCAST_WERROR=ON \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG"
}

run_tests() {
  echo "== leancast tests against $1 (t = ${SECONDS} s)"
  # install_both_flavours installs the Open MPI and MPICH builds together: in the MPICH pass,
  # once both are built.
  local exclude=(-E '^openmpi\.install_both_flavours$')
  [[ $1 == mpich ]] && exclude=(-E '^(schedule|select|plan)\.')
  # Two at a time: every test that starts MPI ranks or simulations claims both slots
  # (PROCESSORS 2), so only the single-process MPI-free tests run side by side.
  (cd "$LEANCAST_ROOT/build/$1" && ctest --output-on-failure --parallel 2 "${exclude[@]}")
}

# The sanitizer subsets (docs/testing.md#sanitizers), by build and test name: FLAVOUR.GROUP
# with every process count of the group, or FLAVOUR.GROUP.PN. asan-*: AddressSanitizer with
# UndefinedBehaviorSanitizer, against Open MPI and against MPICH: the nonblocking and
# progress tests (the progress thread, its helper, blocking calls that step broadcasts, the
# stress program), shared memory, errors (faults, fatal errors; Open MPI: bad input too) and
# interposer programs. tsan-openmpi: ThreadSanitizer, against Open MPI (through
# tests/sanitizers/tsan.supp): the tests in which leancast runs a second thread, but
# progress_stress_threads (docs/testing.md#sanitizers says why). SANITIZER_TARGETS: what
# they run, the only targets the sanitizer builds compile (the library aside).
common_tests='nonblocking\.P2|progress_(thread|helper|stress|stress_threads|stress_library_progress)|blocked_multiple|shm\.P[1-4]|shm_(nodes|streamed|names|killed|faults)|cma_split|errors_are_fatal|faults'
declare -A SANITIZER_TESTS=(
  [asan-openmpi]="$common_tests|bcast\.P2|pmpi\.(progress_stress_shm|nonblocking_linked_and_preloaded|cxx_threads)"
  [asan-mpich]="$common_tests|pmpi\.(nonblocking_linked_and_preloaded|cxx_threads)"
  [tsan-openmpi]='progress_(thread|helper)|blocked_multiple'
)
common_targets='mpi_nonblocking_tests progress_stress mpi_shm_tests shm_killed mpi_fault_tests fatal_bad_root'
declare -A SANITIZER_TARGETS=(
  [asan-openmpi]="$common_targets mpi_bcast_tests leancast_pmpi_openmpi progress_stress_plain
                  bcast_nonblocking_linked bcast_threads"
  [asan-mpich]="$common_targets leancast_pmpi_mpich bcast_nonblocking_linked bcast_threads"
  [tsan-openmpi]='mpi_nonblocking_tests'
)
unset common_tests common_targets
# The sanitizer builds, in the order their tests run: a test pass starts once its build is
# there, the later builds going on beside it.
SANITIZER_BUILDS=(asan-openmpi tsan-openmpi asan-mpich)
declare -A SANITIZE=([asan]='address,undefined' [tsan]='thread')

# sanitizer_build KIND-FLAVOUR: build/KIND-FLAVOUR, its tests' targets only, at -O1 without
# debug information (a sanitizer's report names functions; tsan.supp names functions and
# modules, never files), the MPI-free objects shared by the two asan builds through ccache.
sanitizer_build() {
  local kind=${1%%-*} flavour=${1#*-}
  cmake -S "$LEANCAST_ROOT" -B "$LEANCAST_ROOT/build/$1" -DLEANCAST_MPI="$flavour" \
    -DLEANCAST_SANITIZE="${SANITIZE[$kind]}" -DLEANCAST_MPI_FREE_TESTS=OFF \
    -DLEANCAST_CALL_COST_BENCHES=OFF -DCMAKE_UNITY_BUILD=ON -DLEANCAST_WERROR=ON \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" \
    > /dev/null
  # shellcheck disable=SC2086  # the list of targets, split
  cmake --build "$LEANCAST_ROOT/build/$1" -j "$JOBS" --target leancast ${SANITIZER_TARGETS[$1]} \
    > /dev/null
}

# run_sanitizer_tests KIND-FLAVOUR. Both MPI libraries keep what they allocate until exit
# (no leak detection). The interposer's programs are built with the sanitizer too, so its
# runtime is loaded, after the preloaded interposer: AddressSanitizer is told not to insist
# on coming first (ThreadSanitizer does not ask).
run_sanitizer_tests() {
  local kind=${1%%-*}
  echo "== $kind tests against ${1#*-} (t = ${SECONDS} s)"
  (cd "$LEANCAST_ROOT/build/$1" &&
   ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   TSAN_OPTIONS="halt_on_error=1 suppressions=$LEANCAST_ROOT/tests/sanitizers/tsan.supp" \
   ctest --output-on-failure --parallel 2 --no-tests=error \
     -R "^(openmpi|mpich)\.(${SANITIZER_TESTS[$1]})(\.P[0-9]+)?\$")
}

# Builds in the background, in order, each leaving build/.NAME-built; their output in
# build/later-builds.log. wait_for_build NAME: until that build is there (exits if the
# chain failed before it).
later_log="$LEANCAST_ROOT/build/later-builds.log"
later_builds() {
  local name
  for name in "$@"; do rm -f "$LEANCAST_ROOT/build/.$name-built"; done
  for name in "$@"; do
    case $name in
      mpich | smpi) build "$name" ;;
      *) sanitizer_build "$name" ;;
    esac
    echo "== built $name (t = ${SECONDS} s)"
    touch "$LEANCAST_ROOT/build/.$name-built"
  done
}
wait_for_build() {
  while [[ ! -e "$LEANCAST_ROOT/build/.$1-built" ]] && kill -0 "$later" 2> /dev/null; do
    sleep 1
  done
  [[ -e "$LEANCAST_ROOT/build/.$1-built" ]] && return
  wait "$later" || true
  echo "leancast: building $1 failed:" >&2
  cat "$later_log" >&2
  exit 1
}
run_sanitizer_passes() {
  local name
  for name in "${SANITIZER_BUILDS[@]}"; do
    wait_for_build "$name"
    run_sanitizer_tests "$name" || status=1
  done
}

status=0
if [[ ${LEANCAST_TEST_ONLY:-} == sanitizers ]]; then
  later_builds "${SANITIZER_BUILDS[@]}" > "$later_log" 2>&1 &
  later=$!
  run_sanitizer_passes
  wait "$later" || true
  grep '^== built' "$later_log" || true
  echo "== done (t = ${SECONDS} s)"
  exit $status
fi
build openmpi
echo "== built against openmpi (t = ${SECONDS} s)"
# The MPICH, SMPI and sanitizer builds run beside the tests, under the idle scheduling
# policy: the Open MPI tests leave a core idle for about half their time (launchers
# starting, ranks waiting), which the compilers take, and give way to them otherwise.
(chrt --idle -p 0 $BASHPID > /dev/null; later_builds mpich smpi "${SANITIZER_BUILDS[@]}") \
  > "$later_log" 2>&1 &
later=$!
run_tests openmpi || status=1
echo "== Open MPI tests done (t = ${SECONDS} s); waiting for the MPICH build"
# The MPICH tests start once their build is there, and the later builds go on beside them,
# still idle: they take the moments the launchers leave free.
wait_for_build mpich
run_tests mpich || status=1
echo "== MPICH tests done (t = ${SECONDS} s); waiting for the SMPI build"
wait_for_build smpi
run_tests smpi || status=1
echo "== SMPI tests done (t = ${SECONDS} s); the sanitizer subsets"
run_sanitizer_passes
wait "$later" || true
grep '^== built' "$later_log" || true
echo "== done (t = ${SECONDS} s)"
exit $status
