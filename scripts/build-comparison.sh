#!/usr/bin/env bash
# Two builds of leancast side by side: OLD (a git revision) and the working tree, each
# measuring the same algorithms against the library's MPI_Bcast (mpi) with leancast-bench,
# their launches alternating old, new, old, new ... so that both see the same machine.
# Within a launch every contender runs interleaved (leancast-bench's repetitions), so each
# launch gives a speedup over mpi per algorithm and size; the summary puts the two builds'
# medians and ranges side by side (scripts/build-comparison.py). Real Open MPI, P = 2 and 4.
# Writes docs/benchmarks/build-comparison/OLD-vs-NEW/*.json and summary.md.
# Usage: scripts/build-comparison.sh OLD_REVISION [ROUNDS]   (an idle machine)
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
old=$(git -C "$LEANCAST_ROOT" rev-parse --short "${1:?usage: $0 OLD_REVISION [ROUNDS]}")
rounds=${2:-3}
new=$(git -C "$LEANCAST_ROOT" rev-parse --short HEAD)
git -C "$LEANCAST_ROOT" diff --quiet HEAD || new="$new+changes"
tree="$LEANCAST_ROOT/build/compare-$old"  # the old revision's sources and build
[[ -d $tree/src ]] || git -C "$LEANCAST_ROOT" worktree add --detach "$tree" "$old" > /dev/null
cmake -S "$tree" -B "$tree/build" -DLEANCAST_MPI=openmpi > /dev/null
cmake --build "$tree/build" -j "$JOBS" --target leancast-bench > /dev/null
build_leancast openmpi
out="$LEANCAST_ROOT/docs/benchmarks/build-comparison/$old-vs-${new//+/-}"
mkdir -p "$out"
algorithms=binomial,scatter-ring-tuned,pipeline-chain,two-tree,shm,mpi
# The same buffers on both sides: one buffer reused, as benches before buffer rotation
# (3e9270e) could only do.
new_buffers=(--rotate-buffers off) old_buffers=()
"$tree/build/leancast-bench" --help 2>/dev/null | grep -q -- --rotate-buffers &&
  old_buffers=(--rotate-buffers off)
for round in $(seq 1 "$rounds"); do
  for procs in 2 4; do
    for side in old new; do
      bench="$LEANCAST_ROOT/build/openmpi/leancast-bench" buffers=("${new_buffers[@]}")
      [[ $side == old ]] && bench="$tree/build/leancast-bench" buffers=("${old_buffers[@]}")
      echo "+ round $round, P = $procs, $side build"
      timeout 600 mpirun --oversubscribe -n "$procs" "$bench" --algorithms "$algorithms" \
        --baseline mpi --sizes 4K:16M:16 --iterations 20 --reps 5 --quiet "${buffers[@]}" \
        --json "$out/$side-p$procs-round$round.json" > /dev/null
    done
  done
done
python3 "$LEANCAST_ROOT/scripts/build-comparison.py" "$out" "$old" "$new" \
  "scripts/build-comparison.sh $*" > "$out/summary.md"
cat "$out/summary.md"
