#!/usr/bin/env bash
# shm's reader with and without streaming stores (LEANCAST_STREAM_ABOVE=1: every message;
# off: none), Open MPI, P = 2, osu method, alternating three times, each way with buffers
# rotated beyond the cache (cold: --rotate-buffers on) and with one buffer reused (hot).
# Raw JSON and summary.md to docs/benchmarks/shm-stream/; how the default threshold (8 MiB,
# src/select/settings.hpp) follows from this run and an earlier one: docs/algorithms.md#shm-new.
# Usage: scripts/stream-ab.sh   (an otherwise idle machine)
set -euo pipefail
source "$(dirname "$0")/env.sh"
out="$LEANCAST_ROOT/docs/benchmarks/shm-stream"
mkdir -p "$out"
build_leancast openmpi
cd "$LEANCAST_ROOT/build/openmpi"
for round in 1 2 3; do
  for place in cold hot; do
    rotate=on
    [[ $place == hot ]] && rotate=off
    for stream in off 1; do
      echo "+ round $round, $place, LEANCAST_STREAM_ABOVE=$stream" >&2
      timeout 300 mpirun --oversubscribe -x LEANCAST_STREAM_ABOVE="$stream" -n 2 ./leancast-bench \
        --algorithms mpi,shm:16K,shm:64K --baseline mpi --sizes 1M,4M,16M,32M,64M --method osu \
        --iterations 10 --reps 5 --rotate-buffers "$rotate" --quiet \
        --json "$out/$place-stream-$stream-$round.json" > /dev/null
    done
  done
done
python3 - "$out" "$(git -C "$LEANCAST_ROOT" rev-parse --short HEAD)" <<'PY'
import glob, json, os, statistics, sys
out, commit = sys.argv[1], sys.argv[2]
times = {}  # (place, stream, algorithm, bytes) -> [median seconds per round]
bound = {}
for path in sorted(glob.glob(os.path.join(out, "*-stream-*.json"))):
    place, _, stream, _ = os.path.basename(path)[:-5].split("-")
    run = json.load(open(path))
    for cell in run["results"]:
        key = (place, stream, cell["algorithm"], cell["bytes"])
        times.setdefault(key, []).append(cell["summary"]["seconds_per_bcast"]["median"])
        if cell.get("memory_bound_seconds"):
            bound.setdefault((place, stream, cell["bytes"]), []).append(cell["memory_bound_seconds"])
sizes = sorted({k[3] for k in times})
lines = [f"# shm with and without streaming stores (scripts/stream-ab.sh, git {commit})", "",
         "Open MPI, P = 2, osu method, three alternating rounds. Each cell: the median over the",
         "rounds of shm's median time, in µs, without streaming (off) and with it (every",
         "message), their ratio (> 1: streaming faster), and time / memory bound streamed.",
         "cold: buffers rotated beyond the cache; hot: one buffer reused.", ""]
for place in ("cold", "hot"):
    lines += [f"## {place}", "", "| bytes | algorithm | off µs | streamed µs | off / streamed | time / bound streamed |",
              "|---:|---|---:|---:|---:|---:|"]
    for size in sizes:
        for algorithm in ("shm:16K", "shm:64K"):
            off = statistics.median(times[(place, "off", algorithm, size)])
            on = statistics.median(times[(place, "1", algorithm, size)])
            b = statistics.median(bound[(place, "1", size)]) if (place, "1", size) in bound else None
            label = f"{size >> 20} MiB"
            lines.append(f"| {label} | {algorithm} | {off * 1e6:.0f} | {on * 1e6:.0f} | {off / on:.2f} | "
                         + (f"{on / b:.2f}" if b else "") + " |")
    lines.append("")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines))
print("\n".join(lines))
PY
