#!/usr/bin/python3
"""auto against MPICH's choice, SMPI's selectors and SMPI's best built-in broadcast, on the
hornet model, at the paper's grids and beyond; writes OUT_DIR/pP.json per process count
(24 ranks per node) and OUT_DIR/ppn1-pP.json (one rank per node), then OUT_DIR/summary.md
and summary.json (the table docs/auto.md shows) from whatever runs OUT_DIR holds.

Usage: compare-auto.py BUILD_SMPI OUT_DIR [CASE ...]
  CASE: P (24 ranks per node) or ppn1:P; none: every case. --summary-only: no simulation.
"""
import json
import math
import os
import subprocess
import sys
import time

FIG6 = [524288, 786432, 1048576, 1572864, 2097152, 2621440, 3000000]
FIG7 = [12288, 524287, 1048576]
FIG8 = [12288, 24576, 49152, 98304, 196608, 393216, 786432, 1572864, 2560000]
LONG = [1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]
GRID = {9: FIG7, 17: FIG7, 33: FIG7, 65: FIG7, 129: sorted(set(FIG7 + FIG8)),
        16: FIG6, 64: FIG6 + [4 << 20, 16 << 20], 256: FIG6 + [4 << 20, 16 << 20],
        1024: [1 << 20, 4 << 20, 16 << 20], 4096: [1 << 20, 4 << 20]}
# One rank per node: the network alone, where the bandwidth-optimal trees pay off most.
GRID_PPN1 = {64: [1 << 20, 4 << 20, 16 << 20], 256: [1 << 20, 4 << 20, 16 << 20]}
# SMPI's broadcasts that deliver the data in reasonable simulation time (leaving out
# arrival_pattern_aware*, NTSB and flattree_pipeline: under 100 MB/s and minutes per run at
# P = 64; mvapich2_inter_node alone does not reach every rank).
BUILTINS = ["binomial_tree", "flattree", "NTSL", "scatter_LR_allgather", "scatter_rdb_allgather",
            "SMP_binary", "SMP_binomial", "SMP_linear", "ompi_pipeline", "ompi_split_bintree",
            "mvapich2_intra_node", "mvapich2_knomial_intra_node", "mvapich2", "impi"]
# At 1024 ranks (on 2 cores, one session) the built-ins that were best or second best at
# P = 64..256 besides the selectors: binomial_tree, the MPICH-style scatter + ring
# (scatter_LR_allgather) and mvapich2 (best at P = 256 below 1 MB).
BUILTINS_1K = ["binomial_tree", "scatter_LR_allgather", "mvapich2"]
# hornet's links (tools/sim/platforms/hornet.cpp): the cheapest start-up is two core links
# (0.4 us, within a node), the fastest byte a core's or NIC's 10 GB/s; a node's ranks share
# a 57 GB/s memory bus.
ALPHA, BETA, BUS, PPN = 0.4e-6, 1e-10, 57e9, 24


def algorithms_for(procs, ppn):
    if ppn == 1:  # no node structure for the SMP family to use; SMPI's ompi_split_bintree
        # deadlocks here (P = 64, 1 MiB: "Deadlock detected", no result written)
        return ["auto", "scatter-ring", "smpi:ompi", "smpi:mpich", "smpi:binomial_tree",
                "smpi:scatter_LR_allgather", "smpi:scatter_rdb_allgather", "smpi:ompi_pipeline",
                "smpi:mvapich2"]
    if procs == 4096:  # the rings (P^2 messages, also in SMPI's mpich) would take hours, and
        # SMPI's ompi selector ran over 22 minutes here without finishing
        return ["auto", "smpi:binomial_tree"]
    builtins = BUILTINS_1K if procs == 1024 else BUILTINS
    return ["auto", "scatter-ring", "smpi:ompi", "smpi:mpich"] + [f"smpi:{b}" for b in builtins]


def cases():
    """(procs, ranks per node, sizes, json file name) of every case, in the table's order."""
    for procs in sorted(GRID):
        yield procs, PPN, GRID[procs], f"p{procs}.json"
    for procs in sorted(GRID_PPN1):
        yield procs, 1, GRID_PPN1[procs], f"ppn1-p{procs}.json"


