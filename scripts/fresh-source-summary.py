#!/usr/bin/env python3
"""The table of scripts/fresh-source.sh: per library, root's data (unchanged between
broadcasts or rewritten before each) and placement of the VM's two vCPUs (near: a cache
line's round trip below 300 ns; far: at or above), and per size, the median over
repetitions of MPI_Bcast's time / auto's (> 1: auto faster; auto and mpi share each
repetition), with the launches counted.
Usage: fresh-source-summary.py RUNS.jsonl[.gz]"""
import collections
import gzip
import json
import statistics
import sys

NEAR_BELOW = 300e-9


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        runs = [json.loads(line) for line in f if line.strip()]
    ratios = collections.defaultdict(list)  # (library, source, placement, bytes) -> ratios
    launches = collections.Counter()
    trips = collections.defaultdict(list)
    for run in runs:
        placement = "near" if run["round_trip_seconds"] < NEAR_BELOW else "far"
        row = (run["library"], run["source"], placement)
        launches[row] += 1
        trips[row].append(run["round_trip_seconds"] * 1e9)
        times = {(name, size): values for name, size, values in run["times"]}
        for (name, size), auto in times.items():
            if name == "auto":
                ratios[row + (size,)] += [m / a for m, a in zip(times[("mpi", size)], auto)]
    sizes = sorted({key[3] for key in ratios})
    revisions = ", ".join(sorted({str(run["revision"]) for run in runs}))
    print(f"leancast {revisions}: MPI_Bcast time / auto time, the median over repetitions.\n")
    print("| library | root's data | placement (round trip, ns) | launches | "
          + " | ".join(f"{s} B" for s in sizes) + " |")
    print("|---|---|---|---:|" + "---:|" * len(sizes))
    for row in sorted(launches):
        cells = [f"{statistics.median(ratios[row + (s,)]):.2f}" if ratios[row + (s,)] else ""
                 for s in sizes]
        span = f"{row[2]} ({min(trips[row]):.0f}–{max(trips[row]):.0f})"
        print(f"| {row[0]} | {row[1]} | {span} | {launches[row]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
