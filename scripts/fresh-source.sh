#!/usr/bin/env bash
# auto beside the library's MPI_Bcast at P = 2 with the root's data unchanged between
# broadcasts (as leancast-bench times by default: the reader's cached copy of the root's
# buffer stays valid, which a single copy by cross-memory attach reads at cache speed) and
# rewritten before each one (--check: the root writes fresh data outside the timed call, as
# an application that broadcasts what it just computed), in alternating launches, osu
# method, Open MPI (vader's single copy by cross-memory attach) and MPICH, each launch with
# the bench's cache-line round trip, which tells this VM's placements apart. One JSON line
# per launch into OUT; scripts/fresh-source-summary.py prints the table.
# Usage: scripts/fresh-source.sh [ROUNDS] [OUT.jsonl]   (an idle machine)
set -euo pipefail
source "$(dirname "$0")/env.sh"
library_defaults
rounds=${1:-4}
out=${2:-$LEANCAST_ROOT/out/fresh-source.jsonl}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
for round in $(seq 1 "$rounds"); do
  for flavor in openmpi mpich; do
    launch=(mpirun -n 2)
    [[ $flavor == mpich ]] && launch=(mpiexec.mpich -n 2)
    for source in unchanged rewritten; do
      check=()
      [[ $source == rewritten ]] && check=(--check)
      echo "+ round $round, $flavor, root's data $source"
      timeout 600 "${launch[@]}" "$LEANCAST_ROOT/build/$flavor/leancast-bench" \
        --algorithms auto,mpi --baseline mpi --sizes 1K,16K,64K,256K,1M --method osu \
        "${check[@]}" --iterations 500 --small-iterations 2000 --reps 5 --quiet \
        --json "$tmp/run.json" > /dev/null
      python3 -c 'import json, sys
library, source, rnd, path = sys.argv[1:]
run = json.load(open(path))
print(json.dumps({"library": library, "source": source, "round": int(rnd),
                  "revision": run["environment"].get("git_revision"),
                  "round_trip_seconds": run.get("core_round_trip_seconds"),
                  "times": [[r["algorithm"], r["bytes"], [x["seconds_per_bcast"] for x in r["reps"]]]
                            for r in run["results"]]}, separators=(",", ":")))' \
        "$flavor" "$source" "$round" "$tmp/run.json" >> "$out"
    done
  done
done
python3 "$LEANCAST_ROOT/scripts/fresh-source-summary.py" "$out"
