#!/usr/bin/env bash
# leancast's within-node broadcasts (shm, cma, cma-split and auto) side by side in one run
# with the MPI library's MPI_Bcast, once per configuration of the library's broadcast: Open MPI's default,
# its vader with single-copy (CMA) on, coll_tuned's algorithms 1-9 forced one by one, its
# han, sm and adapt components; MPICH's default and release_gather. P = 2, osu method for
# every configuration and the paper method for the defaults; buffers rotated beyond the
# last-level cache above 4 MiB (leancast-bench --rotate-above 4M), and the node's memory
# bound beside each cell; then each library's default once more with the bench's buffers on
# transparent huge pages (--huge-pages, 1-64 MiB: the kernel's single copy pins pages one by
# one, so their size decides cma's speed) into huge-pages/. Then P = 4 (Open MPI,
# oversubscribed here), where auto defers to the library at 64 B and 1 KiB. Sizes below 64 KiB are timed 5000 times a cell, the others 20
# (--small-iterations): in a mean over 20 broadcasts of 64 B one preempted iteration weighs
# as much as all the others (a0be6e0's Open MPI cell: 12.6 us in one iteration, a mean of
# 1.6 us). Raw JSON to out/within-node/, then added to the evidence
# (evidence/within-node-2core.jsonl.gz, a run of the same name replaced; update its entry in
# evidence/manifest.json) and tabulated by scripts/within-node-summary.py.
# `modes` instead: 10 rounds about 30 s apart of shm:64K, cma and MPI_Bcast at 1 and 16 MiB
# under Open MPI, each with the bench's memory probe, whose cache line round trip between the
# two ranks tells this VM's two placements of its vCPUs apart (modes/round-N.json).
# `p4`: the P = 4 run alone.
# Usage: scripts/within-node-measure.sh [openmpi|mpich|all|modes|p4]   (default all)
set -euo pipefail
source "$(dirname "$0")/env.sh"
what="${1:-all}"
out="$LEANCAST_ROOT/out/within-node"
mkdir -p "$out"
sizes=64,1K,4K,16K,64K,256K,1M,4M,16M,64M
mine=auto,shm:8K,shm:16K,shm:64K,cma,cma:1M,cma-split,cma-split:1M
run() { echo "+ $*" >&2; "$@"; }
# bench LAUNCHER... -- JSON ALGORITHMS [METHOD [SIZES]]   ($reps repetitions)
reps=5
extra=()  # more bench options
bench() {
  local launcher=()
  while [[ "$1" != -- ]]; do launcher+=("$1"); shift; done
  shift
  run timeout 900 "${launcher[@]}" ./leancast-bench --algorithms "$2" --baseline mpi \
    --sizes "${4:-$sizes}" --method "${3:-osu}" --iterations 20 --small-iterations 5000 \
    --reps "$reps" --rotate-above 4M "${extra[@]}" \
    --quiet --json "$1"
}
# huge LAUNCHER... -- JSON: the default configuration, buffers on huge pages, 1-64 MiB.
huge() {
  mkdir -p "$out/huge-pages"
  extra=(--huge-pages)
  bench "$@" "mpi,$mine" osu 1M,4M,16M,64M
  extra=()
}

if [[ "$what" == openmpi || "$what" == all ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  launch=(mpirun --oversubscribe -n 2)
  bench "${launch[@]}" -- "$out/openmpi-p2-default.json" "mpi,$mine"
  bench "${launch[@]}" -- "$out/openmpi-p2-default-paper.json" "mpi,$mine" paper
  # env.sh turns vader's single copy off (it was refused in an earlier container); here it
  # is the library's default mechanism, so it is one of its configurations.
  bench env OMPI_MCA_btl_vader_single_copy_mechanism=cma "${launch[@]}" -- \
    "$out/openmpi-p2-vader-cma.json" "mpi,$mine"
  bench env OMPI_MCA_btl_vader_single_copy_mechanism=cma "${launch[@]}" -- \
    "$out/openmpi-p2-vader-cma-paper.json" "mpi,$mine" paper
  for algorithm in 1 2 3 4 5 6 7 8 9; do
    bench env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
      OMPI_MCA_coll_tuned_bcast_algorithm="$algorithm" "${launch[@]}" -- \
      "$out/openmpi-p2-tuned-$algorithm.json" "mpi,$mine"
  done
  for component in han sm adapt; do
    bench env "OMPI_MCA_coll_${component}_priority=100" "${launch[@]}" -- \
      "$out/openmpi-p2-$component.json" "mpi,$mine"
  done
  huge "${launch[@]}" -- "$out/huge-pages/openmpi-p2-default.json"
fi
if [[ "$what" == openmpi || "$what" == all || "$what" == p4 ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  # P = 4: auto defers to MPI_Bcast at 64 B (4 ranks on 2 cores). 21 repetitions: with 4
  # ranks on 2 cores one repetition's ratio at 64 B ranged 0.75-1.34 among 5 (20f13a4).
  reps=21
  bench mpirun --oversubscribe -n 4 -- "$out/openmpi-p4-default.json" "mpi,$mine" osu 64,1K,16K,1M
  reps=5
fi

if [[ "$what" == mpich || "$what" == all ]]; then
  build_leancast mpich
  cd "$LEANCAST_ROOT/build/mpich"
  # Each rank bound to a core, as Open MPI's mpirun binds by default and cluster launchers
  # do (hydra binds nothing by default: unbound shm:64K at 16 MiB took 3.97 ms against
  # 2.44 ms bound in one pair of runs, MPICH's own broadcast 4.36 and 4.39 ms; this VM's
  # two modes, docs/benchmarks.md, may explain that as well).
  launch=(mpiexec.mpich -bind-to core -n 2)
  bench "${launch[@]}" -- "$out/mpich-p2-default.json" "mpi,$mine"
  bench "${launch[@]}" -- "$out/mpich-p2-default-paper.json" "mpi,$mine" paper
  bench env MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather "${launch[@]}" -- \
    "$out/mpich-p2-release_gather.json" "mpi,$mine"
  huge "${launch[@]}" -- "$out/huge-pages/mpich-p2-default.json"
fi

if [[ "$what" == modes ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  mkdir -p "$out/modes"
  for round in $(seq 1 10); do
    ((round == 1)) || sleep 30
    bench mpirun --oversubscribe -n 2 -- "$out/modes/round-$round.json" mpi,shm:64K,cma osu 1M,16M
  done
fi
cd "$LEANCAST_ROOT"
mapfile -t made < <(find out/within-node -name '*.json' | sort)
python3 tools/tune/leancast_tune/evidence.py --add evidence/within-node-2core.jsonl.gz \
  "${made[@]}"
python3 scripts/within-node-summary.py evidence/within-node-2core.jsonl.gz
