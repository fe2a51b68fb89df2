#!/usr/bin/env bash
# What the MPI calls leancast defines (completion calls, blocking point-to-point calls,
# collectives) cost a program with no leancast broadcast outstanding: leancast-guest-bench,
# a plain MPI program, with the interposer preloaded, times each operation through its
# MPI_ name (the interposer's) and its PMPI_ name (the library's) alternately in one run.
# Open MPI at P = 2 and 4 (oversubscribed on a 2-core machine), MPICH at P = 2. Raw JSON goes
# to docs/benchmarks/progress/.
# Usage: scripts/progress-measure.sh [openmpi|mpich|all]   (default all)
set -euo pipefail
source "$(dirname "$0")/env.sh"
what="${1:-all}"
out="$LEANCAST_ROOT/docs/benchmarks/progress"
mkdir -p "$out"
run() { echo "+ $*" >&2; "$@"; }
if [[ "$what" == openmpi || "$what" == all ]]; then
  build_leancast openmpi -DLEANCAST_CALL_COST_BENCHES=ON
  cd "$LEANCAST_ROOT/build/openmpi"
  for procs in 2 4; do
    run timeout 600 mpirun --oversubscribe -n "$procs" -x LD_PRELOAD="$PWD/libleancast_pmpi_openmpi.so" \
      ./leancast-guest-bench --json "$out/guest-openmpi-p$procs.json"
  done
fi
if [[ "$what" == mpich || "$what" == all ]]; then
  build_leancast mpich -DLEANCAST_CALL_COST_BENCHES=ON
  cd "$LEANCAST_ROOT/build/mpich"
  run timeout 600 mpiexec.mpich -n 2 -genv LD_PRELOAD "$PWD/libleancast_pmpi_mpich.so" \
    ./leancast-guest-bench --json "$out/guest-mpich-p2.json"
fi
