#!/usr/bin/env python3
"""Tabulates scripts/within-node-measure.sh's runs on the 2-core VM as Markdown, from their
compact evidence (evidence/within-node-2core.jsonl.gz: each leancast-bench run with its source,
the path it was first written to, under a within-node/ folder).

Per library at P = 2 and per message size: leancast's best within-node broadcast (the fastest
of shm and cma in the default run), its time against the node's memory bound, and for each
configuration of the library's own broadcast the ratio MPI_Bcast / leancast's best, both timed
in the same run and repetition (median of the per-repetition ratios; > 1: leancast faster);
then the smallest of those ratios (the library's fastest configuration), and auto against
MPI_Bcast where the library runs coll sm (Open MPI) or by default. time / kernel: where the
best is cma or cma-split, its time over what the kernel's cross-memory copy allows (n over
one core's rate for cma, whose reader copies alone; over all ranks' rate at once for
cma-split, whose two ranks both copy at P = 2). The same for the huge-pages runs (huge-pages/),
and at P = 4: auto against MPI_Bcast.
Usage: within-node-summary.py evidence/within-node-2core.jsonl.gz (from the repository root)"""
import fnmatch
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

RUNS = {}  # a run's source below within-node/ -> run

OPENMPI_TUNED = {1: "linear", 2: "chain", 3: "pipeline", 4: "split binary", 5: "binary",
                 6: "binomial", 7: "knomial", 8: "scatter+allgather", 9: "scatter+ring"}


def load(path):
    return tabulated(RUNS[path], path)


def exists(path):
    return path in RUNS


def matching(pattern):
    return sorted(p for p in RUNS if fnmatch.fnmatch(p, pattern))


def tabulated(run, path):
    """(run, {(algorithm, bytes): {rep: seconds}}, {(algorithm, bytes): (bound, rotated)})."""
    cells, bounds = {}, {}
    for cell in run["results"]:
        if not cell.get("data_ok", True):
            sys.exit(f"{path}: {cell['algorithm']} delivered wrong data")
        key = (cell["algorithm"], cell["bytes"])
        cells[key] = {r["rep"]: r["seconds_per_bcast"] for r in cell["reps"]}
        bounds[key] = (node_bound(run, cell), cell.get("buffers_rotated"))
    return run, cells, bounds


def node_bound(run, cell):
    """The cell's memory bound as leancast-bench computes it (memory_bound_seconds in
    tools/bench/memory.cpp), from the run's copy rates: (P - 1) n / all ranks' rate. Computed
    here, not read, because runs before 2026-11-29 wrote max(n / one core's rate, that), which
    cma-split beat (docs/benchmarks.md#the-nodes-memory-bound)."""
    every = run.get("memory_copy_all_cores_bytes_per_second")
    if cell.get("memory_bound_seconds") is None or not every:
        return None
    return (run["memory_copy_ranks"] - 1) * cell["bytes"] / every


def ratio(cells, slower, faster, size):
    a, b = cells.get((slower, size)), cells.get((faster, size))
    if not a or not b:
        return None
    pairs = [a[k] / b[k] for k in a if k in b and b[k] > 0]
    return statistics.median(pairs) if pairs else None


def median_time(cells, algorithm, size):
    times = cells.get((algorithm, size))
    return statistics.median(times.values()) if times else None


def best(cells, size):
    timed = [(median_time(cells, n, size), n) for n, s in cells
             if s == size and n.split(":")[0] in ("shm", "cma", "cma-split")]
    return min(timed)[1] if timed else None


