#!/usr/bin/env bash
# The whole test suite: builds leancast against Open MPI, against MPICH and for SimGrid's
# SMPI, and runs CTest in each (the MPI-free tests once). Installs its Debian packages first.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
status=0
# The three builds compile the MPI-free code (schedules, leancast-plan) alike: ccache, with
# its cache in this tree's build/, compiles it once (and nothing again on a second run).
export CCACHE_DIR="$LEANCAST_ROOT/build/.ccache"
for flavor in openmpi mpich smpi; do
  echo "== leancast tests against $flavor"
  # The MPI-free tests are the same in every flavour: built and run in the Open MPI pass.
  free=ON exclude=()
  [[ $flavor == mpich ]] && free=OFF exclude=(-E '^(schedule|select|plan)\.')
  # Optimised as every build (-O2), without debug information: a fifth less time to build.
  build_leancast "$flavor" -DLEANCAST_MPI_FREE_TESTS=$free \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG"
  # Two at a time: every test that starts MPI ranks or simulations claims both slots
  # (PROCESSORS 2), so only the single-process MPI-free tests run side by side.
  (cd "$LEANCAST_ROOT/build/$flavor" && ctest --output-on-failure --parallel 2 "${exclude[@]}") \
    || status=1
done
exit $status
