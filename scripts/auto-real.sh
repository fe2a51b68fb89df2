#!/usr/bin/env bash
# auto on real MPI on this machine, beside MPICH's choice (scatter-ring), the tuned ring and
# the MPI library's own MPI_Bcast (mpi), at the paper's sizes plus 4 and 16 MiB: Open MPI at
# P = 2 (one rank per core) and P = 4 (oversubscribed), MPICH at P = 2. Writes
# docs/auto/real-*.json and .md (docs/auto.md quotes them). A few minutes on 2 cores; run
# it on an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
build_leancast openmpi
build_leancast mpich
out="$LEANCAST_ROOT/docs/auto"
mkdir -p "$out"
sizes=12288,524288,1048576,2097152,3000000,4194304,16777216
common=(--algorithms auto,scatter-ring,scatter-ring-tuned,mpi --baseline mpi --sizes "$sizes"
        --iterations 20 --warmup 2 --reps 10 --quiet)
run() { echo "+ $*"; "$@" > /dev/null; }

cd "$LEANCAST_ROOT/build/openmpi"
run timeout 900 mpirun --oversubscribe -n 2 ./leancast-bench "${common[@]}" --json "$out/real-openmpi-p2.json"
run timeout 900 mpirun --oversubscribe -n 4 ./leancast-bench "${common[@]}" --json "$out/real-openmpi-p4.json"
cd "$LEANCAST_ROOT/build/mpich"
run timeout 900 mpiexec.mpich -n 2 ./leancast-bench "${common[@]}" --json "$out/real-mpich-p2.json"

cd "$LEANCAST_ROOT"
for f in "$out"/real-*.json; do
  tools/report/leancast-report "$f" --out-dir "$out" > /dev/null
  mv "$out/summary.md" "${f%.json}.md"
done
scripts/real-summary.py "$out" > /dev/null
echo "wrote $out/real-* (real-summary.md: the table docs/auto.md shows)"
