#!/usr/bin/env python3
"""Summarizes scripts/shm-measure.sh's JSON (docs/benchmarks/shm/) as Markdown.

For each MPI library and process count, per message size: shm (the slot size that was
fastest there) against MPI_Bcast, against leancast's fastest point-to-point algorithm, and
against each configuration of the library's own broadcast. Every ratio is another
broadcast's time over shm's, both timed in the same run and repetition (the median over
repetitions of the per-repetition ratios): > 1 means shm is faster.
Usage: shm-summary.py DIR"""
import glob
import json
import os
import re
import statistics
import sys

OPENMPI_TUNED = {1: "linear", 2: "chain", 3: "pipeline", 4: "split binary", 5: "binary",
                 6: "binomial", 7: "knomial", 8: "scatter+allgather", 9: "scatter+ring"}


def load(path):
    with open(path) as f:
        run = json.load(f)
    cells = {}
    for cell in run["results"]:
        if not cell.get("data_ok", True):
            sys.exit(f"{path}: {cell['algorithm']} delivered wrong data")
        cells[(cell["algorithm"], cell["bytes"])] = {
            r["rep"]: r["seconds_per_bcast"] for r in cell["reps"]}
    return run, cells


def ratio(cells, slower, faster, size):
    a, b = cells.get((slower, size)), cells.get((faster, size))
    if not a or not b:
        return None
    pairs = [a[k] / b[k] for k in a if k in b and b[k] > 0]
    return statistics.median(pairs) if pairs else None


def median_time(cells, algorithm, size):
    times = cells.get((algorithm, size))
    return statistics.median(times.values()) if times else None


def best(cells, names, size):
    timed = [(median_time(cells, n, size), n) for n in names]
    timed = [t for t in timed if t[0] is not None]
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
        return f"coll_tuned {match.group(1)} ({OPENMPI_TUNED[int(match.group(1))]})"
    return {"han": "han", "sm": "coll sm", "adapt": "adapt",
            "release_gather": "release_gather"}.get(name, name)


def section(directory, library, procs):
    default = os.path.join(directory, f"{library}-p{procs}-default.json")
    if not os.path.exists(default):
        return []
    run, cells = load(default)
    names = sorted({a for a, _ in cells})
    shms = [n for n in names if n.startswith("shm")]
    p2p = [n for n in names if n != "mpi" and not n.startswith("shm")]
    sizes = sorted({s for _, s in cells})
    peers = []
    for path in sorted(glob.glob(os.path.join(directory, f"{library}-p{procs}-*.json"))):
        name = os.path.basename(path)[len(f"{library}-p{procs}-"):-len(".json")]
        if name.startswith("default"):
            continue
        peers.append((configuration(name), load(path)[1]))
    env = run["environment"]
    lines = [f"## {library} P = {procs}", "",
             f"{env['mpi_library'].split(',')[0]}, {env['cores']} cores ({env['cpu_model']}), "
             f"method {run['method']}, git {env['git_revision']}, {env['date']}.", ""]
    header = ["bytes", "shm slot", "shm µs", "MPI_Bcast / shm", "best p2p", "p2p / shm"]
    header += [f"{label} / shm" for label, _ in peers]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    best_peer_ratios = []
    for size in sizes:
        s = best(cells, shms, size)
        q = best(cells, p2p, size)
        row = [size_text(size), s.split(":")[1], f"{median_time(cells, s, size) * 1e6:.1f}",
               fmt(ratio(cells, "mpi", s, size)), q, fmt(ratio(cells, q, s, size))]
        peer_ratios = []
        for _, peer in peers:
            ps = best(peer, [n for n in shms if (n, size) in peer], size)
            r = ratio(peer, "mpi", ps, size) if ps else None
            peer_ratios.append(r)
            row.append(fmt(r))
        forced = [r for (label, _), r in zip(peers, peer_ratios) if r is not None]
        best_peer_ratios.append((size, min(forced) if forced else None))
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Against the library's fastest configuration at each size (the smallest "
              "ratio of the columns after p2p): " +
              ", ".join(f"{size_text(s)} {fmt(r)}" for s, r in best_peer_ratios), ""]
    return lines


def main():
    directory = sys.argv[1]
    out = ["# shm beside the MPI libraries' broadcasts (scripts/shm-measure.sh)", "",
           "Each ratio is the other broadcast's time over shm's, timed in the same run and "
           "repetition; > 1: shm is faster. shm's slot size is the fastest of those measured at "
           "each size (in each run).", ""]
    for library in ("openmpi", "mpich"):
        for procs in (2, 4, 8, 16):
            out += section(directory, library, procs)
    print("\n".join(out))


if __name__ == "__main__":
    main()
