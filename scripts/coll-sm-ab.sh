#!/usr/bin/env bash
# Two builds of leancast against Open MPI's coll sm (its shared-memory broadcast, forced with
# OMPI_MCA_coll_sm_priority=100) at P = 2, alternating before and after, three runs each
# under both timing methods: a barrier before each broadcast (osu) and back to back (paper).
# Raw JSON to OUT as LABEL-METHOD-RUN.json; then the table of each run's median ratio
# coll sm time / leancast time (> 1: leancast faster), per algorithm and size.
# Usage: scripts/coll-sm-ab.sh BEFORE_BUILD AFTER_BUILD OUT [ALGORITHMS] [SIZES]
#   e.g. scripts/coll-sm-ab.sh /tmp/before/build/openmpi build/openmpi \
#          docs/benchmarks/call-path/copies-ab
set -euo pipefail
source "$(dirname "$0")/env.sh"
before="$(cd "$1" && pwd)" after="$(cd "$2" && pwd)"
mkdir -p "$3"
out="$(cd "$3" && pwd)"
algorithms="${4:-mpi,shm:8K,shm:16K}" sizes="${5:-64,1K,4K,16K}"
for run in 1 2 3; do
  for method in osu paper; do
    for label in before after; do
      build="$before"
      [[ "$label" == after ]] && build="$after"
      echo "+ $label $method $run" >&2
      (cd "$build" && OMPI_MCA_coll_sm_priority=100 timeout 300 mpirun --oversubscribe -n 2 \
        ./leancast-bench --algorithms "$algorithms" --baseline mpi --sizes "$sizes" \
        --method "$method" --iterations 4000 --reps 11 --no-memory-bound --quiet \
        --json "$out/$label-$method-$run.json")
    done
  done
done
/usr/bin/python3 - "$out" "$*" > "$out/summary.md" <<'PY'
import json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
table, seen = {}, {}
for path in sorted(out.glob("*-*-*.json")):
    label, method, run = path.stem.split("-")
    data = json.loads(path.read_text())
    env = data["environment"]
    seen.setdefault(label, set()).add(env["git_revision"])
    seen.setdefault("dates", set()).add(env["date"])
    seen["library"], seen["cpu"] = env["mpi_library"], env["cpu_model"]
    for cell in data["results"]:
        if cell["algorithm"] == "mpi":
            continue
        ratio = statistics.median(r["speedup_vs_baseline"] for r in cell["reps"])
        table.setdefault((cell["algorithm"], method, label), {}).setdefault(cell["bytes"], []).append((int(run), ratio))
sizes = sorted({b for row in table.values() for b in row})
def name(b):
    return f"{b // 1024} KiB" if b >= 1024 else f"{b} B"
print(f"# leancast against Open MPI's coll sm, P = 2 (scripts/coll-sm-ab.sh {sys.argv[2]})\n")
print(f"{seen['library']}; {seen['cpu']}; runs from {min(seen['dates'])} to {max(seen['dates'])}; "
      f"before: revision {', '.join(sorted(seen['before']))}, after: {', '.join(sorted(seen['after']))}. "
      "Each cell: the three runs' medians (over 11 repetitions) of coll sm time / leancast time; > 1: leancast faster.\n")
print("| algorithm, method, build | " + " | ".join(name(b) for b in sizes) + " |")
print("|---" * (len(sizes) + 1) + "|")
for key in sorted(table):
    row = table[key]
    cells = [", ".join(f"{r:.2f}" for _, r in sorted(row.get(b, []))) for b in sizes]
    print(f"| {key[0]}, {key[1]}, {key[2]} | " + " | ".join(cells) + " |")
PY
cat "$out/summary.md"
