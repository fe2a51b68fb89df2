#!/usr/bin/env python3
"""Tabulates the 16-core machine's campaigns (../shared/device/README.md; raw JSON in
docs/benchmarks/real-16core/) as Markdown: per library, process count and timing method,
leancast's best within-node broadcast (shm or cma) against MPI_Bcast and its time against the
node's memory bound; auto as the bundle's table chose; then Open MPI's other configurations
(campaign2: coll_tuned's pipeline with 128 KiB segments, coll sm, coll adapt), each beside the
same leancast algorithms in one run. Ratios: MPI_Bcast's time over leancast's, median of the
per-repetition ratios (> 1: leancast faster). Usage: real-16core-summary.py DIR > DIR/summary.md"""
import glob
import importlib.util
import os
import sys

spec = importlib.util.spec_from_file_location(
    "within_node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "within-node-summary.py"))
within = importlib.util.module_from_spec(spec)
spec.loader.exec_module(within)
fmt, ratio, size_text = within.fmt, within.ratio, within.size_text

FORCED = (("tuned3seg128k", "tuned 3 (pipeline, 128K segments)"), ("collsm", "coll sm"),
          ("adapt", "adapt"))


def merged(pattern):
    """One job's three size classes (small, mid, large) as one table of cells."""
    paths = sorted(glob.glob(pattern))
    if not paths:
        return None
    cells, bounds, run = {}, {}, None
    for path in paths:
        run, c, b = within.load(path)
        cells.update(c)
        bounds.update(b)
    return run, cells, bounds


def stamp(run):
    env = run["environment"]
    return (f"{env['mpi_library'].split(',')[0]}, {env['cores']} cores ({env['cpu_model']}), "
            f"leancast {env['git_revision']}, {env['date']}; last-level cache "
            f"{run.get('last_level_cache_bytes', 0) >> 20} MiB; memory copy one core "
            f"{run.get('memory_copy_one_core_bytes_per_second', 0) / 2**30:.1f} GiB/s, all "
            f"{run.get('memory_copy_ranks', '?')} ranks at once "
            f"{run.get('memory_copy_all_cores_bytes_per_second', 0) / 2**30:.1f} GiB/s")


def default_table(directory, tag, procs, method):
    job = merged(os.path.join(directory, "campaign1", f"{tag}{'-osu' if method == 'osu' else ''}"
                                                      f"-p{procs}-*.json"))
    if not job:
        return []
    run, cells, bounds = job
    lines = [f"### {tag} P = {procs}, {method}", "", stamp(run) + ".", "",
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


def forced_table(directory, procs):
    """Open MPI's configurations: each file's mpi is the forced one, shm beside it."""
    runs = [("default", merged(os.path.join(directory, "campaign1", f"ompi-p{procs}-*.json")))]
    runs += [(label, merged(os.path.join(directory, "campaign2", f"ompi-{name}-p{procs}-*.json")))
             for name, label in FORCED]
    runs = [(label, job) for label, job in runs if job]
    if len(runs) < 2:
        return []
    sizes = sorted({s for _, s in runs[0][1][1]})
    lines = [f"### Open MPI P = {procs}, paper: each configuration's MPI_Bcast / shm in its run", "",
             "| bytes | " + " | ".join(label for label, _ in runs) + " | fastest configuration |",
             "|---|" + "---|" * (len(runs) + 1)]
    for size in sizes:
        values = [ratio(job[1], "mpi", "shm", size) for _, job in runs]
        present = [v for v in values if v is not None]
        lines.append(f"| {size_text(size)} | " + " | ".join(fmt(v) for v in values) +
                     f" | **{fmt(min(present) if present else None)}** |")
    return lines + [""]


def main():
    directory = sys.argv[1]
    out = ["# leancast on a 16-core node (scripts/real-16core-summary.py)", "",
           "From the device's campaign1 and campaign2 (../shared/device/README.md), run as "
           "`bash .devcarry/bench.sh campaign1` and `... campaign2`; each table's runs timed "
           "every algorithm interleaved, so its ratios are side by side. time / bound: "
           "leancast's best over max(n / one core's copy rate, (P - 1) n / all cores' copy "
           "rate); below the last-level cache (300 MiB here, so every size) buffers are not "
           "rotated and the time can beat the memory bound.", "",
           "## leancast's best against MPI_Bcast", ""]
    for tag, procs, method in (("ompi", 16, "paper"), ("ompi", 16, "osu"), ("mpich", 16, "paper"),
                               ("mpich", 16, "osu"), ("ompi", 8, "paper"), ("ompi", 4, "paper")):
        out += default_table(directory, tag, procs, method)
    out += ["## Open MPI's configurations against shm", ""]
    for procs in (16, 8):
        out += forced_table(directory, procs)
    print("\n".join(out))


if __name__ == "__main__":
    main()
