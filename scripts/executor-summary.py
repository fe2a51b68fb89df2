#!/usr/bin/env python3
"""The executors side by side, from their compact evidence (evidence/executors.jsonl.gz: each
leancast-bench run that timed NAME@dataflow, NAME@rounds and, in the lookahead runs,
NAME@dataflow:0 and NAME@dataflow:1 beside MPI_Bcast in one run, with its source).

By default, per run, algorithm and size: the rounds executor's time over the dataflow
executor's (> 1: dataflow faster) and MPI_Bcast's time over each (> 1: leancast faster), each
the median over repetitions of ratios taken within one repetition (both timed side by side).
`lookahead`: for the runs that timed one round of lookahead (dataflow:1), each executor's
MiB/s (median over repetitions), and where dataflow:1 stands: its median time within the
repetitions' min-max of unbounded dataflow, and faster than dataflow:0 (median of the
per-repetition ratios > 1).
Usage: executor-summary.py [lookahead] evidence/executors.jsonl.gz   (prints Markdown)"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

LOOKAHEAD = ("dataflow", "dataflow:0", "dataflow:1", "rounds")


def times(run):
    """{(algorithm, bytes): {rep: seconds}}"""
    cells = {}
    for cell in run["results"]:
        cells[(cell["algorithm"], cell["bytes"])] = {
            r["rep"]: r["seconds_per_bcast"] for r in cell["reps"]}
    return cells


def ratio(cells, numerator, denominator):
    a, b = cells.get(numerator), cells.get(denominator)
    if not a or not b:
        return None
    return statistics.median(a[k] / b[k] for k in a if k in b and b[k] > 0)


def fmt(value):
    return "–" if value is None else f"{value:.2f}"


def names_of(cells):
    names = []
    for algorithm, _ in cells:
        base = algorithm.split("@")[0]
        if "@" in algorithm and base not in names:
            names.append(base)
    return names


def heading(source, run, cells):
    return (f"### {os.path.basename(source)}", "",
            f"{run.get('environment', {}).get('mpi_library', '').split(',')[0]} "
            f"P={run.get('environment', {}).get('procs', '?')}")


def table(source, run):
    cells = times(run)
    sizes = sorted({size for _, size in cells})
    title, blank, library = heading(source, run, cells)
    lines = [title, blank,
             f"{library}; cells: rounds/dataflow (dataflow's speedup over rounds) · "
             "mpi/dataflow · mpi/rounds", "",
             "| algorithm | " + " | ".join(f"{s} B" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for name in names_of(cells):
        row = []
        for size in sizes:
            flow, rounds = ((f"{name}@{e}", size) for e in ("dataflow", "rounds"))
            mpi = ("mpi", size)
            row.append(f"{fmt(ratio(cells, rounds, flow))} · {fmt(ratio(cells, mpi, flow))} · "
                       f"{fmt(ratio(cells, mpi, rounds))}")
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def mib_s(cells, key, size):
    reps = cells.get(key)
    return None if not reps else size / statistics.median(reps.values()) / (1 << 20)


def lookahead(source, run):
    cells = times(run)
    sizes = sorted({size for _, size in cells})
    title, blank, library = heading(source, run, cells)
    lines = [title, blank, f"{library}; MiB/s under " + " / ".join(LOOKAHEAD), "",
             "| algorithm | " + " | ".join(f"{s} B" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    within = ahead = count = 0
    others = [a for a, _ in cells if "@" not in a]
    for name in names_of(cells) + list(dict.fromkeys(others)):
        row = []
        for size in sizes:
            if "@" not in name and (name, size) in cells:
                row.append(f"{mib_s(cells, (name, size), size):.0f}")
                continue
            keys = {e: (f"{name}@{e}", size) for e in LOOKAHEAD}
            row.append(" / ".join(f"{v:.0f}" if (v := mib_s(cells, keys[e], size)) else "–"
                                  for e in LOOKAHEAD))
            one, free = cells.get(keys["dataflow:1"]), cells.get(keys["dataflow"])
            if one and free:
                count += 1
                within += min(free.values()) <= statistics.median(one.values()) <= max(
                    free.values())
                ahead += (ratio(cells, keys["dataflow:0"], keys["dataflow:1"]) or 0) > 1
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += ["", f"dataflow:1 within unbounded dataflow's min–max: {within} of {count} cells; "
              f"faster than dataflow:0: {ahead} of {count}.", ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[0] != "lookahead"):
        sys.exit(__doc__)
    _, bench = evidence.tunings_and_bench(argv[-1])
    bench = sorted(bench, key=lambda pair: os.path.basename(pair[0]))
    if len(argv) == 2:
        print("# One round of lookahead beside the other executors\n")
        for source, run in bench:
            if any(r["algorithm"].endswith("@dataflow:1") for r in run["results"]):
                print(lookahead(source, run))
        return
    print("# Dataflow executor against the round-by-round one\n")
    print(f"Made by scripts/executor-summary.py from {argv[-1]}.\n")
    for source, run in bench:
        print(table(source, run))


if __name__ == "__main__":
    main(sys.argv[1:])
