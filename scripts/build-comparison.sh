#!/usr/bin/env bash
# Two builds of leancast side by side: OLD (a git revision) and the working tree, P = 2, under
# Open MPI and MPICH, their launches alternating old, new, old, new ... so that both see the
# same machine: leancast-bench (blocking), leancast-overlap-bench (nonblocking latency) and
# leancast-call-path-bench (whole small calls, ns each). Every launch's times go into one
# JSON Lines file; scripts/build-comparison.py pairs each repetition of an old launch with
# the same repetition of the new launch of its round and prints the median of those ratios
# per cell (old time / new time: below 1, the new build is slower).
# Usage: scripts/build-comparison.sh OLD_REVISION [ROUNDS] [OUT.jsonl]   (an idle machine)
set -euo pipefail
source "$(dirname "$0")/env.sh"
old=$(git -C "$LEANCAST_ROOT" rev-parse --short "${1:?usage: $0 OLD_REVISION [ROUNDS] [OUT]}")
rounds=${2:-3}
out=${3:-$LEANCAST_ROOT/build/comparison-$old.jsonl}
new=$(git -C "$LEANCAST_ROOT" rev-parse --short HEAD)
git -C "$LEANCAST_ROOT" diff --quiet HEAD || new="$new+changes"
tree="$LEANCAST_ROOT/build/compare-$old"  # the old revision's sources and builds
[[ -d $tree/src ]] || git -C "$LEANCAST_ROOT" worktree add --detach "$tree" "$old" > /dev/null
tools=(leancast-bench leancast-overlap-bench leancast-call-path-bench)
sizes=64,1K,64K,1M,16M
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
# record SIDE LIBRARY TOOL ROUND FILE: the launch's JSON as one line.
record() {
  python3 -c 'import json, sys
side, library, tool, rnd, path = sys.argv[1:]
print(json.dumps({"side": side, "library": library, "tool": tool, "round": int(rnd),
                  "run": json.load(open(path))}, separators=(",", ":")))' "$@" >> "$out"
}
for flavor in openmpi mpich; do
  cmake -S "$tree" -B "$tree/build-$flavor" -DLEANCAST_MPI="$flavor" -DLEANCAST_BUILD_TESTS=OFF \
    -DLEANCAST_CALL_COST_BENCHES=ON > /dev/null
  cmake --build "$tree/build-$flavor" -j "$JOBS" --target "${tools[@]}" > /dev/null
  build_leancast "$flavor"
  launch=(mpirun -n 2)
  [[ $flavor == mpich ]] && launch=(mpiexec.mpich -n 2)
  for round in $(seq 1 "$rounds"); do
    for side in old new; do
      dir=$LEANCAST_ROOT/build/$flavor
      [[ $side == old ]] && dir=$tree/build-$flavor
      echo "+ $flavor round $round, $side build"
      timeout 600 "${launch[@]}" "$dir/leancast-bench" --algorithms auto,binomial,shm,mpi \
        --baseline mpi --sizes "$sizes" --iterations 50 --small-iterations 20000 --reps 5 --quiet --no-memory-bound \
        --json "$tmp/bench.json" > /dev/null
      record "$side" "$flavor" leancast-bench "$round" "$tmp/bench.json"
      timeout 600 "${launch[@]}" "$dir/leancast-overlap-bench" --algorithms mpi,auto,binomial \
        --sizes "$sizes" --reps 5 --max-iterations 2000 --json "$tmp/overlap.json" > /dev/null
      record "$side" "$flavor" leancast-overlap-bench "$round" "$tmp/overlap.json"
      timeout 600 "${launch[@]}" "$dir/leancast-call-path-bench" --no-steps --sizes 64,1K \
        --json "$tmp/calls.json" > /dev/null
      record "$side" "$flavor" leancast-call-path-bench "$round" "$tmp/calls.json"
    done
  done
done
echo "scripts/build-comparison.sh $*: $old against $new"
python3 "$LEANCAST_ROOT/scripts/build-comparison.py" "$out"
