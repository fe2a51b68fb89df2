#!/usr/bin/env bash
# Faults of the MPI libraries themselves that progress_stress ran into (docs/testing.md):
# plain MPI programs, no leancast. Each prints per rank how many of 200 tries went wrong.
#   Open MPI: MPI_Win_allocate on the two halves of a split at once (6 ranks), with vader's
#   single copy by cross-memory attach (the library's default) and off (the tests').
#   MPICH and Open MPI: a put into the right neighbour's MPI_Win_allocate window (3 ranks).
set -euo pipefail
source "$(dirname "$0")/env.sh"
here="$LEANCAST_ROOT/scripts/library-faults"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpicc.openmpi -o "$out/halves" "$here/win_allocate_halves.c"
mpicc.openmpi -o "$out/put-openmpi" "$here/win_put.c"
mpicc.mpich -o "$out/put-mpich" "$here/win_put.c"
for copy in cma none; do
  echo "== Open MPI (vader's single copy: $copy), MPI_Win_allocate on two halves at once"
  OMPI_MCA_btl_vader_single_copy_mechanism=$copy timeout 120 mpirun --oversubscribe -n 6 \
    "$out/halves" | sort
done
echo "== Open MPI, puts into MPI_Win_allocate windows"
timeout 120 mpirun --oversubscribe -n 3 "$out/put-openmpi" | sort
echo "== MPICH, puts into MPI_Win_allocate windows"
timeout 120 mpiexec.mpich -n 3 "$out/put-mpich" | sort
