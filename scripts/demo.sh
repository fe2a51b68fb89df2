#!/usr/bin/env bash
# The main job, short: builds leancast, shows the paper's rings with leancast-plan (P = 8
# and P = 10), then broadcasts 1 MiB with every algorithm and MPI_Bcast on 4 local ranks,
# checking every byte; then a short leancast-bench run beside MPI_Bcast, plotted by
# leancast-report into out/; MPI_Ibcast beside LC_Ibcast (leancast-overlap-bench); then
# the rings at P = 64 simulated with SMPI on the hornet model, each under leancast's default
# executor and round by round, beside SMPI's copy of MPICH's ring, and auto beside SMPI's
# MPI_Bcast and its MPICH and Open MPI selectors. Every speedup is over the library's
# MPI_Bcast. Installs its Debian packages first.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
build_leancast openmpi
build="$LEANCAST_ROOT/build/openmpi"
for procs in 8 10; do
  for algorithm in scatter-ring scatter-ring-tuned; do
    echo "== leancast-plan --algorithm $algorithm --procs $procs --bytes 1M"
    "$build/leancast-plan" --algorithm "$algorithm" --procs "$procs" --bytes 1M
    echo
  done
done
echo "== every algorithm on 4 local ranks (Open MPI), 1 MiB, data checked on every rank;"
echo "   the time is a warm call's (the first makes shared memory for shm; one call is noisy)"
# Every name in leancast's registry (auto and mpi too), as leancast-plan lists them.
mapfile -t algorithms < <("$build/leancast-plan" --list-algorithms)
timeout 120 mpirun --oversubscribe -n 4 "$build/examples/bcast_check" 1048576 "${algorithms[@]}"
echo
echo "== node-aware on 4 ranks grouped as 2 nodes of 2 (LEANCAST_RANKS_PER_NODE=2), with the log"
LEANCAST_RANKS_PER_NODE=2 LEANCAST_VERBOSE=1 timeout 120 mpirun --oversubscribe -n 4 \
  -x LEANCAST_RANKS_PER_NODE -x LEANCAST_VERBOSE "$build/examples/bcast_check" 1048576 \
  node-aware:binomial/pipeline-chain node-aware
echo
echo "== leancast-plan --compare: every algorithm by the alpha-beta model, P = 64, 4 MiB"
"$build/leancast-plan" --compare --procs 64 --bytes 4M --alpha 2e-6 --beta 1e-10

echo
echo "== leancast-bench: every algorithm beside MPI_Bcast on 2 ranks, interleaved, 5 repetitions"
mkdir -p "$LEANCAST_ROOT/out"
timeout 300 mpirun --oversubscribe -n 2 "$build/leancast-bench" \
  --algorithms linear,binomial,hypercube,scatter-doubling,scatter-ring,scatter-ring-tuned,auto,mpi \
  --baseline mpi --sizes 16K:4M:4 --iterations 50 --reps 5 --json "$LEANCAST_ROOT/out/demo-bench.json"
"$LEANCAST_ROOT/tools/report/leancast-report" "$LEANCAST_ROOT/out/demo-bench.json" \
  --out-dir "$LEANCAST_ROOT/out" | grep "wrote"
echo "The bandwidth plot is $LEANCAST_ROOT/out/demo-bench-bandwidth.png"

echo
echo "== nonblocking: MPI_Ibcast beside LC_Ibcast on 2 ranks, latency and OSU overlap (10 MPI_Test calls)"
timeout 300 mpirun --oversubscribe -n 2 "$build/leancast-overlap-bench" \
  --algorithms mpi,auto,scatter-ring-tuned --sizes 64K,1M --reps 3 --test-calls 10 \
  --json "$LEANCAST_ROOT/out/demo-overlap.json"

echo
echo "== the same comparison at paper scale: SimGrid SMPI, P = 64 on the hornet model (Cray XC40),"
echo "   24 ranks per node; each ring under leancast's default executor (dataflow:1) and round by"
echo "   round (@rounds, as MPICH runs its ring), speedups over SMPI's MPI_Bcast (mpi); one"
echo "   broadcast per cell, every simulated rank starting at the same instant (--method sync)"
build_leancast smpi
mkdir -p "$LEANCAST_ROOT/out/sim"
timeout 600 "$LEANCAST_ROOT/build/smpi/leancast-sim" --platform hornet --procs 64 \
  --algorithms mpi,scatter-ring,scatter-ring@rounds,scatter-ring-tuned,scatter-ring-tuned@rounds,smpi:scatter_LR_allgather,auto,smpi:mpich,smpi:ompi \
  --baseline mpi --sizes 64K,512K,3M --json "$LEANCAST_ROOT/out/sim/hornet-p64.json"
"$LEANCAST_ROOT/tools/report/leancast-report" "$LEANCAST_ROOT/out/sim/hornet-p64.json" \
  --out-dir "$LEANCAST_ROOT/out/sim" | grep "wrote"
echo "auto runs a leancast algorithm only where its table measured one faster than the library's"
echo "broadcast; elsewhere it is the library's own MPI_Bcast (here SMPI's): docs/auto.md"
