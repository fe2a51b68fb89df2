#!/usr/bin/env python3
"""Tabulates the 16-core machine's runs (evidence/real-16core.jsonl.gz: each leancast-bench run
with its source, the path under docs/benchmarks/real-16core/ it was first written to) as Markdown:
campaign1 (../shared/device/README.md): per library, process count and timing method, leancast's
best within-node broadcast (shm or cma) against MPI_Bcast, its time against the node's memory
bound, and auto as the bundle's table chose; then scripts/within-node-16core.sh's runs (within16/,
within16b/): every configuration of both libraries beside shm, cma and auto, 64 B - 64 MiB,
rotated above 4 MiB, osu method. Ratios: MPI_Bcast's time over leancast's, median of the
per-repetition ratios (> 1: leancast faster).
Usage: real-16core-summary.py [--readme] evidence/real-16core.jsonl.gz (from the repository
root; --readme: only the README's table at P = 16, default and fastest configuration)"""
import fnmatch
import importlib.util
import os
import sys

spec = importlib.util.spec_from_file_location(
    "within_node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "within-node-summary.py"))
within = importlib.util.module_from_spec(spec)
spec.loader.exec_module(within)
fmt, ratio, size_text = within.fmt, within.ratio, within.size_text
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

PREFIX = "docs/benchmarks/real-16core/"
RUNS = {}  # source under PREFIX -> run


def merged(pattern):
    """One job's three size classes (small, mid, large) as one table of cells."""
    paths = sorted(p for p in RUNS if fnmatch.fnmatch(p, pattern))
    if not paths:
        return None
    cells, bounds, run = {}, {}, None
    for path in paths:
        run, c, b = within.tabulated(RUNS[path], path)
        cells.update(c)
        bounds.update(b)
    return run, cells, bounds


def default_table(tag, procs, method):
    job = merged(f"campaign1/{tag}{'-osu' if method == 'osu' else ''}-p{procs}-*.json")
    if not job:
        return []
    run, cells, bounds = job
    lines = [f"### {tag} P = {procs}, {method}", "", within.stamp(run) + ".", "",
             "| bytes | best | µs | rotated | time / bound | MPI_Bcast / best | MPI_Bcast / auto (bundle's table) |",
             "|---|---|---|---|---|---|---|"]
    for size in sorted({s for _, s in cells}):
        b = within.best(cells, size)
        bound, rotated = bounds[(b, size)]
        t = within.median_time(cells, b, size)
        lines.append(f"| {size_text(size)} | {b} | {t * 1e6:.1f} | {'yes' if rotated else 'no'} | "
                     f"{fmt(t / bound if bound else None)} | {fmt(ratio(cells, 'mpi', b, size))} | "
                     f"{fmt(ratio(cells, 'mpi', 'auto', size))} |")
    return lines + [""]


# scripts/within-node-16core.sh's configurations (file name part, column)
WITHIN16 = (("default", "default"), ("sm", "coll sm"),
            ("tuned-3-seg128k", "tuned 3 (pipeline, 128K segments)"),
            ("release_gather", "release_gather"))


def within16_table(run, tag, procs):
    """scripts/within-node-16core.sh's configurations at one count, as within-node-summary's table."""
    jobs = [(label, merged(f"{run}/{tag}-p{procs}-{name}-*.json"))
            for name, label in WITHIN16]
    jobs = [(label, job) for label, job in jobs if job]
    if not jobs or jobs[0][0] != "default":
        return []
    library = "Open MPI" if tag == "ompi" else "MPICH"
    method = jobs[0][1][0]["method"]
    lines = within.table(f"{library} P = {procs}, {method}, every configuration ({run}/)", jobs[0][1],
                         [(label, job[1]) for label, job in jobs])
    return ["#" + lines[0]] + lines[1:]  # a level below this page's sections


README_SIZES = (64, 1 << 10, 16 << 10, 256 << 10, 1 << 20, 16 << 20, 64 << 20)


def readme_table():
    """The README's table at P = 16: per library MPI_Bcast / leancast's best under the
    library's default (campaign1, paper method) and the smallest such ratio over the
    library's configurations in both within-node runs (osu, rotated from 16 MiB)."""
    lines = ["| P = 16 | " + " | ".join(f"{size_text(s).replace('K', ' KiB').replace('M', ' MiB')}"
                                        if s >= 1024 else f"{s} B" for s in README_SIZES) + " |",
             "|---|" + "---|" * len(README_SIZES)]
    for tag, library in (("ompi", "Open MPI"), ("mpich", "MPICH")):
        _, cells, _ = merged(f"campaign1/{tag}-p16-*.json")
        default = [fmt(ratio(cells, "mpi", within.best(cells, s), s))
                   if within.best(cells, s) else "" for s in README_SIZES]
        fastest = []
        for size in README_SIZES:
            found = []
            for run in ("within16", "within16b"):
                for name, _ in WITHIN16:
                    job = merged(f"{run}/{tag}-p16-{name}-*.json")
                    best = job and within.best(job[1], size)
                    if best and ratio(job[1], "mpi", best, size) is not None:
                        found.append(ratio(job[1], "mpi", best, size))
            fastest.append(fmt(min(found)) if found else "")
        for label, row in (("default", default), ("fastest configuration", fastest)):
            lines.append(" ".join(f"| {library}'s {label} |".split() +
                                  [f"{c} |" if c else "|" for c in row]))
    return lines


def main():
    readme = "--readme" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--readme"]
    if len(args) != 1:
        sys.exit(__doc__)
    _, bench = evidence.tunings_and_bench(args[0])
    RUNS.update((source[len(PREFIX):], run) for source, run in bench)
    if readme:
        print("\n".join(readme_table()))
        return
    out = ["# leancast on a 16-core node (scripts/real-16core-summary.py)", "",
           "From the device's campaign1 (../shared/device/README.md), run as "
           "`bash .devcarry/bench.sh campaign1`, and `bash scripts/within-node-16core.sh`; each "
           "table's runs timed every algorithm interleaved, so its ratios are side by side. "
           "time / bound: "
           "leancast's best over (P - 1) n / the copy rate of all P ranks at once (computed from "
           "each run's rates: these runs' JSON carry the bench's earlier bound). campaign1 "
           "rotates no buffer (the last-level cache is 300 MiB), so its "
           "times can beat the bound; the within-node runs rotate from 16 MiB. The bound's "
           "copy rates are memcpy's (each byte read and written through memory), while shm's "
           "readers read the slot from the cache, so even rotated, time / bound can be below 1.", "",
           "## leancast's best against MPI_Bcast", ""]
    for tag, procs, method in (("ompi", 16, "paper"), ("ompi", 16, "osu"), ("mpich", 16, "paper"),
                               ("mpich", 16, "osu"), ("ompi", 8, "paper"), ("ompi", 4, "paper")):
        out += default_table(tag, procs, method)
    # within16/: P = 16, 8, 4 (and what P = 2 had time for); within16b/: P = 2, then 16 again;
    # within16-paper/: METHOD=paper
    runs = [run for run in ("within16", "within16b", "within16-paper")
            if any(p.startswith(run + "/") for p in RUNS)]
    if runs:
        out += ["## Every configuration, rotated above 4 MiB (scripts/within-node-16core.sh)", "",
                "MPI_Bcast / leancast's best (shm or cma) under each configuration of the library "
                "within its own run; fastest config: the smallest of those. Two runs, one after "
                "the other: within16/ (P = 16, 8, 4, and P = 2 until its deadline) and "
                "within16b/ (P = 2, then P = 16 again).", ""]
        for procs in (16, 8, 4, 2):
            for run in runs:
                for tag in ("ompi", "mpich"):
                    out += within16_table(run, tag, procs)
    print("\n".join(out))


if __name__ == "__main__":
    main()
