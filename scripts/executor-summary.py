#!/usr/bin/env python3
"""Summarizes scripts/executor-comparison.sh's JSON: for every algorithm and size, the
rounds executor's time over the dataflow executor's (> 1: dataflow faster) and
MPI_Bcast's time over each (> 1: leancast faster), each the median over repetitions of
ratios taken within one repetition (both timed side by side).
Usage: executor-summary.py DIR   (prints Markdown)"""
import glob
import json
import os
import statistics
import sys


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


def table(path):
    with open(path) as f:
        run = json.load(f)
    cells = times(run)
    sizes = sorted({size for _, size in cells})
    names = []
    for algorithm, _ in cells:
        base = algorithm.split("@")[0]
        if "@" in algorithm and base not in names:
            names.append(base)
    env = run.get("environment", {})
    lines = [f"### {os.path.basename(path)}", "",
             f"{env.get('mpi_library', '').split(',')[0]} P={env.get('procs', '?')}; "
             "cells: rounds/dataflow (dataflow's speedup over rounds) · mpi/dataflow · "
             "mpi/rounds", "",
             "| algorithm | " + " | ".join(f"{s} B" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for name in names:
        row = []
        for size in sizes:
            flow, rounds = ((f"{name}@{e}", size) for e in ("dataflow", "rounds"))
            mpi = ("mpi", size)
            row.append(f"{fmt(ratio(cells, rounds, flow))} · {fmt(ratio(cells, mpi, flow))} · "
                       f"{fmt(ratio(cells, mpi, rounds))}")
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main():
    directory = sys.argv[1]
    print("# Dataflow executor against the round-by-round one\n")
    print("Made by scripts/executor-summary.py from the JSON beside this file "
          "(scripts/executor-comparison.sh).\n")
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        print(table(path))


if __name__ == "__main__":
    main()
