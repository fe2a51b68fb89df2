#!/usr/bin/env bash
# Regenerates the measurements of docs/benchmarks.md on this machine: JSON, plots and
# summaries under docs/benchmarks/. Takes a few minutes on 2 cores. Every command it runs
# is printed first (and is the command quoted in the doc).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
build_leancast openmpi
build_leancast mpich
out="$LEANCAST_ROOT/docs/benchmarks"
mkdir -p "$out"
all=linear,binomial,hypercube,scatter-doubling,scatter-ring,scatter-ring-tuned,auto,mpi
common=(--algorithms "$all" --sizes 16K:4M:4 --iterations 100 --reps 10 --quiet)
run() { echo "+ $*"; "$@"; }

cd "$LEANCAST_ROOT/build/openmpi"
for procs in 2 3 4; do
  run timeout 900 mpirun --oversubscribe -n "$procs" ./leancast-bench "${common[@]}" \
    --json "$out/openmpi-p$procs.json"
done
# The same command without and with the interposer: under it, `mpi` is leancast's (auto).
before_after=(--algorithms binomial,mpi --baseline binomial --sizes 16K:4M:4 --iterations 100
              --reps 30 --quiet)
run timeout 900 mpirun --oversubscribe -n 2 ./leancast-bench "${before_after[@]}" \
  --json "$out/interposer-openmpi-p2-without.json"
run timeout 900 mpirun --oversubscribe -n 2 -x LD_PRELOAD="$PWD/libleancast_pmpi_openmpi.so" \
  ./leancast-bench "${before_after[@]}" --json "$out/interposer-openmpi-p2-with.json"
# The pipelines, two-tree and knomial beside the rings and MPI_Bcast on 4 oversubscribed ranks.
run timeout 900 mpirun --oversubscribe -n 4 ./leancast-bench \
  --algorithms scatter-ring,scatter-ring-tuned,scatter-doubling,binomial,knomial,pipeline-chain,pipeline-binary-tree,two-tree,auto,mpi \
  --sizes 64K:16M:4 --iterations 20 --reps 5 --quiet --json "$out/new-algorithms-openmpi-p4.json"
cd "$LEANCAST_ROOT/build/mpich"
run timeout 900 mpiexec.mpich -n 2 ./leancast-bench "${common[@]}" --json "$out/mpich-p2.json"
# MPICH busy-polls: 3 ranks on 2 cores are far slower, so fewer iterations.
run timeout 900 mpiexec.mpich -n 3 ./leancast-bench --algorithms "$all" --sizes 16K:4M:4 \
  --iterations 10 --reps 5 --quiet --json "$out/mpich-p3.json"
# leancast's executor against MPICH's own scatter + enclosed ring (the same messages).
run env MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather \
  timeout 900 mpiexec.mpich -n 2 ./leancast-bench --algorithms scatter-ring,scatter-ring-tuned,mpi \
  --sizes 64K,1M,4M --iterations 100 --reps 20 --quiet --json "$out/mpich-ring-vs-own-ring-p2.json"
run env MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather \
  timeout 900 mpiexec.mpich -n 3 ./leancast-bench --algorithms scatter-ring,scatter-ring-tuned,mpi \
  --sizes 1M --iterations 20 --reps 10 --quiet --json "$out/mpich-ring-vs-own-ring-p3.json"

cd "$LEANCAST_ROOT"
for f in "$out"/*.json; do
  tools/report/leancast-report "$f" --out-dir "$out" >/dev/null
  mv "$out/summary.md" "${f%.json}.md"
done
tools/report/leancast-report "$out"/openmpi-p{2,3,4}.json --out-dir "$out/openmpi-procs" >/dev/null
rm -f "$out"/openmpi-p{2,3,4}.md   # the same tables are in openmpi-procs/summary.md
echo "wrote $out"
