#!/usr/bin/env bash
# Two builds of leancast side by side: OLD (a git revision) and the working tree, P = 2, under
# Open MPI and MPICH, their launches alternating old, new, old, new ... so that both see the
# same machine: leancast-bench (blocking), leancast-overlap-bench (nonblocking latency) and
# leancast-call-path-bench (whole small calls, ns each). Every launch's times go into one
# JSON Lines file; scripts/build-comparison.py pairs each repetition of an old launch with
# the same repetition of the new launch of its round and prints the median of those ratios
# per cell (old time / new time: below 1, the new build is slower).
# Usage: scripts/build-comparison.sh OLD_REVISION [ROUNDS] [OUT.jsonl]   (an idle machine)
# A rerun of some cells in another launch context: LIBRARIES (openmpi mpich), TOOLS (all
# three), ALGORITHMS (leancast-bench's: auto,binomial,shm,mpi), SIZES (64,1K,64K,1M,16M), and
# LABEL, which names the comparison in the JSON Lines (build-comparison.py: one table each).
set -euo pipefail
source "$(dirname "$0")/env.sh"
old=$(git -C "$LEANCAST_ROOT" rev-parse --short "${1:?usage: $0 OLD_REVISION [ROUNDS] [OUT]}")
rounds=${2:-3}
out=${3:-$LEANCAST_ROOT/build/comparison-$old.jsonl}
new=$(git -C "$LEANCAST_ROOT" rev-parse --short HEAD)
git -C "$LEANCAST_ROOT" diff --quiet HEAD || new="$new+changes"
tree="$LEANCAST_ROOT/build/compare-$old"  # the old revision's sources and builds
[[ -d $tree/src ]] || git -C "$LEANCAST_ROOT" worktree add --detach "$tree" "$old" > /dev/null
read -r -a libraries <<< "${LIBRARIES:-openmpi mpich}"
read -r -a tools <<< "${TOOLS:-leancast-bench leancast-overlap-bench leancast-call-path-bench}"
algorithms=${ALGORITHMS:-auto,binomial,shm,mpi}
sizes=${SIZES:-64,1K,64K,1M,16M}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
# record SIDE LIBRARY TOOL ROUND FILE: the launch's JSON as one line.
record() {
  python3 -c 'import json, sys
side, library, tool, rnd, path, label = sys.argv[1:]
print(json.dumps({"side": side, "library": library, "tool": tool, "round": int(rnd),
                  "run": json.load(open(path))} | ({"comparison": label} if label else {}),
                 separators=(",", ":")))' "$@" "${LABEL:-}" >> "$out"
}
for flavor in "${libraries[@]}"; do
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
      for tool in "${tools[@]}"; do
        case $tool in
          leancast-bench)
            args=(--algorithms "$algorithms" --baseline mpi --sizes "$sizes" --iterations 50
              --small-iterations 20000 --reps 5 --quiet --no-memory-bound) ;;
          leancast-overlap-bench)
            args=(--algorithms mpi,auto,binomial --sizes "$sizes" --reps 5 --max-iterations 2000) ;;
          *) args=(--no-steps --sizes 64,1K) ;;
        esac
        timeout 600 "${launch[@]}" "$dir/$tool" "${args[@]}" --json "$tmp/run.json" > /dev/null
        record "$side" "$flavor" "$tool" "$round" "$tmp/run.json"
      done
    done
  done
done
echo "scripts/build-comparison.sh $*: $old against $new"
python3 "$LEANCAST_ROOT/scripts/build-comparison.py" "$out"
