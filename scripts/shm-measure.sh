#!/usr/bin/env bash
# shm, the shared-memory broadcast, side by side in one run with the MPI library's
# MPI_Bcast and leancast's point-to-point algorithms, at P = 2 and 4 (Open MPI, 4 ranks
# oversubscribed on this 2-core machine) and P = 2 (MPICH); then once per configuration of
# the library's own broadcast (Open MPI's coll_tuned algorithms forced one by one, its han,
# sm and adapt components; MPICH's release_gather), each run timing the library's broadcast
# beside shm. Raw JSON goes to docs/benchmarks/shm/, scripts/shm-summary.py tabulates it.
# Usage: scripts/shm-measure.sh [openmpi|mpich|all] [PROCS...]   (default all, 2 4)
set -euo pipefail
source "$(dirname "$0")/env.sh"
what="${1:-all}"
shift || true
procs_list=("${@:-2 4}")
read -r -a procs_list <<< "${procs_list[*]}"
out="$LEANCAST_ROOT/docs/benchmarks/shm"
mkdir -p "$out"
sizes=64,1K,4K,16K,64K,256K,1M,4M,16M
shm=shm:4K,shm:16K,shm:64K,shm:256K
p2p=linear,binomial,knomial:4,pipeline-chain,scatter-ring-tuned,two-tree
run() { echo "+ $*" >&2; "$@"; }
# bench LAUNCHER... -- JSON ALGORITHMS [METHOD [ITERATIONS [REPS]]]
bench() {
  local launcher=()
  while [[ "$1" != -- ]]; do launcher+=("$1"); shift; done
  shift
  run timeout 900 "${launcher[@]}" ./leancast-bench --algorithms "$2" --baseline mpi \
    --sizes "$sizes" --method "${3:-osu}" --iterations "${4:-40}" --reps "${5:-5}" --quiet --json "$1"
}

if [[ "$what" == openmpi || "$what" == all ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  for procs in "${procs_list[@]}"; do
    launch=(mpirun --oversubscribe -n "$procs")
    if ((procs > 2)); then
      # Oversubscribed here (more ranks than the 2 cores): a smaller grid, MPI_Bcast and
      # leancast only; the library's configurations wait for a machine with the cores.
      sizes=1K,16K,64K,1M,16M
      bench "${launch[@]}" -- "$out/openmpi-p$procs-default.json" \
        "mpi,shm:16K,shm:64K,binomial,pipeline-chain,scatter-ring-tuned" osu 10 3
      continue
    fi
    bench "${launch[@]}" -- "$out/openmpi-p$procs-default.json" "mpi,$shm,$p2p"
    bench "${launch[@]}" -- "$out/openmpi-p$procs-default-paper.json" "mpi,$shm,$p2p" paper
    # coll_tuned's bcast algorithms 1-9 (linear, chain, pipeline, split binary tree, binary
    # tree, binomial, knomial, scatter_allgather, scatter_allgather_ring), forced.
    for algorithm in 1 2 3 4 5 6 7 8 9; do
      bench env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        OMPI_MCA_coll_tuned_bcast_algorithm="$algorithm" "${launch[@]}" -- \
        "$out/openmpi-p$procs-tuned-$algorithm.json" "mpi,$shm"
    done
    for component in han sm adapt; do
      bench env "OMPI_MCA_coll_${component}_priority=100" "${launch[@]}" -- \
        "$out/openmpi-p$procs-$component.json" "mpi,$shm"
    done
  done
fi

if [[ "$what" == mpich || "$what" == all ]]; then
  build_leancast mpich
  cd "$LEANCAST_ROOT/build/mpich"
  # MPICH 4.0 busy-polls: 2 ranks only on 2 cores.
  bench mpiexec.mpich -n 2 -- "$out/mpich-p2-default.json" "mpi,$shm,$p2p"
  bench env MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather mpiexec.mpich -n 2 -- \
    "$out/mpich-p2-release_gather.json" "mpi,$shm"
fi
/usr/bin/python3 "$LEANCAST_ROOT/scripts/shm-summary.py" "$out" > "$out/summary.md"
echo "wrote $out/summary.md" >&2