def size_text(size):
    for shift, suffix in ((20, "M"), (10, "K")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{suffix}"
    return str(size)


def fmt(value):
    return "–" if value is None else f"{value:.2f}"


def configuration(name):
    match = re.match(r"tuned-(\d+)$", name)
    if match:
        return f"tuned {match.group(1)} ({OPENMPI_TUNED[int(match.group(1))]})"
    return {"default": "default", "default-paper": "default (paper)", "vader-cma": "vader CMA",
            "vader-cma-paper": "vader CMA (paper)", "sm": "coll sm"}.get(name, name)


def kernel_bound(run, algorithm, size):
    """What the kernel's cross-memory copy allows a cma or cma-split broadcast of SIZE at
    P = 2 (the bench's probe: one core's rate, and all ranks' at once); None for others."""
    name = algorithm.split(":")[0]
    rate = {"cma": run.get("memory_cross_copy_one_core_bytes_per_second"),
            "cma-split": run.get("memory_cross_copy_all_cores_bytes_per_second")}.get(name)
    return size / rate if rate else None


def stamp(run):
    """The library, the machine, the commit, the date, the cache and the copy rates of a run."""
    env = run["environment"]
    return (f"{env['mpi_library'].split(',')[0]}, {env['cores']} cores ({env['cpu_model']}), "
            f"git {env['git_revision']}, {env['date']}; last-level cache "
            f"{run.get('last_level_cache_bytes', 0) >> 20} MiB; memory copy one core "
            f"{run.get('memory_copy_one_core_bytes_per_second', 0) / 2**30:.1f} GiB/s, all "
            f"{run.get('memory_copy_ranks', '?')} ranks at once "
            f"{run.get('memory_copy_all_cores_bytes_per_second', 0) / 2**30:.1f} GiB/s"
            + (f"; through cross-memory attach one core "
               f"{run['memory_cross_copy_one_core_bytes_per_second'] / 2**30:.1f} GiB/s, all at "
               f"once {run['memory_cross_copy_all_cores_bytes_per_second'] / 2**30:.1f} GiB/s"
               if run.get("memory_cross_copy_all_cores_bytes_per_second") else "")
            + (f"; pages: {'huge (--huge-pages)' if run['options'].get('huge_pages') else 'base'}, "
               f"rank 0 {run.get('huge_page_bytes', 0) >> 20} MiB on huge pages")
            + (f"; a cache line's round trip between ranks 0 and 1 "
               f"{run['core_round_trip_seconds'] * 1e9:.0f} ns"
               if run.get("core_round_trip_seconds") else ""))


def modes():
    """scripts/within-node-measure.sh modes: per round, the cache line's round trip between the
    two ranks beside each algorithm's median time (µs) at each size."""
    paths = sorted(matching("modes/round-*.json"),
                   key=lambda p: int(re.search(r"round-(\d+)", p).group(1)))
    if not paths:
        return []
    rounds = [load(p) for p in paths]
    keys = sorted({k for _, cells, _ in rounds for k in cells}, key=lambda k: (k[1], k[0]))
    lines = ["## shm's two modes on the 8 MiB VM before (modes/)", "",
             f"Open MPI, P = 2, osu method, {len(rounds)} rounds about 30 s apart "
             f"({rounds[0][0]['environment']['date']} on, git "
             f"{rounds[0][0]['environment']['git_revision']}): per round the round trip of a "
             "cache line between the two ranks (the bench's memory probe) and each median time "
             "in µs.", ""]
    header = ["round", "round trip ns"] + [f"{a} {size_text(s)}" for a, s in keys]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for number, (run, cells, _) in enumerate(rounds, 1):
        row = [str(number), f"{run.get('core_round_trip_seconds', 0) * 1e9:.0f}"]
        row += [f"{median_time(cells, a, s) * 1e6:.1f}" for a, s in keys]
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


# Configurations of the library's broadcast that auto's table has rules for: auto against
# MPI_Bcast in their runs too.
CONFIGURED_PEERS = ("coll sm", "release_gather")


def table(title, default, runs):
    """Per size: leancast's best in DEFAULT (run, cells, bounds), its time against the memory
    bound, MPI_Bcast / leancast's best in each of RUNS ((label, cells) pairs, each ratio within
    its own run), the smallest of those, and auto against MPI_Bcast in the default's run and
    in each configured peer's run among RUNS."""
    run, cells, bounds = default
    lines = [f"## {title}", "", stamp(run) + ".", ""]
    named = dict(runs)
    peers = [("default", cells)] + [(p, named[p]) for p in CONFIGURED_PEERS if p in named]
    header = ["bytes", "best", "µs", "rotated", "time / bound", "time / kernel"]
    header += [label for label, _ in runs] + ["fastest config"]
    header += [f"auto vs MPI_Bcast ({label})" for label, _ in peers]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for size in sorted({s for _, s in cells}):
        b = best(cells, size)
        bound, rotated = bounds[(b, size)]
        t = median_time(cells, b, size)
        kernel = kernel_bound(run, b, size)
        row = [size_text(size), b, f"{t * 1e6:.1f}", "yes" if rotated else "no",
               fmt(t / bound if bound else None), fmt(t / kernel if kernel else None)]
        ratios = []
        for _, peer_cells in runs:
            r = ratio(peer_cells, "mpi", best(peer_cells, size), size) if best(peer_cells, size) else None
            ratios.append(r)
            row.append(fmt(r))
        present = [r for r in ratios if r is not None]
        row.append(f"**{fmt(min(present) if present else None)}**")
        row += [fmt(ratio(peer_cells, "mpi", "auto", size)) for _, peer_cells in peers]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return lines


def section(library):
    default = f"{library}-p2-default.json"
    if not exists(default):
        return []
    runs = []
    for path in matching(f"{library}-p2-*.json"):
        name = os.path.basename(path)[len(f"{library}-p2-"):-len(".json")]
        runs.append((configuration(name), load(path)[1]))
    return table(f"{library} P = 2", load(default), runs)


def huge_pages(library):
    """The default configuration's run with the bench's buffers on huge pages."""
    path = f"huge-pages/{library}-p2-default.json"
    if not exists(path):
        return []
    default = load(path)
    return table(f"{library} P = 2, buffers on huge pages (huge-pages/)", default,
                 [("default", default[1])])


def deferral(library, procs):
    path = f"{library}-p{procs}-default.json"
    if not exists(path):
        return []
    run, cells, _ = load(path)
    sizes = sorted({s for _, s in cells})
    return [f"## {library} P = {procs}: auto against MPI_Bcast (git {run['environment']['git_revision']})",
            "", "| bytes | " + " | ".join(size_text(s) for s in sizes) + " |",
            "|---|" + "---|" * len(sizes),
            "| MPI_Bcast / auto | " + " | ".join(fmt(ratio(cells, "mpi", "auto", s)) for s in sizes) + " |",
            ""]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    _, bench = evidence.tunings_and_bench(sys.argv[1])
    # By the path below within-node/ (docs/benchmarks/ first, out/ since)
    RUNS.update((source.partition("within-node/")[2], run) for source, run in bench)
    out = ["# leancast within a node beside the MPI libraries (scripts/within-node-measure.sh)", "",
           "Each ratio is MPI_Bcast's time under one configuration of the library over leancast's "
           "best within-node broadcast (shm, cma or cma-split) in the same run and repetition: > 1, "
           "leancast is faster. time / bound: leancast's best over (P - 1) n / the copy rate of all "
           "P ranks at once, measured by the bench at its start.", ""]
    for library in ("openmpi", "mpich"):
        out += section(library)
    for library in ("openmpi", "mpich"):
        out += huge_pages(library)
    out += deferral("openmpi", 4)
    out += modes()
    print("\n".join(out))


if __name__ == "__main__":
    main()
