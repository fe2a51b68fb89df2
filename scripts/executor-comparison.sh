#!/usr/bin/env bash
# The dataflow executor against the round-by-round one, side by side in one run
# (leancast-bench's NAME@dataflow and NAME@rounds), for every algorithm, beside the MPI
# library's MPI_Bcast: Open MPI and MPICH at P = 2 and 4 here, SMPI's hornet at P = 64
# (24 ranks per node and one per node), and a sweep of the two windows. Raw JSON and the
# summary tables go to docs/benchmarks/executor/; docs/benchmarks.md quotes them.
# Usage: scripts/executor-comparison.sh [real|sim|windows|all]   (default all)
set -euo pipefail
source "$(dirname "$0")/env.sh"
what="${1:-all}"
out="$LEANCAST_ROOT/docs/benchmarks/executor"
mkdir -p "$out"
run() { echo "+ $*"; "$@"; }
algorithms=(linear binomial hypercube scatter-doubling scatter-ring scatter-ring-tuned
            pipeline-chain pipeline-binary-tree two-tree knomial circulant)
both() {  # NAME@dataflow,NAME@rounds for each algorithm given, then mpi
  local list=""
  for a in "$@"; do list+="$a@dataflow,$a@rounds,"; done
  echo "${list}mpi"
}
summary() { /usr/bin/python3 "$LEANCAST_ROOT/scripts/executor-summary.py" "$@"; }

if [[ "$what" == real || "$what" == all ]]; then
  build_leancast openmpi
  build_leancast mpich
  cd "$LEANCAST_ROOT/build/openmpi"
  for procs in 2 4; do
    run timeout 1200 mpirun --oversubscribe -n "$procs" ./leancast-bench \
      --algorithms "$(both "${algorithms[@]}")" --baseline mpi --sizes 1K,16K,64K,256K,1M,4M \
      --iterations 30 --reps 5 --quiet --json "$out/openmpi-p$procs.json"
  done
  cd "$LEANCAST_ROOT/build/mpich"
  run timeout 1200 mpiexec.mpich -n 2 ./leancast-bench \
    --algorithms "$(both "${algorithms[@]}")" --baseline mpi --sizes 1K,16K,64K,256K,1M,4M \
    --iterations 30 --reps 5 --quiet --json "$out/mpich-p2.json"
  # MPICH busy-polls: 4 ranks on 2 cores are ~100x slower, so few algorithms and iterations.
  run timeout 1200 mpiexec.mpich -n 4 ./leancast-bench \
    --algorithms "$(both binomial scatter-ring-tuned pipeline-chain two-tree)" --baseline mpi \
    --sizes 16K,1M --iterations 3 --reps 3 --quiet --json "$out/mpich-p4.json"
fi

if [[ "$what" == sim || "$what" == all ]]; then
  build_leancast smpi
  # The paper's method, as these runs were made (leancast-sim's default is now sync).
  sim="$LEANCAST_ROOT/build/smpi/leancast-sim"
  run timeout 1800 "$sim" --method paper --platform hornet --procs 64 \
    --algorithms "$(both "${algorithms[@]}" node-aware)" --baseline mpi --iterations 2 \
    --sizes 16K,256K,4M --json "$out/smpi-hornet-p64.json"
  run timeout 1800 "$sim" --method paper --platform hornet --procs 64 --ranks-per-node 1 \
    --algorithms "$(both "${algorithms[@]}")" --baseline mpi --iterations 2 \
    --sizes 16K,256K,4M --json "$out/smpi-hornet-p64-ppn1.json"
fi

if [[ "$what" == windows || "$what" == all ]]; then
  build_leancast openmpi
  cd "$LEANCAST_ROOT/build/openmpi"
  # Separate runs (the windows are per-process settings), each with the rounds executor
  # beside it as the yardstick.
  for windows in 1:1 4:1 16:1 4:2 4:4; do
    run env LEANCAST_WINDOW="${windows%:*}" LEANCAST_SEND_WINDOW="${windows#*:}" \
      timeout 1200 mpirun --oversubscribe -n 4 -x LEANCAST_WINDOW -x LEANCAST_SEND_WINDOW \
      ./leancast-bench --algorithms "$(both binomial scatter-ring-tuned pipeline-chain two-tree)" \
      --baseline mpi --sizes 64K,1M,4M --iterations 30 --reps 5 --quiet \
      --json "$out/windows-openmpi-p4-w${windows%:*}-s${windows#*:}.json"
  done
fi

summary "$out" > "$out/summary.md"
echo "summary: $out/summary.md"
