#!/usr/bin/env bash
# The main job, short: builds leancast, shows the paper's rings with leancast-plan (P = 8
# and P = 10), then broadcasts 1 MiB with every algorithm and MPI_Bcast on 4 local ranks,
# checking every byte. Installs its Debian packages first.
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
echo "== every algorithm on 4 local ranks (Open MPI), 1 MiB, data checked on every rank"
timeout 120 mpirun --oversubscribe -n 4 "$build/examples/bcast_check" 1048576