def simulate(build, out_dir, procs, ppn, sizes, name):
    out = os.path.join(out_dir, name)
    command = [os.path.join(build, "leancast-sim"), "--platform", "hornet", "--procs", str(procs),
               "--ranks-per-node", str(ppn),
               "--algorithms", ",".join(algorithms_for(procs, ppn)),
               "--sizes", ",".join(str(s) for s in sizes),
               "--method", "paper", "--iterations", "1", "--baseline", "auto", "--json", out]
    if procs >= 1024:
        command.append("--shared-buffer")  # P x 16 MiB would not fit in this machine's memory
    start = time.monotonic()
    print(" ".join(command), flush=True)
    subprocess.run(command, check=True)
    print(f"P={procs}: {time.monotonic() - start:.0f} s", flush=True)


def lower_bounds(procs, ppn, size):
    """(alpha-beta bound, node memory bound) in seconds."""
    alpha_beta = math.ceil(math.log2(procs)) * ALPHA + size * BETA
    # Each rank but the root takes in the whole message through its node's bus; on the
    # fullest node that is every rank (or all but the root, when there is one node).
    on_node = min(ppn, procs) - (1 if procs <= ppn else 0)
    return alpha_beta, on_node * size / BUS


def summarize(out_dir):
    rows = []
    for procs, ppn, sizes, name in cases():
        path = os.path.join(out_dir, name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            run = json.load(f)
        time_of = {(c["algorithm"], c["bytes"]): c["summary"]["seconds_per_bcast"]["median"]
                   for c in run["results"] if c["data_ok"]}
        chosen = {p["bytes"]: p["selected_algorithm"] for p in run.get("algorithm_parameters", [])
                  if p["algorithm"] == "auto"}
        for size in sizes:
            auto = time_of.get(("auto", size))
            if auto is None:
                continue
            builtins = {a: t for (a, s), t in time_of.items()
                        if s == size and a.startswith("smpi:")}
            best = min(builtins, key=builtins.get) if builtins else None
            alpha_beta, memory = lower_bounds(procs, ppn, size)
            rows.append({"procs": procs, "ranks_per_node": min(ppn, procs), "bytes": size, "auto": chosen.get(size, "?"),
                         "auto_seconds": auto, "ring_seconds": time_of.get(("scatter-ring", size)),
                         "ompi_seconds": builtins.get("smpi:ompi"),
                         "mpich_seconds": builtins.get("smpi:mpich"),
                         "best_builtin": best, "best_builtin_seconds": builtins.get(best),
                         "alpha_beta_bound_seconds": alpha_beta,
                         "memory_bound_seconds": memory})
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    ratio = lambda other, mine: "-" if other is None else f"{other / mine:.2f}"
    lines = ["| P | per node | bytes | auto runs | auto MB/s | ring / auto | ompi / auto | mpich / auto "
             "| best built-in | best / auto | auto / α-β bound | auto / memory bound |",
             "|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['procs']} | {r['ranks_per_node']} | {r['bytes']} | `{r['auto']}` | {r['bytes'] / r['auto_seconds'] / 2**20:.0f} "
            f"| {ratio(r['ring_seconds'], r['auto_seconds'])} "
            f"| {ratio(r['ompi_seconds'], r['auto_seconds'])} "
            f"| {ratio(r['mpich_seconds'], r['auto_seconds'])} "
            f"| {(r['best_builtin'] or '-').removeprefix('smpi:')} "
            f"| {ratio(r['best_builtin_seconds'], r['auto_seconds'])} "
            f"| {r['auto_seconds'] / r['alpha_beta_bound_seconds']:.2f} "
            f"| {r['auto_seconds'] / r['memory_bound_seconds']:.2f} |")
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(build, out_dir, *names):
    os.makedirs(out_dir, exist_ok=True)
    wanted = [n for n in names if n != "--summary-only"]
    if "--summary-only" not in names:
        for procs, ppn, sizes, name in cases():
            label = f"ppn1:{procs}" if ppn == 1 else str(procs)
            if not wanted or label in wanted:
                simulate(build, out_dir, procs, ppn, sizes, name)
    summarize(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
