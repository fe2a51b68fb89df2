#!/usr/bin/env bash
# auto beside the MPI library's own MPI_Bcast (mpi), side by side in one run, interleaved,
# per size from 1 KiB to 64 MiB (every 4x), back to back (--method paper) and with a barrier
# before each broadcast (--method osu):
#   real   Open MPI at P = 2 and 4 (4: oversubscribed on this machine's 2 cores), MPICH at P = 2
#   sim    SMPI, the one-node model at P = 8, 16, 24 and hornet at P = 64 (24 ranks per node),
#          mpi = SMPI's default, with SMPI's copies of Open MPI's and MPICH's selections
# Writes docs/auto/vs-mpi/*.json and summary.md (docs/auto.md quotes it).
# Usage: scripts/auto-vs-mpi.sh [real] [sim]   (default both; real wants an idle machine)
set -euo pipefail
source "$(dirname "$0")/env.sh"
# MPI_Bcast as Open MPI runs it by default (env.sh).
library_defaults
"$LEANCAST_ROOT/scripts/install-deps.sh"
out="$LEANCAST_ROOT/docs/auto/vs-mpi"
mkdir -p "$out"
parts=("$@")
((${#parts[@]})) || parts=(real sim)
run() { echo "+ $*"; "$@" > /dev/null; }
# Small sizes take many iterations to time, large ones few: two launches per configuration.
small=(--sizes 1K:256K:4 --iterations 200 --reps 9)
large=(--sizes 1M:64M:4 --iterations 10 --reps 9)

for part in "${parts[@]}"; do
  case $part in
    real)
      build_leancast openmpi
      build_leancast mpich
      for setup in "openmpi 2" "openmpi 4" "mpich 2"; do
        read -r flavor procs <<< "$setup"
        launch=(mpirun --oversubscribe -n "$procs")
        [[ $flavor == mpich ]] && launch=(mpiexec.mpich -bind-to core -n "$procs")
        for method in paper osu; do
          for grid in small large; do
            if [[ $grid == small ]]; then sizes=("${small[@]}"); else sizes=("${large[@]}"); fi
            run timeout 900 "${launch[@]}" "$LEANCAST_ROOT/build/$flavor/leancast-bench" \
              --algorithms auto,mpi --baseline mpi --method "$method" "${sizes[@]}" --quiet \
              --json "$out/real-$flavor-p$procs-$method-$grid.json"
          done
        done
      done ;;
    sim)
      build_leancast smpi
      for setup in "8 0" "16 0" "24 0" "64 24"; do
        read -r procs per_node <<< "$setup"
        layout=()
        ((per_node)) && layout=(--ranks-per-node "$per_node")
        for method in paper osu; do
          # A simulation repeats exactly: one repetition; large sizes need few iterations.
          for grid in "small 1K:256K:4 10" "large 1M:64M:4 2"; do
            read -r name sizes iterations <<< "$grid"
            run timeout 1800 "$LEANCAST_ROOT/build/smpi/leancast-sim" --platform hornet \
              --procs "$procs" "${layout[@]}" --algorithms auto,mpi,smpi:ompi,smpi:mpich \
              --baseline mpi --method "$method" --sizes "$sizes" --iterations "$iterations" \
              --json "$out/sim-hornet-p$procs-$method-$name.json"
          done
        done
      done ;;
    *) echo "unknown part $part (real, sim)" >&2; exit 2 ;;
  esac
done
python3 "$LEANCAST_ROOT/scripts/auto-summary.py" "$out"
