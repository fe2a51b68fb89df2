#!/usr/bin/env python3
"""The table of scripts/build-comparison.sh: per library, tool, contender and size, the old
and the new build's median time and the median over paired repetitions (repetition i of an
old launch with repetition i of the new launch of the same round) of old time / new time;
a cell whose median is below 0.97 is slower. Times: leancast-bench's seconds per broadcast
(blocking), leancast-overlap-bench's MPI_Ibcast-to-MPI_Wait latency without computing
(nonblocking), leancast-call-path-bench's ns per whole call.
Usage: build-comparison.py RUNS.jsonl[.gz] [--command TEXT]"""
import argparse
import collections
import gzip
import json
import statistics

SLOWER_BELOW = 0.97
UNITS = {"leancast-bench": ("blocking", 1e6), "leancast-overlap-bench": ("nonblocking", 1.0),
         "leancast-call-path-bench": ("call", 1e-3)}  # to microseconds


def times(tool, run):
    """{(contender, bytes): [time of each repetition]} of one launch."""
    found = {}
    if tool == "leancast-bench":
        for r in run["results"]:
            found[(r["algorithm"], r["bytes"])] = [x["seconds_per_bcast"] for x in r["reps"]]
    elif tool == "leancast-overlap-bench":
        for r in run["results"]:
            found[(r["contender"], r["bytes"])] = [x["ibcast_us"] for x in r["repetitions"]]
    else:
        for r in run["calls"]:
            found[(r["name"], r["bytes"])] = list(r["ns"])
    return found


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def table(lines):
    """Rows (library, tool, contender, bytes, old us, new us, median ratio, pairs)."""
    launches = collections.defaultdict(dict)  # (library, tool, round) -> side -> times
    for line in lines:
        launches[(line["library"], line["tool"], line["round"])][line["side"]] = \
            times(line["tool"], line["run"])
    ratios, sides = collections.defaultdict(list), collections.defaultdict(lambda: ([], []))
    for (library, tool, _), by_side in launches.items():
        if set(by_side) != {"old", "new"}:
            continue
        for key, old in by_side["old"].items():
            new = by_side["new"].get(key)
            if not new:
                continue
            cell = (library, tool) + key
            ratios[cell] += [o / n for o, n in zip(old, new) if n > 0]
            sides[cell][0].extend(old)
            sides[cell][1].extend(new)
    rows = []
    for cell in sorted(ratios, key=lambda c: (c[0], c[1], c[2], c[3])):
        scale = UNITS[cell[1]][1]
        old, new = sides[cell]
        rows.append(cell + (statistics.median(old) * scale, statistics.median(new) * scale,
                            statistics.median(ratios[cell]), len(ratios[cell])))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs")
    parser.add_argument("--command", default="")
    args = parser.parse_args()
    lines = load(args.runs)
    revisions = {side: sorted({str(l["run"].get("environment", {}).get("git_revision")
                                   or l["run"].get("revision")) for l in lines if l["side"] == side})
                 for side in ("old", "new")}
    print(f"Old build {', '.join(revisions['old'])}, new build {', '.join(revisions['new'])}"
          + (f"; made by `{args.command}`" if args.command else "") + ".\n")
    print("| library | call | contender | bytes | old us | new us | old/new | |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    slower = 0
    rows = table(lines)
    for library, tool, contender, size, old, new, ratio, _ in rows:
        mark = "slower" if ratio < SLOWER_BELOW else ""
        slower += ratio < SLOWER_BELOW
        print(f"| {library} | {UNITS[tool][0]} | {contender} | {size} | {old:.3g} | {new:.3g} "
              f"| {ratio:.2f} | {mark} |")
    print(f"\n{len(rows) - slower} of {len(rows)} cells at least {SLOWER_BELOW}x; "
          f"old/new: the median over paired repetitions of old time / new time.")


if __name__ == "__main__":
    main()
