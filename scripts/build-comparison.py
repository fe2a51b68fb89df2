#!/usr/bin/env python3
"""The table of scripts/build-comparison.sh: per library, tool, contender and size, the
median over paired repetitions (repetition i of an old launch with repetition i of the new
launch of the same round) of old time / new time; a cell whose median is below 0.97 is
slower. Times: leancast-bench's seconds per broadcast
(blocking), leancast-overlap-bench's MPI_Ibcast-to-MPI_Wait latency without computing
(nonblocking), leancast-call-path-bench's ns per whole call.
Usage: build-comparison.py RUNS.jsonl[.gz]... [--compact OUT.jsonl.gz] [--contender NAME]
(one table per comparison: per file, or per label of a compacted file; --contender: one
table of NAME's blocking cells, a row per comparison and library)"""
import argparse
import collections
import gzip
import json
import statistics

SLOWER_BELOW = 0.97
CALLS = {"leancast-bench": "blocking", "leancast-overlap-bench": "nonblocking",
         "leancast-call-path-bench": "call"}


def times(tool, run):
    """[[contender, bytes, [time of each repetition]], ...] of one launch's JSON."""
    if tool == "leancast-bench":
        return [[r["algorithm"], r["bytes"], [x["seconds_per_bcast"] for x in r["reps"]]]
                for r in run["results"]]
    if tool == "leancast-overlap-bench":
        return [[r["contender"], r["bytes"], [x["ibcast_us"] for x in r["repetitions"]]]
                for r in run["results"]]
    return [[r["name"], r["bytes"], list(r["ns"])] for r in run["calls"]]


def compact(line):
    """A launch's line as the evidence keeps it: its build's revision and its times."""
    if "run" not in line:
        return line
    run = line["run"]
    revision = run.get("environment", {}).get("git_revision") or run.get("revision")
    kept = ("comparison", "side", "library", "tool", "round")
    return {key: line[key] for key in kept if key in line} | {
        "revision": revision, "times": times(line["tool"], run)}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [compact(json.loads(line)) for line in f if line.strip()]


def table(lines):
    """{(library, tool, contender, bytes): the median of its paired ratios}, sorted."""
    launches = collections.defaultdict(dict)  # (library, tool, round) -> side -> times
    for line in lines:
        launches[(line["library"], line["tool"], line["round"])][line["side"]] = {
            (contender, size): values for contender, size, values in line["times"]}
    ratios = collections.defaultdict(list)
    for (library, tool, _), by_side in launches.items():
        if set(by_side) != {"old", "new"}:
            continue
        for key, old in by_side["old"].items():
            new = by_side["new"].get(key, [])
            ratios[(library, tool) + key] += [o / n for o, n in zip(old, new) if n > 0]
    return {cell: statistics.median(found) for cell, found in sorted(ratios.items()) if found}


def cell_text(ratio):
    """A cell of a table: the ratio, starred below SLOWER_BELOW; "" where not measured."""
    return "" if ratio is None else f"{ratio:.2f}{'*' if ratio < SLOWER_BELOW else ''}"


def print_table(lines):
    revisions = {side: ", ".join(sorted({str(l["revision"]) for l in lines if l["side"] == side}))
                 for side in ("old", "new")}
    rows = table(lines)
    sizes = sorted({cell[3] for cell in rows})
    print(f"Old build {revisions['old']} against new build {revisions['new']}: old time / new "
          f"time, the median over paired repetitions; *: below {SLOWER_BELOW}.\n")
    print("| library | call | contender | " + " | ".join(f"{s} B" for s in sizes) + " |")
    print("|---|---|---|" + "---:|" * len(sizes))
    by_row = collections.defaultdict(dict)
    for (library, tool, contender, size), ratio in rows.items():
        by_row[(library, CALLS[tool], contender)][size] = ratio
    slower = 0
    for (library, call, contender), ratios in by_row.items():
        cells = []
        for size in sizes:
            ratio = ratios.get(size)
            slower += ratio is not None and ratio < SLOWER_BELOW
            cells.append(cell_text(ratio))
        print(f"| {library} | {call} | {contender} | " + " | ".join(cells) + " |")
    print(f"\n{len(rows) - slower} of {len(rows)} cells at least {SLOWER_BELOW}.")


def print_contender(comparisons, contender):
    """One contender's blocking cells across comparisons (launch contexts)."""
    rows = {label: table(lines) for label, lines in comparisons.items()}
    sizes = sorted({cell[3] for found in rows.values() for cell in found})
    print(f"`{contender}`, blocking: old time / new time per comparison; "
          f"*: below {SLOWER_BELOW}.\n")
    print("| comparison | library | " + " | ".join(f"{s} B" for s in sizes) + " |")
    print("|---|---|" + "---:|" * len(sizes))
    for label, found in rows.items():
        for library in sorted({cell[0] for cell in found}):
            ratios = [found.get((library, "leancast-bench", contender, size)) for size in sizes]
            if all(r is None for r in ratios):
                continue
            print(f"| {label} | {library} | " + " | ".join(map(cell_text, ratios)) + " |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", help="each a comparison's runs (JSON Lines)")
    parser.add_argument("--compact", metavar="OUT",
                        help="write the comparisons' compact lines here, each its own label")
    parser.add_argument("--contender", help="only this contender's blocking cells, one table")
    args = parser.parse_args()
    comparisons = collections.defaultdict(list)
    for path in args.runs:
        for line in load(path):
            comparisons[line.get("comparison", path)].append(line)
    if args.compact:
        with gzip.open(args.compact, "wt") as f:
            for label, lines in comparisons.items():
                old = sorted({str(l["revision"]) for l in lines if l["side"] == "old"})
                for line in lines:
                    line = line | {"comparison": line.get("comparison") or ",".join(old)}
                    f.write(json.dumps(line, separators=(",", ":")) + "\n")
    if args.contender:
        print_contender(comparisons, args.contender)
        return
    for index, lines in enumerate(comparisons.values()):
        if index:
            print()
        print_table(lines)


if __name__ == "__main__":
    main()
