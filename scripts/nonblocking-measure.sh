#!/usr/bin/env bash
# Nonblocking broadcasts: leancast-overlap-bench times the MPI library's MPI_Ibcast beside
# LC_Ibcast (auto and named algorithms) in one run: latency (start, then MPI_Wait at once)
# against each contender's blocking broadcast, and OSU's overlap (computation for as long
# as the latency while the broadcast is in flight). Three ways to compute: no MPI call
# (OSU's default), 10 MPI_Test calls spread over it (OSU's -t), and no call with
# LEANCAST_PROGRESS_THREAD=1 (MPI_THREAD_MULTIPLE, for both contenders). Open MPI at P = 2
# and 4 (oversubscribed on this 2-core machine), MPICH at P = 2. Raw JSON goes to
# docs/benchmarks/nonblocking/, scripts/nonblocking-summary.py tabulates it.
# Usage: scripts/nonblocking-measure.sh [openmpi|mpich|all] [PROCS...]   (default all, 2 4)
set -euo pipefail
source "$(dirname "$0")/env.sh"
# MPI_Bcast as Open MPI runs it by default (env.sh).
library_defaults
what="${1:-all}"
shift || true
procs_list=("${@:-2 4}")
read -r -a procs_list <<< "${procs_list[*]}"
out="$LEANCAST_ROOT/docs/benchmarks/nonblocking"
mkdir -p "$out"
sizes=1K,16K,64K,256K,1M,4M,16M
contenders=mpi,auto,binomial,pipeline-chain,scatter-ring-tuned
run() { echo "+ $*" >&2; "$@"; }
# measure NAME LAUNCHER... : the three ways to compute, each its own JSON
measure() {
  local name="$1"
  shift
  run timeout 900 "$@" ./leancast-overlap-bench --algorithms "$contenders" --sizes "$sizes" \
    --reps 7 --json "$out/$name-calls0.json"
  run timeout 900 "$@" ./leancast-overlap-bench --algorithms "$contenders" --sizes "$sizes" \
    --reps 7 --test-calls 10 --json "$out/$name-calls10.json"
  run timeout 900 env LEANCAST_PROGRESS_THREAD=1 "$@" ./leancast-overlap-bench \
    --algorithms "$contenders" --sizes "$sizes" --reps 7 --json "$out/$name-thread.json"
}

if [[ "$what" == openmpi || "$what" == all ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  for procs in "${procs_list[@]}"; do
    measure "openmpi-p$procs" mpirun --oversubscribe -n "$procs"
  done
fi
if [[ "$what" == mpich || "$what" == all ]]; then
  build_leancast mpich
  cd "$LEANCAST_ROOT/build/mpich"
  measure mpich-p2 mpiexec.mpich -n 2
fi
python3 "$LEANCAST_ROOT/scripts/nonblocking-summary.py" "$out" > "$out/summary.md"
echo "wrote $out/summary.md" >&2
