#!/usr/bin/env bash
# The whole test suite: builds leancast against Open MPI, against MPICH and for SimGrid's
# SMPI, and runs CTest in each (the MPI-free tests once). Installs its Debian packages first.
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

status=0
build openmpi
echo "== built against openmpi (t = ${SECONDS} s)"
# The MPICH and SMPI builds run beside the Open MPI tests, under the idle scheduling policy:
# those tests leave a core idle for about half their time (launchers starting, ranks
# waiting), which the compilers take, and give way to them otherwise.
later_log="$LEANCAST_ROOT/build/later-flavours.log"
mpich_built="$LEANCAST_ROOT/build/.mpich-built"
rm -f "$mpich_built"
(chrt --idle -p 0 $BASHPID > /dev/null; build mpich; echo "== built against mpich (t = ${SECONDS} s)"
 touch "$mpich_built"
 build smpi; echo "== built for smpi (t = ${SECONDS} s)") > "$later_log" 2>&1 &
later=$!
later_failed() {
  echo "leancast: building the MPICH or SMPI flavour failed:" >&2
  cat "$later_log" >&2
  exit 1
}
run_tests openmpi || status=1
echo "== Open MPI tests done (t = ${SECONDS} s); waiting for the MPICH build"
# The MPICH tests start once their build is there, and the SMPI build goes on beside them,
# still idle: it takes the moments their launchers leave free.
while [[ ! -e "$mpich_built" ]] && kill -0 "$later" 2> /dev/null; do sleep 1; done
[[ -e "$mpich_built" ]] || { wait "$later" || true; later_failed; }
run_tests mpich || status=1
echo "== MPICH tests done (t = ${SECONDS} s); waiting for the SMPI build"
wait "$later" || later_failed
grep '^== built' "$later_log" || true
run_tests smpi || status=1
echo "== done (t = ${SECONDS} s)"
exit $status
