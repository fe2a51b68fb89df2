# Sourced by the scripts: how leancast's builds and launches are set up on this machine.
# Open MPI refuses to run as root without these, and yields the CPU when oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# library_defaults: for the scripts that time auto against the library's own broadcast, Open
# MPI as it runs by default where the kernel allows, with vader's single copy by cross-memory
# attach (turned off above for the tests: an earlier container refused it).
library_defaults() { export OMPI_MCA_btl_vader_single_copy_mechanism=cma; }
LEANCAST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=$(nproc)

# build_leancast FLAVOR [CMAKE ARGUMENTS...]: configures and builds build/FLAVOR (openmpi,
# mpich or smpi) as users build it, file by file and with the call-cost benches, whatever
# an earlier scripts/test.sh left in its cache (the arguments, given after, still win).
build_leancast() {
  cmake -S "$LEANCAST_ROOT" -B "$LEANCAST_ROOT/build/$1" -DLEANCAST_MPI="$1" \
    -DCMAKE_UNITY_BUILD=OFF -DLEANCAST_CALL_COST_BENCHES=ON "${@:2}" >/dev/null
  cmake --build "$LEANCAST_ROOT/build/$1" -j "$JOBS" >/dev/null
}
